/**
 * codex 0.171.0's unified exec tools (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:
 * codex-rs/core/src/tools/handlers/unified_exec/{exec_command,write_stdin}.rs, codex-rs/core/src/unified_exec/):
 * `exec_command` runs `[shell, -lc|-c, cmd]` and waits up to `yield_time_ms` (default 10000, clamped to 250–30000)
 * for it to end; a command still running keeps a session, named by a random id from 1000–99999, that
 * `write_stdin` polls (empty `chars`: 5000–300000 ms, default 5000) or writes to (default 250 ms, at most 30000;
 * only a `tty` session has an open stdin, though Ctrl-C interrupts any). Output is stdout and stderr together,
 * kept to 1 MiB (head and tail), then worded and cut by `output.ts`. Before running, a command that is an
 * `apply_patch` heredoc is intercepted and applied by `apply_patch.ts`, as codex does.
 */
import type { ParsedCall, Session } from "../../lib/harness/types.ts";
import { type SerdeField, serdeFromStr } from "../../lib/harness/lang/serde_struct.ts";
import { OpError } from "../../lib/harness/tools/ops.ts";
import {
  hasProcess,
  killProcess,
  readProcess,
  signalProcess,
  startProcess,
} from "../../lib/harness/tools/processes.ts";
import { interceptApplyPatch } from "./apply_patch.ts";
import { type ExecResponse, omissionMarker, responseText } from "./output.ts";
import { episodeState } from "../../lib/harness/session_state.ts";

const MIN_YIELD_MS = 250;
const MAX_YIELD_MS = 30_000;
const DEFAULT_EXEC_YIELD_MS = 10_000;
const DEFAULT_WRITE_YIELD_MS = 250;
const MIN_EMPTY_YIELD_MS = 5_000;
const MAX_EMPTY_YIELD_MS = 300_000;
/** codex's head-and-tail output buffer (`UNIFIED_EXEC_OUTPUT_MAX_BYTES`). */
const OUTPUT_MAX_BYTES = 1 << 20;
/** Live sessions codex keeps before pruning the least recently used (`MAX_UNIFIED_EXEC_PROCESSES`). */
const MAX_SESSIONS = 64;
const INTERRUPT = "\u0003";

/** What codex forces into every command's environment (`UNIFIED_EXEC_ENV`, codex-rs/core/src/unified_exec). */
const UNIFIED_EXEC_ENV: Record<string, string> = {
  NO_COLOR: "1",
  TERM: "dumb",
  LANG: "C.UTF-8",
  LC_CTYPE: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  COLORTERM: "",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GH_PAGER: "cat",
  CODEX_CI: "1",
};

/** The thread's id, which codex also exports to its commands (one per episode). */
function threadEnv(s: Session): Record<string, string> {
  const id = episodeState(s, "codex.thread", () => crypto.randomUUID());
  return { ...UNIFIED_EXEC_ENV, CODEX_THREAD_ID: id, CODEX_SESSION_ID: id };
}

interface CodexSession {
  handle: number;
  tty: boolean;
  used: number;
}

const sessions = (s: Session) => episodeState(s, "codex.sessions", () => new Map<number, CodexSession>());

/** A fresh session id, as codex draws them (random, 1000–99999, unused). */
function newId(s: Session): number {
  const taken = sessions(s);
  for (;;) {
    const id = 1000 + Math.floor(Math.random() * 99_000);
    if (!taken.has(id)) return id;
  }
}

const chunkId = () => [...crypto.getRandomValues(new Uint8Array(6))].map((b) => (b & 15).toString(16)).join("");

const num = (v: unknown) => typeof v === "number" && Number.isFinite(v) ? Math.max(0, Math.floor(v)) : undefined;

/** What a read gave, in codex's words. */
async function collect(
  s: Session,
  handle: number,
  waitMs: number,
  started: number,
  maxOutputTokens: number | undefined,
  input?: string,
) {
  const r = await readProcess(s.box, handle, waitMs, { input, maxBytes: OUTPUT_MAX_BYTES });
  const wallSeconds = (performance.now() - started) / 1000;
  let output = new TextDecoder().decode(r.output);
  if (r.omittedBytes) {
    const head = new TextDecoder().decode(r.output.subarray(0, OUTPUT_MAX_BYTES / 2));
    const tail = new TextDecoder().decode(r.output.subarray(OUTPUT_MAX_BYTES / 2));
    output = `${head}\n${omissionMarker(r.omittedBytes)}\n${tail}`;
  }
  const totalBytes = r.output.length + r.omittedBytes;
  return {
    exitCode: r.exitCode,
    response: (sessionId: number | null): ExecResponse => ({
      chunkId: chunkId(),
      wallSeconds,
      exitCode: r.exitCode,
      sessionId: r.exitCode === null ? sessionId : null,
      originalTokenCount: Math.floor((totalBytes + 3) / 4),
      output,
      omittedBytes: r.omittedBytes,
      maxOutputTokens,
    }),
  };
}

