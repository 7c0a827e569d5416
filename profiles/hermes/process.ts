/**
 * hermes' background processes (tools/process_registry.py, read at the 0xble/hermes-agent-upstream mirror's
 * 70e637b4, the last revision seen that still names the tool `process`): `terminal(background=true)` starts a command
 * as hermes' local backend does (`spawn_local`: `bash -lic "set +m; <command>"` in the session's working directory,
 * stdin /dev/null, or a PTY with `pty=true`), under an id `proc_` + 12 hex digits; the `process` tool polls, reads,
 * waits on, writes to and kills it. hermes keeps each process's output in a rolling 200 000-character buffer its
 * reader thread fills; here every action first pulls what the process wrote since the last one (one round trip on
 * the episode's channel, `lib/harness/tools/processes.ts`), so the buffer is as hermes' would be at that moment.
 * Exported variables of the foreground shell do not reach a background process (hermes starts it from its own
 * environment), its directory does.
 */
import { shQuote, text } from "../../lib/runtime/channel.ts";
import { OpError, persistentStateDir } from "../../lib/harness/tools/ops.ts";
import {
  killProcess,
  processPid,
  readProcess,
  signalProcess,
  startProcess,
} from "../../lib/harness/tools/processes.ts";
import { episodeState } from "../../lib/harness/session_state.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { pyLen, pySlice } from "../../lib/harness/lang/python_text.ts";
import { pyNumber, pyStrValue } from "../../lib/harness/lang/python_values.ts";
import type { Session } from "../../lib/harness/types.ts";
import { splitlines, stripAnsi } from "./background.ts";
import { pyDumps, toolError } from "./json.ts";

/** `MAX_OUTPUT_CHARS`: the rolling output buffer. */
const MAX_OUTPUT_CHARS = 200_000;
/** `FINISHED_TTL_SECONDS` and `MAX_PROCESSES`: finished processes are kept 30 minutes, 64 tracked at most. */
const FINISHED_TTL_SECONDS = 1800;
const MAX_PROCESSES = 64;
/** `wait`'s default and cap: TERMINAL_TIMEOUT (the terminal's 180 s default timeout). */
const WAIT_TIMEOUT = 180;
/** `terminal.daemon_term_grace_seconds`: SIGTERM, then SIGKILL for what is left after this long. */
const TERM_GRACE_MS = 2000;
/** `_MIN_PREFIX_CHARS`: the hex digits a session-id prefix needs. */
const MIN_PREFIX_CHARS = 4;
/** `_SHELL_NOISE_SUBSTRINGS`: bash's complaints about job control, dropped from the start of the output. */
const SHELL_NOISE = [
  "bash: cannot set terminal process group",
  "bash: no job control in this shell",
  "no job control in this shell",
  "cannot set terminal process group",
  "tcsetattr: Inappropriate ioctl for device",
];
const NO_STDIN = "Process stdin not available (non-local backend or stdin closed)";
const ACTIONS = ["poll", "log", "wait", "kill", "write", "submit", "close"];

/** A `ProcessSession`. */
interface Proc {
  id: string;
  command: string;
  cwd: string;
  pid: number | null;
  /** Date.now() when it was spawned. */
  startedAt: number;
  handle: number;
  tty: boolean;
  exited: boolean;
  exitCode: number | null;
  completionReason: string;
  terminationSource: string;
  buffer: string;
  decoder: TextDecoder;
  /** No output seen yet (the shell-noise filter applies to the first chunk). */
  fresh: boolean;
}

/** `_running` and `_finished`, in insertion order as hermes' dicts keep them. */
interface Registry {
  running: Map<string, Proc>;
  finished: Map<string, Proc>;
}

const registry = (s: Session) =>
  episodeState<Registry>(s, "hermes.processes", () => ({ running: new Map(), finished: new Map() }));

