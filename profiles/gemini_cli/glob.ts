/**
 * glob (GlobTool): files matching the pattern under the search directory (the workspace unless `dir_path`), files
 * changed in the last 24 hours first (newest first), then the rest by path; absolute paths, one per line.
 * approx.: .gitignore / .geminiignore are not applied (no "(N additional files were ignored)").
 */
import { posix } from "node:path";
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import type { Session } from "../../lib/harness/types.ts";
import { probe } from "./fs.ts";
import { GLOB_PY } from "./glob_py.ts";
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
  const r = await s.box.exec(
    `command -v python3 >/dev/null || exit 127\npython3 -c ${shQuote(GLOB_PY)} ${shQuote(dir)} ${shQuote(pattern)} ${
      a.case_sensitive === true ? 0 : 1
    }`,
    { shell: "sh", timeoutSec: 120, maxOutputBytes: 32 << 20 },
  );
  let found: { now: number; hits: [string, number][] } = { now: Date.now(), hits: [] };
  try {
    found = JSON.parse(utf8(r.stdout));
  } catch { /* no python3, or nothing found */ }
  if (found.hits.length === 0) return ok(`No files found matching pattern "${pattern}" within ${dir}`);
  const list = sortHits(found.hits, found.now).map(([p]) => p);
  return ok(
    `Found ${list.length} file(s) matching "${pattern}" within ${dir}, sorted by modification time (newest first):\n` +
      list.join("\n"),
  );
}

/** The glob tool. */
export const globTool = geminiTool({ name: "glob", params: GLOB_PARAMS, check, exec });
