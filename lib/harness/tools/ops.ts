/**
 * The closed set of ops a profile's tools run on the episode container, all over the exec channel. Ops raise
 * OpError(kind, data) on the policy's mistakes and each profile words them itself.
 */
import { EditHistory } from "./edit_history.ts";
import { posix } from "node:path";
import { type ExecResult, shQuote, text } from "../../runtime/channel.ts";
import type { ExecEnv } from "../../runtime/exec_env.ts";
import { GLOB_PY } from "./glob_py.ts";

/** The kinds of policy mistakes an op reports. */
export type OpErrorKind =
  | "not_found"
  | "is_dir"
  | "not_dir"
  | "denied"
  | "binary"
  | "no_match"
  | "multiple"
  | "identical"
  | "empty_old"
  | "overlap"
  | "bad_line"
  | "no_history"
  | "bad_pattern"
  | "unsupported"
  | "bad_patch"
  | "failed";

/** A policy mistake found by an op (missing file, ambiguous edit, ...); never an infrastructure failure. */
export class OpError extends Error {
  /** Always "OpError". */
  override name = "OpError";
  /** A mistake of `kind`, with its details (path, count, ...) in `data`. */
  constructor(readonly kind: OpErrorKind, readonly data: Record<string, unknown> = {}) {
    super(`${kind}${Object.keys(data).length ? ` ${JSON.stringify(data)}` : ""}`);
  }
}

/** What a command gave, for profiles to word. */
export interface ExecOut {
  /** The command's exit code. */
  exitCode: number;
  /** Standard output, decoded as UTF-8. */
  stdout: string;
  /** Standard error, decoded as UTF-8. */
  stderr: string;
  /** stdout then stderr, or the interleaved stream when `merge` was asked for. */
  output: string;
  /** True when the command was killed at its timeout. */
  timedOut: boolean;
  /** True when the runtime's cap cut the output. */
  capped: boolean;
}

/** Options of `exec_`. */
export interface ExecOpOptions {
  /** Seconds (default: the caller's profile timeout). */
  timeout: number;
  /** `sh` for `/bin/sh -c`, `bash` for `bash -lc` (default bash). */
  shell?: "sh" | "bash";
  /** Keep `cd` and exported variables across calls (a per-episode state file; default false). */
  persistent?: boolean;
  /** Interleave stderr into stdout (default false). */
  merge?: boolean;
  /** Directory to run in (default: the working directory, or the persistent shell's). */
  cwd?: string;
  /** Runtime output cap in bytes per stream (default 1 MiB). */
  maxBytes?: number;
}

/**
 * `command` wrapped to run in the episode's persistent shell state: the last persistent command's directory and
 * exported variables are restored first and saved again when it exits. State lives in files so that every call is
 * still a fresh process with its own timeout and process group (and a long-running one can be a `startProcess`).
 */
export function persistentScript(box: ExecEnv, command: string, cwd?: string): string {
  const st = persistentStateDir(box);
  return [
    `mkdir -p ${st} 2>/dev/null; cd "$(cat ${st}/cwd 2>/dev/null || echo ${shQuote(cwd ?? box.workdir)})" 2>/dev/null`,
    `[ -f ${st}/env ] && . ${st}/env >/dev/null 2>&1`,
    `trap '__pgs_rc=$?; pwd > ${st}/cwd; export -p > ${st}/env; exit $__pgs_rc' EXIT`,
    command,
  ].join("\n");
}

/** The folder holding the persistent shell's state: `cwd` (its directory) and `env` (its exports). */
export function persistentStateDir(box: ExecEnv): string {
  return `${box.scratch}/.pgs-shell.${box.id.slice(0, 12)}`;
}

/** Runs a command, stateless or persistent. */
export async function exec_(box: ExecEnv, command: string, opts: ExecOpOptions): Promise<ExecOut> {
  const script = opts.persistent ? persistentScript(box, command, opts.cwd) : command;
  const r: ExecResult = await box.exec(script, {
    shell: opts.shell ?? "bash",
    timeoutSec: opts.timeout,
    mergeStderr: opts.merge,
    maxOutputBytes: opts.maxBytes,
    cwd: opts.persistent ? undefined : opts.cwd ?? box.workdir,
  });
  const stdout = text(r.stdout), stderr = text(r.stderr);
  return {
    exitCode: r.exitCode,
    stdout,
    stderr,
    output: stdout + stderr,
    timedOut: r.timedOut,
    capped: r.stdoutBytes > r.stdout.length || r.stderrBytes > r.stderr.length,
  };
}

/** The absolute path of `p` against the working directory. */
export function abspath(box: ExecEnv, p: string): string {
  return posix.resolve(box.workdir, p);
}

const FILE_CHECK = (p: string) =>
  `p=${
    shQuote(p)
  }; if [ -d "$p" ]; then exit 21; elif [ ! -e "$p" ]; then exit 2; elif [ ! -r "$p" ]; then exit 13; fi`;

