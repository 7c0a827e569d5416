/** glob: minimatch with nocase and dot, files only, newest first within 24 h and then by path, run in python3. */
import { posix } from "node:path";
import { approx } from "../../lib/harness/provenance.ts";
import type { Session } from "../../lib/harness/types.ts";
import { GLOB_COLLECTED, GLOB_SHOWN, OUTPUT_LINES } from "./limits.ts";
import { type Args, err, str } from "./outcome.ts";
import { resolvePath, unescapePath } from "./paths.ts";
import { GLOB_PARAMS } from "./schemas.ts";
import { qwenTool } from "./tool.ts";
import { validateDir } from "./validate.ts";
import { nodeGlob } from "../../lib/harness/tools/node_glob.ts";

async function globCheck(s: Session, a: Args): Promise<string | null> {
  const pattern = a.pattern;
  if (!pattern || typeof pattern !== "string" || pattern.trim() === "") {
    return "The 'pattern' parameter cannot be empty.";
  }
  if (a.path) {
    a.path = unescapePath(str(a.path).trim());
    return await validateDir(s, str(a.path));
  }
  return null;
}

/** The glob tool. */
export const globTool = qwenTool({
  name: "glob",
  params: GLOB_PARAMS,
  check: globCheck,
  async exec(s, a) {
    const pattern = str(a.pattern);
    const dir = a.path ? resolvePath(s, s.workdir, str(a.path)) : s.workdir;
    const where = a.path ? `within ${dir}` : "in the workspace directory";
    // approx.: `.git` is never entered; .gitignore / .qwenignore are not applied.
    const found = await nodeGlob(s.box, posix.resolve(dir), pattern, {
      nocase: true,
      ignore: [".git"],
      cap: GLOB_COLLECTED,
      zeroMtime: true,
    });
    if (!found) return err(approx("Error during glob search operation: python3 is not installed"));
    if (found.hits.length === 0) return { text: `No files found matching pattern "${pattern}" ${where}` };
    const day = 24 * 60 * 60 * 1000;
    const sorted = [...found.hits].sort((x, y) => {
      const xr = found.now - x[1] < day, yr = found.now - y[1] < day;
      if (xr && yr) return y[1] - x[1];
      if (xr) return -1;
      if (yr) return 1;
      return x[0].localeCompare(y[0], "en-US");
    });
    const total = sorted.length;
    const limit = Math.min(GLOB_SHOWN, OUTPUT_LINES);
    const cut = found.hitLimit || total > limit;
    const shown = cut ? sorted.slice(0, limit) : sorted;
    let msg = `${found.hitLimit ? "Found at least" : "Found"} ${total} file(s) matching "${pattern}" ${where}` +
      `, sorted by modification time (newest first):\n---\n${shown.map((h) => h[0]).join("\n")}`;
    if (found.hitLimit) {
      msg += `\n---\n[Results truncated after scanning ${total} matching files. Narrow the pattern or path.]`;
    } else if (cut) {
      const omitted = total - limit;
      msg += `\n---\n[${omitted} ${omitted === 1 ? "file" : "files"} truncated] ...`;
    }
    return { text: msg };
  },
});
