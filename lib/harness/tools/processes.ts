/**
 * The `processes` ops: commands that outlive one tool call. A harness whose command may keep running past the call
 * (codex's unified exec, a terminal tool's soft timeout) starts it here, then polls it, sends it input or stops it in
 * later calls. Each process runs in its own session in the container, with its output in a file, its stdin closed
 * or a FIFO held open by its launcher (so input can come at any time and the process never sees end of input),
 * optionally on a pseudo-terminal, and its exit code written when it ends. Every call is a short command on the episode's channel; waiting for output happens in
 * the container, so a poll costs one round trip.
 */
import { shQuote, text } from "../../runtime/channel.ts";
import type { ExecEnv } from "../../runtime/exec_env.ts";
import { OpError } from "./ops.ts";

/** How to start a process. */
export interface StartOptions {
  /** The argv's shell and flag, e.g. `["bash", "-lc"]` (default `["bash", "-c"]`; `/bin/sh` when bash is missing). */
  shell?: [string, string];
  /** Directory to start in (default the working directory); a missing one raises `not_found`. */
  cwd?: string;
  /** Extra environment (default none). */
  env?: Record<string, string>;
  /**
   * How stdin is wired (default `none`: /dev/null, as plain pipes with stdin closed): `pipe` is a FIFO the process
   * reads, `tty` runs it under util-linux `script` on a pseudo-terminal (echo, `\r\n` line ends, Ctrl-C as a
   * signal), fed by the same FIFO.
   */
  stdin?: "none" | "pipe" | "tty";
}

/** What a process gave since the last read. */
export interface ProcessRead {
  /** The output (stdout and stderr interleaved) since the previous read, up to the read's cap. */
  output: Uint8Array;
  /** Bytes of that output left out in the middle, when it was past the cap (0 otherwise). */
  omittedBytes: number;
  /** The exit code once the process has ended (the process is then forgotten), else null. */
  exitCode: number | null;
}

interface Proc {
  file: string;
  offset: number;
  stdin: "none" | "pipe" | "tty";
}

const state = new WeakMap<ExecEnv, { next: number; procs: Map<number, Proc> }>();

function procs(box: ExecEnv) {
  let s = state.get(box);
  if (!s) state.set(box, s = { next: 1, procs: new Map() });
  return s;
}

const dir = (box: ExecEnv) => `${box.scratch}/.pgs-proc.${box.id.slice(0, 12)}`;

/** Starts a command; returns its handle (a small integer, per environment). */
export async function startProcess(box: ExecEnv, command: string, opts: StartOptions = {}): Promise<number> {
  const s = procs(box);
  const n = s.next++;
  const file = `${dir(box)}/${n}`;
  const [sh, flag] = opts.shell ?? ["bash", "-c"];
  const env = Object.entries(opts.env ?? {}).map(([k, v]) => `export ${k}=${shQuote(v)}; `).join("");
  const stdin = opts.stdin ?? "none";
  const run = stdin === "tty"
    // script -c runs its command line with $SHELL -c: /bin/sh, which then starts the asked shell.
    ? `PGS_CMD=${shQuote(command)} PGS_SH="$sh" SHELL=/bin/sh $E setsid script -qefc ${
      shQuote('c=$PGS_CMD s=$PGS_SH; unset PGS_CMD PGS_SH; exec "$s" ' + flag + ' "$c"')
    } /dev/null <&3 3>&-`
    : `$E setsid "$sh" ${shQuote(flag)} ${shQuote(command)} ${stdin === "pipe" ? "<&3 3>&-" : "</dev/null 3>&-"}`;
  const script = [
    `f=${shQuote(file)}; c=${shQuote(opts.cwd ?? box.workdir)}; sh=${shQuote(sh)}`,
    `[ -d "$c" ] || exit 2`,
    `command -v "$sh" >/dev/null 2>&1 || sh=/bin/sh`,
    // A background job of a non-interactive shell starts with SIGINT and SIGQUIT ignored, and its children cannot
    // undo that; coreutils' env restores them, so Ctrl-C (signalProcess INT) works as it does on a harness's child.
    `E=; env --default-signal=INT true 2>/dev/null && E="env --default-signal=INT,QUIT"`,
    `mkdir -p -- "$(dirname -- "$f")" && rm -f -- "$f".* && mkfifo -- "$f.in" || exit 90`,
    `: > "$f.out"`,
    // The launcher holds the FIFO open read-write: writers never block, and the process never reads end of input.
    `( exec 3<>"$f.in"; cd -- "$c"; ${env}`,
    `  ${run} >"$f.out" 2>&1 & echo $! > "$f.pid"`,
    `  wait $!; echo $? > "$f.rc.t"; mv -f "$f.rc.t" "$f.rc" ) </dev/null >/dev/null 2>&1 &`,
    // The pid file exists once the process does.
    `i=0; while [ ! -s "$f.pid" ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i+1)); done`,
  ].join("\n");
  const r = await box.exec(script, { shell: "sh", timeoutSec: 30 });
  if (r.exitCode === 2) throw new OpError("not_found", { path: opts.cwd ?? box.workdir });
  if (r.exitCode !== 0) throw new OpError("failed", { message: text(r.stderr).trim() || `exit ${r.exitCode}` });
  s.procs.set(n, { file, offset: 0, stdin });
  return n;
}