function fileError(r: ExecResult, path: string): OpError | undefined {
  if (r.exitCode === 2) return new OpError("not_found", { path });
  if (r.exitCode === 21) return new OpError("is_dir", { path });
  if (r.exitCode === 13) return new OpError("denied", { path });
  if (r.exitCode !== 0) return new OpError("failed", { path, message: text(r.stderr).trim() });
}

/** A whole file's bytes (up to `maxBytes`, default 64 MiB), with its full size. */
export async function readBytes(
  box: ExecEnv,
  path: string,
  maxBytes = 64 << 20,
): Promise<{ data: Uint8Array; size: number }> {
  const r = await box.exec(`${FILE_CHECK(path)}\ncat -- "$p"`, {
    shell: "sh",
    timeoutSec: 60,
    maxOutputBytes: maxBytes,
  });
  const err = fileError(r, path);
  if (err) throw err;
  return { data: r.stdout, size: r.stdoutBytes };
}

/** A whole text file (the profile slices, numbers and truncates it); binary content raises `binary`. */
export async function read(box: ExecEnv, path: string): Promise<string> {
  const { data } = await readBytes(box, path);
  if (data.includes(0)) throw new OpError("binary", { path });
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
}

/** One entry of a directory listing. */
export interface DirEntry {
  /** Path relative to the listed directory. */
  path: string;
  /** What the entry is (`other`: neither file, directory nor symlink). */
  type: "file" | "dir" | "symlink" | "other";
}

/** Entries under a directory to `depth` levels, sorted by path. */
export async function listDir(box: ExecEnv, path: string, depth = 1): Promise<DirEntry[]> {
  const script = `p=${shQuote(path)}; [ -e "$p" ] || exit 2; [ -d "$p" ] || exit 20\n` +
    `cd "$p" && find . -mindepth 1 -maxdepth ${Math.max(1, depth)} -printf '%y %P\\0'`;
  const r = await box.exec(script, { shell: "sh", timeoutSec: 60 });
  if (r.exitCode === 2) throw new OpError("not_found", { path });
  if (r.exitCode === 20) throw new OpError("not_dir", { path });
  const types: Record<string, DirEntry["type"]> = { f: "file", d: "dir", l: "symlink" };
  return text(r.stdout).split("\0").filter(Boolean).map((l) => ({ path: l.slice(2), type: types[l[0]] ?? "other" }))
    .sort((a, b) => a.path < b.path ? -1 : 1);
}

/**
 * Encodes bytes as a single-quoted `printf %b` argument. Valid UTF-8 travels as text (the channel sends the script as
 * UTF-8); anything else is escaped byte by byte, so binary content round-trips too.
 */
function printfArg(data: Uint8Array): string {
  let s: string;
  try {
    s = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data).replaceAll("\\", "\\\\").replaceAll(
      "\0",
      "\\0000",
    );
  } catch {
    s = "";
    for (const b of data) {
      s += b === 0x5c
        ? "\\\\"
        : b >= 0x20 && b < 0x7f
        ? String.fromCharCode(b)
        : `\\0${b.toString(8).padStart(3, "0")}`;
    }
  }
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Creates or overwrites a file; parents are created; an existing file keeps its mode and owner. */
export async function write(box: ExecEnv, path: string, content: string | Uint8Array): Promise<void> {
  const data = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const script = `p=${shQuote(path)}; [ -d "$p" ] && exit 21; mkdir -p -- "$(dirname -- "$p")" 2>/dev/null\n` +
    `printf '%b' ${printfArg(data)} > "$p"`;
  const r = await box.exec(script, { shell: "sh", timeoutSec: 120 });
  if (r.exitCode === 21) throw new OpError("is_dir", { path });
  if (r.exitCode !== 0) throw new OpError("failed", { path, message: text(r.stderr).trim() });
}

const history = new WeakMap<ExecEnv, EditHistory>();

function remember(box: ExecEnv, path: string, before: string): void {
  let h = history.get(box);
  if (!h) history.set(box, h = new EditHistory());
  h.push(path, before);
}

