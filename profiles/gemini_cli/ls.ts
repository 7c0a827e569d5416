/**
 * list_directory (LSTool): the directory's entries with sizes, folders first, names in localeCompare order; `.git`,
 * `.env` and `node_modules` entries are skipped (they are never workspace paths), as are broken links; `ignore`
 * globs match names (`*` and `?` only). approx.: .gitignore / .geminiignore filtering (and its "(N ignored)") is not
 * applied.
 */
import { posix } from "node:path";
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import type { Session } from "../../lib/harness/types.ts";
import { nodeError } from "./fs.ts";
import { inWorkspace, pathAccessError } from "./paths.ts";
import { LS_PARAMS } from "./schemas.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";

/** The directory, its real path, and each entry's name, kind (after following links) and size. */
const LIST = `d=$1; r=$(realpath -m -- "$d" 2>/dev/null) || r=$d; printf '%s\\0' "$r"
[ -e "$d" ] || { printf 'ENOENT\\0'; exit 0; }
[ -d "$d" ] || { printf 'ENOTDIR\\0'; exit 0; }
[ -r "$d" ] && [ -x "$d" ] || { printf 'EACCES\\0'; exit 0; }
printf 'OK\\0'
cd -- "$d" && for f in * .*; do case $f in .|..) continue;; esac; [ -e "$f" ] || [ -L "$f" ] || continue
  if [ -e "$f" ]; then printf '%s\\0%s\\0' "$f" "$(stat -L --printf '%F|%s' -- "$f")"; else printf '%s\\0-\\0' "$f"; fi
done`;

function shouldIgnore(name: string, patterns: unknown): boolean {
  if (!Array.isArray(patterns)) return false;
  return patterns.some((p) => {
    if (typeof p !== "string") return false;
    const re = p.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    return new RegExp(`^${re}$`).test(name);
  });
}

async function check(s: Session, a: Args): Promise<string | null> {
  const dir = posix.resolve(s.workdir, str(a.dir_path));
  const r = await s.box.exec(`set -- ${shQuote(dir)}\nrealpath -m -- "$1"`, { shell: "sh", timeoutSec: 30 });
  return pathAccessError(s, utf8(r.stdout).trim() || dir, dir);
}

async function exec(s: Session, a: Args): Promise<Outcome> {
  const dir = posix.resolve(s.workdir, str(a.dir_path));
  const r = await s.box.exec(`set -- ${shQuote(dir)}\n${LIST}`, { shell: "sh", timeoutSec: 60 });
  const [real = dir, status = "ENOENT", ...rest] = utf8(r.stdout).split("\0");
  const denied = pathAccessError(s, real, dir);
  if (denied) return fail(denied);
  if (status === "ENOENT") return fail(`Error listing directory: ${nodeError("ENOENT", "stat", dir)}`);
  if (status === "ENOTDIR") return fail(`Error: Path is not a directory: ${dir}`); // (source)
  if (status === "EACCES") return fail(`Error listing directory: ${nodeError("EACCES", "scandir", dir)}`); // (source)
  if (rest.length < 2) return ok(`Directory ${dir} is empty.`); // (source)
  const entries: { name: string; dir: boolean; size: number }[] = [];
  for (let i = 0; i + 1 < rest.length; i += 2) {
    const [name, st] = [rest[i], rest[i + 1]];
    // Each entry passes validatePathAccess: .git, .env and node_modules never do.
    if (!inWorkspace(s, posix.join(real, name)) || shouldIgnore(name, a.ignore) || st === "-") continue;
    const [type, size] = st.split("|");
    entries.push({ name, dir: type === "directory", size: type === "directory" ? 0 : Number(size) });
  }
  entries.sort((x, y) => x.dir !== y.dir ? (x.dir ? -1 : 1) : x.name.localeCompare(y.name, "en-US"));
  const listing = entries.map((e) => e.dir ? `[DIR] ${e.name}` : `${e.name} (${e.size} bytes)`).join("\n");
  return ok(`Directory listing for ${dir}:\n${listing}`);
}

/** The list_directory tool. */
export const lsTool = geminiTool({ name: "list_directory", params: LS_PARAMS, check, exec });
