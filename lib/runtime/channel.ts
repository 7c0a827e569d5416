/**
 * The fast exec channel: one long-lived exec (`docker exec -i ... sh`) per box through which every command runs as a
 * fresh process with its own timeout, separate stdout and stderr, its exit code and an output cap. It saves the
 * 70-110 ms of a `docker exec` per call; when the channel cannot start it falls back to one exec per call. It needs
 * only the box's `spawn`, `exec` and `state`, so it serves every runtime.
 */
import { ByteReader } from "../base/byte_reader.ts";
import { ChannelKiller } from "./channel_killer.ts";
import { CHANNEL_SERVER, encodeBody } from "./channel_script.ts";
import type { ExecOptions, ExecResult } from "./exec_env.ts";
import type { Box, ExecProcess } from "./runtime.ts";

export type { ExecOptions, ExecResult } from "./exec_env.ts";
import { ContainerDeadError, InfraError } from "../base/errors.ts";

/** Options of a channel. */
export interface ChannelOptions {
  /** User the channel and its commands run as (default: the image's default user). */
  user?: string;
  /** Directory commands start in (default: the image's WORKDIR). */
  workdir?: string;
  /** Skip the channel and use one exec per call (default false). */
  forceFallback?: boolean;
  /** The static helper for the container's architecture (`channelHelper`); default none: `setsid` and `head`. */
  helper?: Uint8Array;
}

const DEFAULT_TIMEOUT_SEC = 600;
const DEFAULT_CAP = 1 << 20;
const KILL_GRACE_MS = 15_000;
/** Pauses (ms) between asking again whether a container whose channel died still runs (about 1 s in all). */
const DEATH_RECHECK_MS = [50, 100, 200, 300, 400];
const enc = new TextEncoder();

