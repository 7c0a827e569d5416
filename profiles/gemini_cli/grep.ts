/**
 * grep_search as GrepTool runs it outside a git repository: system `grep -r -n -H -E -I -i` in the search directory
 * (files in grep's directory order), `L<n>: line` blocks per file, at most 100 matches unless told otherwise, and
 * with 1 to 3 matches the lines around them (50 lines for one, 15 for two or three) marked `L<n>-`.
 * approx.: in a git repository gemini runs `git grep --untracked` instead (same format, git's file order); when grep
 * fails gemini falls back to a JavaScript search, here the results are what grep printed.
 */
import { posix } from "node:path";
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import { readBytes } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { decodeUtf8, probe } from "./fs.ts";
import { env, pathAccessError } from "./paths.ts";
import { GREP_PARAMS } from "./schemas.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";

const EXCLUDE_DIRS = ["node_modules", ".git", "bower_components", ".svn", ".hg"];
const MAX_LINE = 2000;

interface Match {
  file: string;
  abs: string;
  line: number;
  text: string;
  context?: boolean;
}

function regexError(p: string): string | null {
  try {
    new RegExp(p);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

async function check(s: Session, a: Args): Promise<string | null> {
  const bad = regexError(str(a.pattern));
  if (bad) return `Invalid regular expression pattern provided: ${a.pattern}. Error: ${bad}`;
  if (a.exclude_pattern) {
    const ex = regexError(str(a.exclude_pattern));
    if (ex) return `Invalid exclude regular expression pattern provided: ${a.exclude_pattern}. Error: ${ex}`; // (source)
  }
  if (!a.dir_path) return null;
  const dir = await probe(s, posix.resolve(s.workdir, str(a.dir_path)));
  const denied = pathAccessError(s, dir.real);
  if (denied) return denied;
  if (dir.kind === "missing") return `Path does not exist: ${dir.real}`; // (source)
  if (dir.kind !== "dir") return `Path is not a directory: ${dir.real}`; // (source)
  return null;
}

/** parseGrepLine: `path:line:text`, the path relative to the search directory. */
function parseLine(l: string, base: string): Match | null {
  const m = l.match(/^(.+?):(\d+):(.*)$/);
  if (!m) return null;
  const abs = posix.resolve(base, m[1]), rel = posix.relative(base, abs);
  if (rel === ".." || rel.startsWith("../")) return null;
  return { file: rel || posix.basename(abs), abs, line: parseInt(m[2], 10), text: m[3] };
}

/** Object key order of a `{}` keyed by file: integer-like keys first, ascending, then insertion order. */
function keyOrder(keys: string[]): string[] {
  const isIndex = (k: string) => /^(0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1;
  return [...keys.filter(isIndex).sort((x, y) => Number(x) - Number(y)), ...keys.filter((k) => !isIndex(k))];
}

/** enrichWithAutoContext: a few matches bring their surrounding lines. */
async function addContext(s: Session, byFile: Map<string, Match[]>, count: number): Promise<void> {
  const around = count === 1 ? 50 : 15;
  for (const [file, matches] of byFile) {
    let lines: string[];
    try {
      lines = decodeUtf8((await readBytes(s.box, matches[0].abs)).data).split(/\r?\n/);
    } catch {
      continue;
    }
    const out: Match[] = [], seen = new Set<number>();
    for (const m of [...matches].sort((x, y) => x.line - y.line)) {
      const from = Math.max(0, m.line - 1 - around), to = Math.min(lines.length, m.line + around);
      for (let i = from; i < to; i++) {
        const n = i + 1;
        if (!seen.has(n)) {
          out.push({ ...m, line: n, text: lines[i], context: n !== m.line });
          seen.add(n);
        } else if (n === m.line) {
          const hit = out.find((x) => x.line === n);
          if (hit) hit.context = false;
        }
      }
    }
    byFile.set(file, out.sort((x, y) => x.line - y.line));
  }
}

async function exec(s: Session, a: Args): Promise<Outcome> {
  const dir = a.dir_path ? (await probe(s, posix.resolve(s.workdir, str(a.dir_path)))).real : env(s).workspace;
  if (a.dir_path) {
    const denied = pathAccessError(s, dir);
    if (denied) return fail(denied);
  }
  const pattern = str(a.pattern), include = str(a.include_pattern);
  const max = typeof a.total_max_matches === "number" ? a.total_max_matches : 100;
  const args = ["-r", "-n", "-H", "-E", "-I", "-i", ...EXCLUDE_DIRS.map((d) => `--exclude-dir=${d}`)];
  if (a.max_matches_per_file) args.push("--max-count", String(a.max_matches_per_file));
  if (include) args.push(`--include=${include}`);
  args.push(pattern, ".");
  const limit = a.exclude_pattern ? "" : ` | head -n ${max}`;
  const r = await s.box.exec(`cd ${shQuote(dir)} && grep ${args.map(shQuote).join(" ")} 2>/dev/null${limit}`, {
    shell: "sh",
    timeoutSec: 30,
    maxOutputBytes: 32 << 20,
  });
  const exclude = a.exclude_pattern ? new RegExp(str(a.exclude_pattern), "i") : null;
  const all: Match[] = [];
  for (const line of utf8(r.stdout).split("\n")) {
    if (!line.trim()) continue;
    const m = parseLine(line, dir);
    if (!m || (exclude && exclude.test(m.text))) continue;
    all.push(m);
    if (all.length >= max) break;
  }
  const where = a.dir_path ? `in path "${a.dir_path}"` : "in the workspace directory";
  const filter = include ? ` (filter: "${include}")` : "";
  if (all.length === 0) return ok(`No matches found for pattern "${pattern}" ${where}${filter}.`);
  const byFile = new Map<string, Match[]>();
  for (const m of all) byFile.set(m.file, [...(byFile.get(m.file) ?? []), m]);
  for (const list of byFile.values()) list.sort((x, y) => x.line - y.line);
  const count = all.length;
  if (count <= 3 && !a.names_only) await addContext(s, byFile, count);
  const limited = count >= max ? ` (results limited to ${max} matches for performance)` : ""; // (source)
  if (a.names_only) {
    const files = [...byFile.keys()].sort();
    return ok(
      `Found ${files.length} files with matches for pattern "${pattern}" ${where}${filter}${limited}:\n${
        files.join("\n")
      }`.trim(),
    );
  }
  let out = `Found ${count} ${count === 1 ? "match" : "matches"} for pattern "${pattern}" ${where}${filter}${limited}` +
    ":\n---\n";
  for (const file of keyOrder([...byFile.keys()])) {
    out += `File: ${file}\n`;
    for (const m of byFile.get(file)!) {
      let text = m.text.trimEnd();
      const cps = Array.from(text);
      if (cps.length > MAX_LINE) text = cps.slice(0, MAX_LINE).join("") + "... [truncated]";
      out += `L${m.line}${m.context ? "-" : ":"} ${text}\n`;
    }
    out += "---\n";
  }
  return ok(out.trim());
}

/** The grep_search tool. */
export const grepTool = geminiTool({ name: "grep_search", params: GREP_PARAMS, check, exec });