/** Forgets the least recently used sessions past codex's limit (their processes are killed). */
async function prune(s: Session): Promise<void> {
  const m = sessions(s);
  while (m.size >= MAX_SESSIONS) {
    const [id, old] = [...m.entries()].sort((a, b) => a[1].used - b[1].used)[0];
    m.delete(id);
    await killProcess(s.box, old.handle);
  }
}

/** `ExecCommandArgs` as serde reads it (codex-rs/core/src/tools/handlers/unified_exec.rs). */
const EXEC_ARGS: SerdeField[] = [
  { name: "cmd", type: "String" },
  { name: "shell", type: "String", optional: true, nullable: true },
  { name: "login", type: "bool", optional: true, nullable: true },
  { name: "tty", type: "bool", optional: true },
  { name: "yield_time_ms", type: "u64", optional: true },
  { name: "max_output_tokens", type: "usize", optional: true, nullable: true },
  { name: "justification", type: "String", optional: true, nullable: true },
  { name: "prefix_rule", type: "Vec<String>", optional: true, nullable: true },
  { name: "workdir", type: "String", optional: true, nullable: true },
];

/** `WriteStdinArgs`. */
const STDIN_ARGS: SerdeField[] = [
  { name: "session_id", type: "i32" },
  { name: "chars", type: "String", optional: true },
  { name: "yield_time_ms", type: "u64", optional: true },
  { name: "max_output_tokens", type: "usize", optional: true, nullable: true },
];

/** codex's answer to arguments its struct does not take, or undefined when they deserialise. */
function argsError(call: ParsedCall, fields: SerdeField[], struct: string): string | undefined {
  const r = serdeFromStr(call.raw, fields, struct);
  return "error" in r ? `failed to parse function arguments: ${r.error}` : undefined;
}

/** `exec_command`. */
export async function execCommand(s: Session, a: Record<string, unknown>, call: ParsedCall): Promise<string> {
  const bad = argsError(call, EXEC_ARGS, "ExecCommandArgs");
  if (bad) return bad;
  const cmd = a.cmd as string;
  const shell = typeof a.shell === "string" && a.shell ? a.shell : "/bin/bash";
  const login = a.login !== false;
  const flag = login ? "-lc" : "-c";
  const cwd = typeof a.workdir === "string" && a.workdir ? s.abspath(a.workdir) : s.workdir;
  const patched = await interceptApplyPatch(s, [shell, flag, cmd], cwd);
  if (patched !== null) return patched;
  const tty = a.tty === true;
  const waitMs = Math.min(MAX_YIELD_MS, Math.max(MIN_YIELD_MS, num(a.yield_time_ms) ?? DEFAULT_EXEC_YIELD_MS));
  await prune(s);
  const started = performance.now();
  let handle: number;
  try {
    handle = await startProcess(s.box, cmd, {
      shell: [shell, flag],
      cwd,
      stdin: tty ? "tty" : "none",
      env: threadEnv(s),
    });
  } catch (e) {
    // The process could not start: a missing workdir is what a model causes (recorded); the rest is infrastructure.
    if (e instanceof OpError && e.kind === "not_found") {
      return 'exec_command failed: CreateProcess { message: "Rejected(\\"Failed to create unified exec process: No such file or directory (os error 2)\\")" }';
    }
    throw e;
  }
  const got = await collect(s, handle, waitMs, started, num(a.max_output_tokens));
  let id: number | null = null;
  if (got.exitCode === null) {
    id = newId(s);
    sessions(s).set(id, { handle, tty, used: performance.now() });
  }
  return responseText(got.response(id));
}

/** `write_stdin`. */
export async function writeStdin(s: Session, a: Record<string, unknown>, call: ParsedCall): Promise<string> {
  const bad = argsError(call, STDIN_ARGS, "WriteStdinArgs");
  if (bad) return bad;
  const id = num(a.session_id) ?? -1;
  const chars = typeof a.chars === "string" ? a.chars : "";
  const sess = sessions(s).get(id);
  if (!sess || !hasProcess(s.box, sess.handle)) {
    sessions(s).delete(id);
    return `write_stdin failed: Unknown process id ${id}`;
  }
  sess.used = performance.now();
  let input: string | undefined;
  if (chars) {
    if (sess.tty) input = chars;
    else if (chars === INTERRUPT) await signalProcess(s.box, sess.handle, "INT");
    else {
      return "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open";
    }
  }
  const asked = Math.max(MIN_YIELD_MS, num(a.yield_time_ms) ?? (chars ? DEFAULT_WRITE_YIELD_MS : MIN_EMPTY_YIELD_MS));
  const waitMs = chars
    ? Math.min(asked, MAX_YIELD_MS)
    : Math.min(MAX_EMPTY_YIELD_MS, Math.max(MIN_EMPTY_YIELD_MS, asked));
  const started = performance.now();
  // A write gets a short grace before the poll, as codex sleeps 100 ms for the process to react.
  const got = await collect(s, sess.handle, waitMs + (input ? 100 : 0), started, num(a.max_output_tokens), input);
  if (got.exitCode !== null) sessions(s).delete(id);
  return responseText(got.response(id));
}