/** `proc_` + the first 12 hex digits of a uuid4 (all random). */
const newId = () => `proc_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;

/** The last `n` characters, as Python's `s[-n:]` counts them. */
const tail = (s: string, n: number) => pyLen(s) > n ? pySlice(s, -n) : s;

const uptime = (p: Proc) => Math.floor((Date.now() - p.startedAt) / 1000);
const status = (p: Proc) => p.exited ? "exited" : "running";
const notFound = (id: string) => ({ status: "not_found", error: `No process with ID ${id}` });

/** `_clean_shell_noise`: leading lines holding one of bash's job-control complaints removed. */
function cleanShellNoise(t: string): string {
  const lines = t.split("\n");
  while (lines.length && SHELL_NOISE.some((n) => lines[0].includes(n))) lines.shift();
  return lines.join("\n");
}

function append(p: Proc, chunk: string): void {
  if (!chunk) return;
  if (p.fresh) {
    chunk = cleanShellNoise(chunk);
    if (!chunk) return;
    p.fresh = false;
  }
  p.buffer = tail(p.buffer + chunk, MAX_OUTPUT_CHARS);
}

/** `_move_to_finished`, with the exit code the reader saw (a kill keeps its own -15). */
function finish(reg: Registry, p: Proc, code: number): void {
  p.exited = true;
  if (p.completionReason !== "killed") {
    p.exitCode = code;
    p.completionReason = "exited";
  }
  reg.running.delete(p.id);
  reg.finished.delete(p.id);
  reg.finished.set(p.id, p);
}

/** Pulls what the process wrote since the last look (after sending `input`), waiting up to `waitMs` for its end. */
async function refresh(s: Session, p: Proc, waitMs = 0, input?: string): Promise<void> {
  if (p.exited) return;
  const r = await readProcess(s.box, p.handle, waitMs, { input, maxBytes: 2 << 20 });
  append(p, p.decoder.decode(r.output, { stream: r.exitCode === null }));
  if (r.exitCode !== null) finish(registry(s), p, r.exitCode);
}

/** `get`: a session by its id, or by a unique prefix of at least four hex digits (with or without `proc_`). */
function get(reg: Registry, id: string): Proc | undefined {
  const exact = reg.running.get(id) ?? reg.finished.get(id);
  if (exact) return exact;
  let q = id.trim();
  if (!q) return undefined;
  if (!q.startsWith("proc_")) q = `proc_${q}`;
  if (q.length - 5 < MIN_PREFIX_CHARS) return undefined;
  const hits = [...reg.running.values(), ...reg.finished.values()].filter((p) => p.id.startsWith(q));
  return hits.length === 1 ? hits[0] : undefined;
}

/** `_prune_if_needed`: finished sessions past their TTL, then the oldest finished one while at the limit. */
function prune(reg: Registry): void {
  const now = Date.now();
  for (const [id, p] of reg.finished) if (now - p.startedAt > FINISHED_TTL_SECONDS * 1000) reg.finished.delete(id);
  if (reg.running.size + reg.finished.size >= MAX_PROCESSES && reg.finished.size) {
    const oldest = [...reg.finished.values()].sort((a, b) => a.startedAt - b.startedAt)[0];
    reg.finished.delete(oldest.id);
  }
}

/** The foreground shell's directory (`get_session_cwd`), or the working directory when it has none or it is gone. */
async function sessionCwd(s: Session): Promise<string> {
  const st = persistentStateDir(s.box);
  const r = await s.box.exec(
    `d=$(cat ${shQuote(st + "/cwd")} 2>/dev/null); if [ -n "$d" ] && [ -d "$d" ]; then printf %s "$d"; ` +
      `else printf %s ${shQuote(s.workdir)}; fi`,
    { shell: "sh", timeoutSec: 30 },
  );
  return text(r.stdout) || s.workdir;
}

/**
 * `spawn_local` and the start of terminal's background branch: the result fields up to `error` (the caller adds
 * the notes and hints), or the failure terminal reports.
 */
export async function startBackground(s: Session, command: string, pty: boolean): Promise<Record<string, unknown>> {
  const reg = registry(s);
  const startedAt = Date.now();
  const cwd = await sessionCwd(s);
  // PTY mode: ptyprocess with a 30x120 window and pagers set to cat; both modes force Python's output unbuffered.
  const env: Record<string, string> = pty
    ? { PYTHONUNBUFFERED: "1", GIT_PAGER: "cat", PAGER: "cat" }
    : { PYTHONUNBUFFERED: "1" };
  let handle: number;
  try {
    handle = await startProcess(s.box, `${pty ? "stty rows 30 cols 120 2>/dev/null; " : ""}set +m; ${command}`, {
      shell: ["bash", "-lic"],
      cwd,
      env,
      stdin: pty ? "tty" : "none",
    });
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return { output: "", exit_code: -1, error: approx(`Failed to start background process: ${e.message}`) };
  }
  prune(reg);
  const p: Proc = {
    id: newId(),
    command,
    cwd,
    pid: await processPid(s.box, handle),
    startedAt,
    handle,
    tty: pty,
    exited: false,
    exitCode: null,
    completionReason: "exited",
    terminationSource: "",
    buffer: "",
    decoder: new TextDecoder(),
    fresh: true,
  };
  reg.running.set(p.id, p);
  return { output: "Background process started", session_id: p.id, pid: p.pid, exit_code: 0, error: null };
}

/** What `poll`, `wait` and `kill` add once the process has ended. */
const ending = (p: Proc) => ({
  exit_code: p.exitCode,
  completion_reason: p.completionReason,
  termination_source: p.terminationSource,
});

async function poll(s: Session, p: Proc) {
  await refresh(s, p);
  return {
    session_id: p.id,
    command: p.command,
    status: status(p),
    pid: p.pid,
    uptime_seconds: uptime(p),
    output_preview: stripAnsi(tail(p.buffer, 1000)),
    ...(p.exited ? ending(p) : {}),
  };
}

/** `read_log`: the last `limit` lines by default, else `limit` lines from `offset` (Python slicing). */
async function readLog(s: Session, p: Proc, offset: unknown, limit: unknown) {
  await refresh(s, p);
  const lines = splitlines(stripAnsi(p.buffer));
  const lim = typeof limit === "number" ? Math.trunc(limit) : 200;
  const off = typeof offset === "number" ? Math.trunc(offset) : null;
  const selected = off === null && lim > 0 ? lines.slice(-lim) : lines.slice(off ?? 0, (off ?? 0) + lim);
  return {
    session_id: p.id,
    command: p.command,
    status: status(p),
    output: selected.join("\n"),
    total_lines: lines.length,
    showing: `${selected.length} lines`,
  };
}

/** `wait`: up to `timeout` seconds (default and cap 180) for the process to end. */
async function wait(s: Session, reg: Registry, id: string, timeout: unknown) {
  const asked = typeof timeout === "number" && Number.isFinite(timeout) ? timeout : null;
  if (asked !== null && asked <= 0) {
    return { status: "error", error: `timeout must be positive (got ${pyNumber(asked)})` };
  }
  let note: string | undefined;
  let seconds = asked || WAIT_TIMEOUT;
  if (asked !== null && asked > WAIT_TIMEOUT) {
    seconds = WAIT_TIMEOUT;
    note = `Requested wait of ${pyNumber(asked)}s was clamped to configured limit of ${WAIT_TIMEOUT}s`;
  }
  const p = get(reg, id);
  if (!p) return notFound(id);
  await refresh(s, p, seconds * 1000);
  if (p.exited) {
    const r: Record<string, unknown> = {
      status: "exited",
      command: p.command,
      ...ending(p),
      output: stripAnsi(tail(p.buffer, 2000)),
    };
    if (note) r.timeout_note = note;
    return r;
  }
  const base = `Wait window of ${pyNumber(seconds)}s elapsed — the process is still running. This is not an error. ` +
    `Uptime: ${uptime(p)}s. Poll again later or use terminal(background=true, notify_on_complete=true) next time ` +
    "for automatic notification.";
  return {
    status: "timeout",
    command: p.command,
    output: stripAnsi(tail(p.buffer, 1000)),
    process_running: true,
    timeout_note: note ? `${note}. ${base}` : base,
  };
}

/** `kill_process`: SIGTERM to the process's session, SIGKILL after the grace for what is left; exit code -15. */
async function kill(s: Session, reg: Registry, p: Proc) {
  await refresh(s, p);
  if (p.exited) {
    return { status: "already_exited", command: p.command, ...ending(p), output: stripAnsi(tail(p.buffer, 2000)) };
  }
  p.completionReason = "killed";
  p.terminationSource = "process.kill";
  await signalProcess(s.box, p.handle, "TERM");
  await refresh(s, p, TERM_GRACE_MS);
  if (!p.exited) {
    await killProcess(s.box, p.handle);
    finish(reg, p, -15);
  }
  p.exitCode = -15;
  return {
    status: "killed",
    session_id: p.id,
    completion_reason: p.completionReason,
    termination_source: p.terminationSource,
    output: stripAnsi(tail(p.buffer, 2000)),
  };
}

/** `write_stdin` (raw, no newline): only a PTY session has a stdin; `submit` appends "\n", `close` sends EOF. */
async function writeStdin(s: Session, p: Proc, data: string, eof = false) {
  await refresh(s, p);
  if (p.exited) return { status: "already_exited", error: "Process has already finished" };
  if (!p.tty) return { status: "error", error: NO_STDIN };
  // ptyprocess's sendeof() writes the terminal's EOF character (^D).
  await refresh(s, p, 0, eof ? "\x04" : data);
  return eof ? { status: "ok", message: "EOF sent" } : { status: "ok", bytes_written: pyLen(data) };
}

/** `list_sessions`: running then finished processes, each looked at first. */
async function list(s: Session, reg: Registry) {
  for (const p of [...reg.running.values()]) await refresh(s, p);
  const processes = [...reg.running.values(), ...reg.finished.values()].map((p) => ({
    session_id: p.id,
    command: pySlice(p.command, 0, 200),
    cwd: p.cwd,
    pid: p.pid,
    started_at: new Date(p.startedAt).toISOString().slice(0, 19),
    uptime_seconds: uptime(p),
    status: status(p),
    output_preview: tail(p.buffer, 200),
    ...(p.exited ? { exit_code: p.exitCode } : {}),
  }));
  return { processes };
}

/** The `process` tool (`_handle_process`). */
export async function processTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const reg = registry(s);
  const action = "action" in args ? pyStrValue(args.action) : "";
  const id = args.session_id === undefined || args.session_id === null ? "" : pyStrValue(args.session_id);
  const data = "data" in args ? pyStrValue(args.data) : "";
  if (action === "list") return pyDumps(await list(s, reg));
  if (!ACTIONS.includes(action)) {
    return toolError(`Unknown process action: ${action}. Use: list, poll, log, wait, kill, write, submit, close`);
  }
  if (!id) return toolError(`session_id is required for ${action}`);
  if (action === "wait") return pyDumps(await wait(s, reg, id, args.timeout));
  const p = get(reg, id);
  if (!p) return pyDumps(notFound(id));
  switch (action) {
    case "poll":
      return pyDumps(await poll(s, p));
    case "log":
      return pyDumps(await readLog(s, p, args.offset, "limit" in args ? args.limit : 200));
    case "kill":
      return pyDumps(await kill(s, reg, p));
    case "write":
      return pyDumps(await writeStdin(s, p, data));
    case "submit":
      return pyDumps(await writeStdin(s, p, data + "\n"));
    default:
      return pyDumps(await writeStdin(s, p, "", true));
  }
}
