/**
 * small-agent@1's `map`: the file list and signature outline (map.py, run in the container), or a plain file list
 * where the image has no python3.
 */
import { shQuote } from "../../lib/runtime/channel.ts";
import type { Session } from "../../lib/harness/types.ts";
import { MAP_PY } from "./map_py.ts";

/** Lines of `map` output at most (file list and outline together). */
export const MAP_BUDGET = 120;

/**
 * The script that maps `root`: map.py under `python` when it can run, else `find` (same budget, no outline). Exit 2:
 * no such directory; exit 20: not a directory.
 */
export function mapScript(root: string, python = "python3"): string {
  const fallback = `cd "$d" && printf 'Files in %s (no python3 here, so no outline):\\n' "$d" && ` +
    `find . -name '.*' ! -name . -prune -o -type f -print | sed 's|^\\./||' | LC_ALL=C sort | ` +
    `awk -v max=${MAP_BUDGET - 2} 'NR <= max { print } END { if (NR > max) printf "… %d more files\\n", NR - max; ` +
    `if (NR == 0) print "(no files)" }'`;
  return `d=${shQuote(root)}; [ -e "$d" ] || exit 2; [ -d "$d" ] || exit 20\n` +
    `if command -v ${python} >/dev/null 2>&1; then exec ${python} -c ${shQuote(MAP_PY)} "$d" ${MAP_BUDGET}; fi\n` +
    fallback;
}

/** Runs `map DIR` (relative to the working directory) and words its failures. */
export async function mapDir(s: Session, dir: string, python?: string): Promise<string> {
  const r = await s.exec(mapScript(s.abspath(dir), python), { shell: "sh", timeout: 60 });
  if (r.exitCode === 2) return `Error: there is no directory \`${dir}\`. Run \`map\` to see the working directory.`;
  if (r.exitCode === 20) return `Error: \`${dir}\` is a file, not a directory; use \`read ${dir}\`.`;
  if (r.exitCode !== 0) return `Error: map failed (exit ${r.exitCode}): ${r.output.trim().slice(0, 500)}`;
  return r.stdout.trimEnd();
}