/** True while the handle names a process that has not been read past its end. */
export function hasProcess(box: ExecEnv, handle: number): boolean {
  return procs(box).procs.has(handle);
}

/** Options of `readProcess`. */
export interface ReadOptions {
  /** Text written to the process's stdin before waiting (default none). */
  input?: string;
  /** Bytes of output returned at most, the middle left out past that (default 1 MiB). */
  maxBytes?: number;
  /** Also return once the output has not grown for this long (a terminal's no-change timeout; default: never). */
  idleMs?: number;
}

/**
 * Sends `input` (if any), then waits up to `waitMs` for the process to end (returning as soon as it does, or once
 * its output has been still for `idleMs`), and reads what it wrote since the last read. An unknown handle raises
 * `not_found`.
 */
export async function readProcess(
  box: ExecEnv,
  handle: number,
  waitMs: number,
  opts: ReadOptions = {},
): Promise<ProcessRead> {
  const p = procs(box).procs.get(handle);
  if (!p) throw new OpError("not_found", { session: handle });
  if (opts.input && p.stdin === "none") throw new OpError("unsupported", { session: handle, reason: "stdin closed" });
  const cap = opts.maxBytes ?? 1 << 20;
  const half = Math.floor(cap / 2);
  const ticks = Math.max(0, Math.ceil(waitMs / 50));
  const script = [
    `f=${shQuote(p.file)}; o=${p.offset}`,
    opts.input ? `printf '%s' ${shQuote(opts.input)} > "$f.in"` : "",
    opts.idleMs === undefined
      ? `i=0; while [ ! -e "$f.rc" ] && [ $i -lt ${ticks} ]; do sleep 0.05; i=$((i+1)); done`
      // "No new output": the output file's size has not changed for idleMs, timed by the clock (whole seconds,
      // since sh has no finer one everywhere), not by counting ticks, which drift on a loaded host.
      : `i=0; l=-1; t=$(date +%s); while [ ! -e "$f.rc" ] && [ $i -lt ${ticks} ]; do m=$(wc -c < "$f.out"); ` +
        `if [ "$m" != "$l" ]; then l=$m; t=$(date +%s); ` +
        // Whole seconds: `-gt` so that at least idleMs passes (at most a second more).
        `elif [ $(( $(date +%s) - t )) -gt ${Math.max(1, Math.round(opts.idleMs / 1000))} ]; then break; fi; ` +
        `sleep 0.05; i=$((i+1)); done`,
    // The exit code is read before the output, so output written before the end is never missed.
    `r=-; [ -e "$f.rc" ] && r=$(cat "$f.rc")`,
    `n=$(wc -c < "$f.out"); printf '%s %s\\n' "$r" "$n"`,
    `if [ $((n - o)) -le ${cap} ]; then tail -c +$((o + 1)) "$f.out" | head -c $((n - o))`,
    `else tail -c +$((o + 1)) "$f.out" | head -c ${half}; tail -c +$((n - ${cap - half} + 1)) "$f.out" | head -c ${
      cap - half
    }; fi`,
  ].filter(Boolean).join("\n");
  const r = await box.exec(script, {
    shell: "sh",
    timeoutSec: Math.ceil(waitMs / 1000) + 60,
    maxOutputBytes: cap + 64,
  });
  const nl = r.stdout.indexOf(10);
  const [rc, size] = text(r.stdout.subarray(0, nl)).split(" ");
  const total = Number(size) - p.offset;
  const output = r.stdout.slice(nl + 1);
  p.offset = Number(size);
  const exitCode = rc === "-" ? null : Number(rc);
  if (exitCode !== null) procs(box).procs.delete(handle);
  return { output, omittedBytes: Math.max(0, total - output.length), exitCode };
}

/** Stops a process and its children (SIGKILL to its session) and forgets it. */
export async function killProcess(box: ExecEnv, handle: number, signal = "KILL"): Promise<void> {
  const p = procs(box).procs.get(handle);
  if (!p) return;
  procs(box).procs.delete(handle);
  await box.exec(`p=$(cat ${shQuote(p.file + ".pid")} 2>/dev/null) && kill -${signal} -"$p" 2>/dev/null; exit 0`, {
    shell: "sh",
    timeoutSec: 30,
  });
}

/** Sends a signal to a process's session without forgetting it (e.g. INT for a terminal's Ctrl-C). */
export async function signalProcess(box: ExecEnv, handle: number, signal: string): Promise<void> {
  const p = procs(box).procs.get(handle);
  if (!p) throw new OpError("not_found", { session: handle });
  await box.exec(`p=$(cat ${shQuote(p.file + ".pid")} 2>/dev/null) && kill -${signal} -"$p" 2>/dev/null; exit 0`, {
    shell: "sh",
    timeoutSec: 30,
  });
}

/** The process's pid in the container (the shell the handle started), or null for an unknown handle. */
export async function processPid(box: ExecEnv, handle: number): Promise<number | null> {
  const p = procs(box).procs.get(handle);
  if (!p) return null;
  const r = await box.exec(`cat ${shQuote(p.file + ".pid")} 2>/dev/null; exit 0`, { shell: "sh", timeoutSec: 30 });
  const pid = Number(text(r.stdout).trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}