/** A fresh random token that frames one reply (128 bits: command output cannot contain it by chance). */
function newMark(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return "PGS" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Decodes command output as UTF-8 text, replacing invalid bytes. */
export function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** Single-quotes a string for a POSIX shell. */
export function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** `export K='v'` lines for a script's preamble, one per variable of `env`. */
export function exportLines(env: Record<string, string>): string {
  return Object.entries(env).map(([k, v]) => `export ${k}=${shQuote(v)}\n`).join("");
}

/** How far one call got: whether its command started, when the call began, and the command's pid. */
interface Progress {
  started: boolean;
  at: number;
  pid?: string;
}

/** A persistent command channel into one container. */
export class ExecChannel {
  #proc?: ExecProcess;
  #reader?: ByteReader;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #queue: Promise<unknown> = Promise.resolve();
  /** Kills timed-out commands; its resident shell starts beside the server. */
  readonly #killer: ChannelKiller;
  #nextId = 1;
  #fallback: boolean;
  #closed = false;
  /** Whether commands get their own process group (`setsid` in the image, or the helper). */
  processGroups = false;
  /** Whether the static helper runs in the container (instead of `setsid` and `head`). */
  helperRunning = false;

  /** A channel into `box`; its process starts on the first call. */
  constructor(readonly box: Box, readonly opts: ChannelOptions = {}) {
    this.#fallback = opts.forceFallback ?? false;
    this.#killer = new ChannelKiller(box);
  }

  /** The box's id. */
  get container(): string {
    return this.box.id;
  }

  /** True when commands go through one exec each. */
  get usingFallback(): boolean {
    return this.#fallback;
  }

  async #start(): Promise<void> {
    // The first command waits for the killer too, so that even a fork bomb in it can be killed.
    const killer = this.#killer.start();
    const proc = this.box.spawn(["/bin/sh", "-c", CHANNEL_SERVER], {
      user: this.opts.user || undefined,
      workdir: this.opts.workdir || undefined,
      stdin: true,
    });
    const reader = new ByteReader(proc.stdout.getReader());
    const writer = proc.stdin.getWriter();
    const helper = this.opts.helper ?? new Uint8Array();
    // Not awaited on its own: a server that died at once must not leave the write pending forever.
    writer.write(new Uint8Array([...enc.encode(`PGS-HELPER ${helper.length}\n`), ...helper])).catch(() => {});
    const ready = await reader.readLineWithin(15_000);
    if (!ready?.startsWith("PGS-READY ")) {
      try {
        proc.kill("SIGKILL");
      } catch { /* gone */ }
      await Promise.all([proc.status, killer]);
      const err = text((await proc.stderr.getReader().read()).value ?? new Uint8Array()).trim();
      await this.#assertRunning(err);
      this.#fallback = true;
      return;
    }
    const fields = ready.split(" ");
    this.processGroups = fields[1] !== "none";
    this.helperRunning = fields[3] === "helper";
    // Drain stderr: closing it would kill the server with SIGPIPE when its shell reports a killed job.
    proc.stderr.pipeTo(new WritableStream()).catch(() => {});
    this.#proc = proc;
    this.#reader = reader;
    this.#writer = writer;
    await killer;
  }

  /**
   * After the channel failed: returns when the container still runs; else throws ContainerDeadError when the engine
   * answers and knows the container stopped (the agent's doing), EngineDownError when the engine does not answer, and
   * InfraError when the container is gone from the engine (removed under the episode).
   */
  async #assertRunning(detail: string): Promise<void> {
    // The channel can end before the engine has seen its container stop (`kill -9 -1` reaps the server first, then
    // the container's init goes): a container that still runs is asked again for a short while before it is believed.
    let r = await this.box.state();
    for (const ms of DEATH_RECHECK_MS) {
      if (r.status !== "running") break;
      await new Promise((ok) => setTimeout(ok, ms));
      r = await this.box.state();
    }
    if (r.status === "running") return;
    if (r.status === "stopped") throw new ContainerDeadError(this.container, detail);
    await this.box.runtime.assertAnswering("exec");
    throw new InfraError(`container ${this.container} is gone: ${r.detail}`, "exec");
  }

  #drop(): void {
    try {
      this.#proc?.kill("SIGKILL");
    } catch { /* gone */ }
    this.#proc?.status.catch(() => {});
    this.#proc = undefined;
    this.#reader = undefined;
    this.#writer = undefined;
  }

  /** Runs a script; calls on one channel run one at a time, in call order. */
  exec(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    const run = this.#queue.then(() => this.#exec(script, opts));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #exec(script: string, opts: ExecOptions): Promise<ExecResult> {
    if (this.#closed) throw new InfraError(`exec channel to ${this.container} is closed`, "exec");
    // A plain directory travels in the request, so the script runs exactly as given; any other goes in a prefix.
    const plainCwd = opts.cwd === undefined || /^[^\s\\]+$/.test(opts.cwd);
    const full = plainCwd ? script : `cd ${shQuote(opts.cwd!)} || exit 1\n${script}`;
    const cwd = plainCwd ? opts.cwd ?? "." : ".";
    if (!this.#fallback && !this.#proc) await this.#start();
    if (this.#fallback) return this.#execFallback(full, cwd, opts);
    const progress: Progress = { started: false, at: performance.now() };
    try {
      return await this.#execChannel(full, cwd, opts, progress);
    } catch {
      // The channel died under us (the agent may have killed every process).
      this.#drop();
      await this.#assertRunning("");
      if (progress.started) {
        // The command ran (and may still run): running it again could repeat its effects, so report it as lost. What
        // it started dies first: a fork bomb left running would hold the pids limit against the next command.
        if (progress.pid) await this.#killUntilDone(progress.pid, performance.now() + KILL_GRACE_MS);
        const none = new Uint8Array();
        const durationMs = performance.now() - progress.at;
        return {
          exitCode: 255,
          stdout: none,
          stderr: none,
          stdoutBytes: 0,
          stderrBytes: 0,
          timedOut: false,
          durationMs,
        };
      }
      await this.#start();
      if (this.#fallback) return this.#execFallback(full, cwd, opts);
      return await this.#execChannel(full, cwd, opts, progress);
    }
  }

  async #execChannel(
    script: string,
    cwd: string,
    opts: ExecOptions,
    progress: Progress,
  ): Promise<ExecResult> {
    const started = performance.now();
    const id = this.#nextId++;
    const cap = opts.maxOutputBytes ?? DEFAULT_CAP;
    let mode = opts.shell === "sh" ? "s" : "b";
    if (opts.mergeStderr) mode = mode.toUpperCase();
    const mark = newMark();
    await this.#writer!.write(enc.encode(`${id} ${mode} ${cap} ${mark} ${cwd} ${encodeBody(script)}`));
    const reader = this.#reader!;
    const pidLine = await reader.readLine();
    const pidMatch = pidLine?.match(/^PGS-PID (\d+) (\d+)$/);
    if (!pidMatch || Number(pidMatch[1]) !== id) throw new Error(`exec channel: bad reply ${JSON.stringify(pidLine)}`);
    const pid = pidMatch[2];
    progress.started = true;
    progress.pid = pid;
    let timedOut = false;
    const timeoutMs = (opts.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000;
    let stuck: ReturnType<typeof setTimeout> | undefined;
    let killing: Promise<boolean> | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killing = this.#killUntilDone(pid, performance.now() + KILL_GRACE_MS);
      // A command that outlives its kill cannot hold the episode: give up on this server after a grace period.
      stuck = setTimeout(() => this.#drop(), KILL_GRACE_MS);
    }, timeoutMs);
    try {
      let end = await reader.readLine();
      if (end === `PGS-HELD ${id}`) {
        // Exited, but its background jobs still hold its output: the command goes on until they let go (or its
        // timeout kills them); the server waits on our ticks.
        const tick = enc.encode("\n");
        const ticker = setInterval(() => this.#writer?.write(tick).catch(() => {}), 50);
        try {
          end = await reader.readLine();
        } finally {
          clearInterval(ticker);
        }
      }
      // After a timeout, every process the command started is gone before the next command runs (a fork bomb's
      // children would hold the pids limit, and the next command could not fork).
      if (killing) await killing;
      const m = end?.match(/^PGS-END (\d+) (\d+)$/);
      if (!m || Number(m[1]) !== id) {
        if (timedOut && end === null) {
          // Killed, but the server went too (it could not fork while a fork bomb held the pids limit, or the grace
          // period ran out): the command timed out and its output is lost; the next call starts a new server.
          this.#drop();
          const none = new Uint8Array();
          const durationMs = performance.now() - started;
          return { exitCode: 137, stdout: none, stderr: none, stdoutBytes: 0, stderrBytes: 0, timedOut, durationMs };
        }
        throw new Error(`exec channel: bad reply ${JSON.stringify(end)}`);
      }
      const markBytes = enc.encode(mark);
      const out = await reader.readUntil(markBytes);
      const err = out && await reader.readUntil(markBytes);
      if (!out || !err) throw new Error("exec channel: stream ended inside a reply");
      let sizes = [out.length, err.length];
      // The server sends one byte past the cap, so a longer stream shows; only then is it sized (a `wc`).
      if (out.length > cap || err.length > cap) sizes = await this.#sizes(id);
      return {
        // A command killed at its timeout is 137, even when only its background jobs outlived it.
        exitCode: timedOut ? 137 : Number(m[2]),
        stdout: out.slice(0, cap),
        stderr: err.slice(0, cap),
        stdoutBytes: sizes[0],
        stderrBytes: sizes[1],
        timedOut,
        durationMs: performance.now() - started,
      };
    } finally {
      clearTimeout(timer);
      if (stuck !== undefined) clearTimeout(stuck);
    }
  }

  /** The full sizes of command `of`'s stdout and stderr, asked right after it ended (its files still exist). */
  async #sizes(of: number): Promise<number[]> {
    const id = this.#nextId++;
    await this.#writer!.write(enc.encode(`${id} z 0 - . 1\n${of}\n`));
    const line = await this.#reader!.readLine();
    const m = line?.match(/^PGS-SIZE (\d+) (\d+) (\d+)$/);
    if (!m || Number(m[1]) !== id) throw new Error(`exec channel: bad reply ${JSON.stringify(line)}`);
    return [Number(m[2]), Number(m[3])];
  }

  // Zombies hold pids until reaped (and a fallback `docker exec` needs a free one), so the kill is repeated until
  // nothing is left, or until the deadline.
  async #killUntilDone(pid: string, deadline: number): Promise<boolean> {
    let start = "";
    for (let i = 0; performance.now() < deadline; i++) {
      const r = await this.#killer.kill(pid, start);
      if (r.clean) return true;
      start = r.start;
      await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** i, 1000)));
    }
    return false;
  }

  async #execFallback(script: string, cwd: string, opts: ExecOptions): Promise<ExecResult> {
    const started = performance.now();
    const dir = cwd !== "." ? cwd : this.opts.workdir;
    const shell = opts.shell === "sh" ? ["/bin/sh", "-c"] : ["bash", "-lc"];
    const body = opts.mergeStderr ? `exec 2>&1\n${script}` : script;
    const r = await this.box.exec([...shell, body], {
      user: this.opts.user || undefined,
      workdir: dir || undefined,
      timeoutMs: (opts.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000,
    });
    const cap = opts.maxOutputBytes ?? DEFAULT_CAP;
    const err = r.stderrRaw;
    return {
      exitCode: r.timedOut ? 137 : r.code,
      stdout: r.stdout.slice(0, cap),
      stderr: err.slice(0, cap),
      stdoutBytes: r.stdout.length,
      stderrBytes: err.length,
      timedOut: r.timedOut,
      durationMs: performance.now() - started,
    };
  }

  /** Ends the channel's process; later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#killer.close();
    if (!this.#proc) return;
    await this.#writer?.close().catch(() => {});
    const proc = this.#proc;
    const t = setTimeout(() => this.#drop(), 2000);
    await proc.status.catch(() => {});
    clearTimeout(t);
    this.#proc = undefined;
  }
}
