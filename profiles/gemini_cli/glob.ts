/**
 * glob (GlobTool): files matching the pattern under the search directory (the workspace unless `dir_path`), files
 * changed in the last 24 hours first (newest first), then the rest by path; absolute paths, one per line.
 * approx.: .gitignore / .geminiignore are not applied (no "(N additional files were ignored)").
 */
import { posix } from "node:path";
import type { Session } from "../../lib/harness/types.ts";
import { probe } from "./fs.ts";
import { nodeGlob } from "../../lib/harness/tools/node_glob.ts";
import { env, pathAccessError } from "./paths.ts";
import { GLOB_PARAMS } from "./schemas.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

async function check(s: Session, a: Args): Promise<string | null> {
  const dir = await probe(s, posix.resolve(s.workdir, str(a.dir_path) || "."));
  const denied = pathAccessError(s, dir.real);
  if (denied) return denied;
  if (dir.kind === "missing") return `Search path does not exist ${dir.real}`; // (source)
  if (dir.kind !== "dir") return `Search path is not a directory: ${dir.real}`; // (source)
  if (!a.pattern || typeof a.pattern !== "string" || a.pattern.trim() === "") {
    return "The 'pattern' parameter cannot be empty."; // (source)
  }
  return null;
}

/** sortFileEntries: recent files by mtime (newest first), older ones by path (localeCompare). */
export function sortHits(hits: [string, number][], now: number): [string, number][] {
  return [...hits].sort(([pa, ma], [pb, mb]) => {
    const ra = now - ma < DAY_MS, rb = now - mb < DAY_MS;
    if (ra && rb) return mb - ma;
    if (ra) return -1;
    if (rb) return 1;
    return pa.localeCompare(pb, "en-US");
  });
}

async function exec(s: Session, a: Args): Promise<Outcome> {
  const pattern = str(a.pattern);
  let dir = env(s).workspace;
  if (a.dir_path) {
    dir = (await probe(s, posix.resolve(s.workdir, str(a.dir_path)))).real;
    const denied = pathAccessError(s, dir);
    if (denied) return fail(denied);
  }
  // node-glob with dot, nodir, follow: false and nocase unless case_sensitive; COMMON_IGNORE_PATTERNS' directories
  // left out; symlinked entries dropped, as gemini's realpath filter drops them.
  const found = await nodeGlob(s.box, dir, pattern, {
    nocase: a.case_sensitive !== true,
    ignore: ["node_modules", ".git", "bower_components", ".svn", ".hg"],
    dropLinks: true,
  }) ?? { now: Date.now(), hits: [], hitLimit: false };
  if (found.hits.length === 0) return ok(`No files found matching pattern "${pattern}" within ${dir}`);
  const list = sortHits(found.hits, found.now).map(([p]) => p);
  return ok(
    `Found ${list.length} file(s) matching "${pattern}" within ${dir}, sorted by modification time (newest first):\n` +
      list.join("\n"),
  );
}

/** The glob tool. */
export const globTool = geminiTool({ name: "glob", params: GLOB_PARAMS, check, exec });