function countOf(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** What an edit did: the text before and after, and how many places changed. */
export interface EditResult {
  /** The file's text before the edit. */
  before: string;
  /** The file's text after the edit. */
  after: string;
  /** How many places changed. */
  count: number;
}

/**
 * Replaces exact text: `old` must occur exactly once unless `all`. Checks, in order: not_found/is_dir, empty_old,
 * identical, no_match, multiple (with `count`).
 */
export async function replace(box: ExecEnv, path: string, old: string, neu: string, all = false): Promise<EditResult> {
  const before = await read(box, path);
  if (old === "") throw new OpError("empty_old", { path });
  if (old === neu) throw new OpError("identical", { path });
  const count = countOf(before, old);
  if (count === 0) throw new OpError("no_match", { path });
  if (count > 1 && !all) throw new OpError("multiple", { path, count });
  const after = all ? before.split(old).join(neu) : before.replace(old, () => neu);
  await write(box, path, after);
  remember(box, path, before);
  return { before, after, count: all ? count : 1 };
}

/** Applies several exact replacements, each matched against the original text; they must not overlap. */
export async function multiReplace(
  box: ExecEnv,
  path: string,
  edits: { old: string; new: string }[],
): Promise<EditResult> {
  const before = await read(box, path);
  const spans: { at: number; end: number; neu: string; index: number }[] = [];
  for (const [index, e] of edits.entries()) {
    if (e.old === "") throw new OpError("empty_old", { path, index });
    const count = countOf(before, e.old);
    if (count === 0) throw new OpError("no_match", { path, index });
    if (count > 1) throw new OpError("multiple", { path, index, count });
    const at = before.indexOf(e.old);
    spans.push({ at, end: at + e.old.length, neu: e.new, index });
  }
  spans.sort((a, b) => a.at - b.at);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i].at < spans[i - 1].end) throw new OpError("overlap", { path, index: spans[i].index });
  }
  let after = "", pos = 0;
  for (const sp of spans) {
    after += before.slice(pos, sp.at) + sp.neu;
    pos = sp.end;
  }
  after += before.slice(pos);
  if (after === before) throw new OpError("identical", { path });
  await write(box, path, after);
  remember(box, path, before);
  return { before, after, count: spans.length };
}

/** Inserts text after line `line` (0 = at the top); lines are `\n`-separated. */
export async function insert(box: ExecEnv, path: string, line: number, textToInsert: string): Promise<EditResult> {
  const before = await read(box, path);
  const lines = before.split("\n");
  const n = before.endsWith("\n") ? lines.length - 1 : lines.length;
  if (!Number.isInteger(line) || line < 0 || line > n) throw new OpError("bad_line", { path, line, lines: n });
  const head = lines.slice(0, line).join("\n");
  const tail = lines.slice(line).join("\n");
  const ins = textToInsert.endsWith("\n") ? textToInsert : textToInsert + "\n";
  const after = line === 0 ? ins + before : `${head}\n${ins}${tail}`;
  await write(box, path, after);
  remember(box, path, before);
  return { before, after, count: 1 };
}

/** Restores the text a file had before its last edit; each call goes one edit further back. */
export async function undoEdit(box: ExecEnv, path: string): Promise<string> {
  const prev = history.get(box)?.pop(path);
  if (prev === undefined) throw new OpError("no_history", { path });
  await write(box, path, prev);
  return prev;
}

/** Paths matching a glob pattern under `path` (recursive `**`), newest first; needs python3 in the image. */
export async function glob(box: ExecEnv, pattern: string, path = "."): Promise<string[]> {
  const py = GLOB_PY;
  const r = await box.exec(
    `command -v python3 >/dev/null || exit 127\npython3 -c ${shQuote(py)} ${shQuote(path)} ${shQuote(pattern)}`,
    {
      shell: "sh",
      timeoutSec: 60,
    },
  );
  if (r.exitCode === 127) throw new OpError("unsupported", { op: "glob", needs: "python3" });
  if (r.exitCode !== 0) throw new OpError("failed", { message: text(r.stderr).trim() });
  return text(r.stdout).split("\0").filter(Boolean);
}

/** One grep hit. */
export interface GrepHit {
  /** The matching file, as grep printed it (under the searched path). */
  path: string;
  /** 1-based line number of the match. */
  line: number;
  /** The matching line, without its newline. */
  text: string;
}

/** Lines matching an extended regex under `path` (binary files skipped), in path order. */
export async function grep(box: ExecEnv, pattern: string, path = ".", include?: string): Promise<GrepHit[]> {
  const inc = include ? ` --include=${shQuote(include)}` : "";
  const r = await box.exec(
    `grep -rnHE --binary-files=without-match -Z${inc} -e ${shQuote(pattern)} -- ${shQuote(path)}`,
    {
      shell: "sh",
      timeoutSec: 60,
    },
  );
  if (r.exitCode === 1) return [];
  if (r.exitCode !== 0 && r.stdout.length === 0) {
    const msg = text(r.stderr).trim();
    if (/No such file/.test(msg)) throw new OpError("not_found", { path });
    throw new OpError("bad_pattern", { pattern, message: msg });
  }
  const hits: GrepHit[] = [];
  for (const l of text(r.stdout).split("\n")) {
    const z = l.indexOf("\0");
    if (z < 0) continue;
    const m = l.slice(z + 1).match(/^(\d+):(.*)$/s);
    if (m) hits.push({ path: l.slice(0, z), line: Number(m[1]), text: m[2] });
  }
  return hits;
}
