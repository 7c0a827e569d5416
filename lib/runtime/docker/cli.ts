/**
 * A docker-like CLI (`docker`, or another `CliEngine`), driven with argv arrays (never shell strings), one engine per
 * instance. Every call has a bound,
 * and the client watches its engine: a probe (see `ping`) failing twice within 10 s each, or container lifecycle
 * calls timing out three times in a row, marks the engine down. Then every call in flight is killed and every later
 * call fails at once with EngineDownError, so that a run stops cleanly instead of waiting on a wedged daemon.
 */
import { EngineDownError, InfraError } from "../../base/errors.ts";
import type { ProcResult } from "../runtime.ts";
import { type CliEngine, DOCKER_ENGINE } from "./engine.ts";

/** What a finished CLI call returned. */
export type DockerResult = ProcResult;

/** Options of one `docker` call. */
export interface DockerCallOptions {
  /** Bytes written to the CLI's stdin (default: none, stdin is closed). */
  stdin?: Uint8Array | ReadableStream<Uint8Array>;
  /** Kill the CLI after this many milliseconds (default 120 000; a build or a test run passes its own). */
  timeoutMs?: number;
  /** Aborts the call. */
  signal?: AbortSignal;
}

const decoder = new TextDecoder();

/** The bound of a call that names none: generous for a busy engine, finite for a wedged one. */
export const DEFAULT_CALL_MS = 120_000;
/** The bound of one probe (`ping`). */
const PROBE_MS = 10_000;
/** Lifecycle calls (these take the daemon's container and network locks) that may time out in a row. */
const MAX_LIFECYCLE_TIMEOUTS = 3;
const LIFECYCLE = new Set(["run", "create", "start", "rm", "commit", "stop", "kill", "restart"]);

/**
 * The folder the CLI runs in: the system's temporary folder, never the caller's. Podman's conmon inherits it and writes
 * files there (an `oom` file when a box is killed for memory), which must not land in a user's project.
 */
export function cliCwd(): string {
  return Deno.env.get("TMPDIR") || "/tmp";
}

/** An engine reached through its CLI; `host` is a DOCKER_HOST (or the engine's `hostVar`) value. */
export class DockerCli {
  #children = new Set<Deno.ChildProcess>();
  #down?: EngineDownError;
  #probe?: Promise<boolean>;
  #lifecycleTimeouts = 0;

  /** A client of the engine at `host` (default: the environment's) through the CLI `cli` names (default docker). */
  constructor(readonly host?: string, readonly cli: CliEngine = DOCKER_ENGINE) {}

  /** The engine's kind as messages name it ("Docker", "podman"). */
  get #kindName(): string {
    return this.cli.kind === "docker" ? "Docker" : this.cli.kind;
  }

  /** The engine's address in messages: its DOCKER_HOST (or `hostVar`) value. */
  get engine(): string {
    return this.host ?? Deno.env.get(this.cli.hostVar) ?? this.cli.defaultHost;
  }

  /** Same as `engine`. */
  get name(): string {
    return this.engine;
  }

  /** Set once the engine was found not answering; every call then fails with it. */
  get down(): EngineDownError | undefined {
    return this.#down;
  }

  /** Marks the engine down: kills every CLI call in flight (they then throw `err`), and fails later calls at once. */
  markDown(err: EngineDownError): EngineDownError {
    this.#down ??= err;
    for (const c of this.#children) {
      try {
        c.kill("SIGKILL");
      } catch { /* gone */ }
    }
    return this.#down;
  }

  /**
   * Throws EngineDownError (and marks the engine down) when the probe (`ping`) fails twice in a row within 10 s each;
   * `stage` names what the caller was doing. Concurrent checks share one probe.
   */
  async assertAnswering(stage: string): Promise<void> {
    if (this.#down) throw this.#down;
    this.#probe ??= (async () => {
      for (let i = 0; i < 2; i++) if (await this.ping()) return true;
      return false;
    })().finally(() => this.#probe = undefined);
    if (!await this.#probe) {
      throw this.markDown(
        new EngineDownError(
          this.engine,
          stage,
          `it did not answer twice in a row within ${PROBE_MS / 1000} s`,
          this.#kindName,
        ),
      );
    }
  }

  #register(child: Deno.ChildProcess): void {
    this.#children.add(child);
    child.status.finally(() => this.#children.delete(child)).catch(() => {});
  }

  /** The environment the CLI runs with: DOCKER_HOST (or `hostVar`) pinned when this client names an engine. */
  env(): Record<string, string> {
    return this.host ? { [this.cli.hostVar]: this.host } : {};
  }

  /**
   * Starts `docker ...args` as a child process with piped stdio: a stream (`docker cp ... -`, killed at `timeoutMs`)
   * or a long-lived session (no bound: the exec channel bounds each of its commands itself).
   */
  spawn(args: string[], opts: { stdin?: boolean; timeoutMs?: number } = {}): Deno.ChildProcess {
    const child = this.#start(args, opts.stdin);
    if (opts.timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }, opts.timeoutMs);
      child.status.finally(() => clearTimeout(timer)).catch(() => {});
    }
    return child;
  }

  /** Spawns the CLI on `args` with piped stdio (stdin only when asked) and registers it; a missing CLI is one line. */
  #start(args: string[], stdin = false): Deno.ChildProcess {
    if (this.#down) throw this.#down;
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(this.cli.binary, {
        args,
        env: this.env(),
        cwd: cliCwd(),
        stdin: stdin ? "piped" : "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (e) {
      const what = `cannot run the ${this.cli.binary} CLI: ${(e as Error).message}`;
      throw new InfraError(what, this.cli.binary, { cause: e });
    }
    this.#register(child);
    return child;
  }

  /** Runs `docker ...args` to completion; never throws on a non-zero exit (see `ok`). */
  async call(args: string[], opts: DockerCallOptions = {}): Promise<DockerResult> {
    const child = this.#start(args, Boolean(opts.stdin));
    let timedOut = false;
    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    };
    const bound = opts.timeoutMs ?? DEFAULT_CALL_MS;
    const timer = Number.isFinite(bound)
      ? setTimeout(() => {
        timedOut = true;
        kill();
      }, bound)
      : undefined;
    opts.signal?.addEventListener("abort", kill, { once: true });
    try {
      if (opts.stdin instanceof Uint8Array) {
        const w = child.stdin.getWriter();
        await w.write(opts.stdin).catch(() => {});
        await w.close().catch(() => {});
      } else if (opts.stdin) {
        await opts.stdin.pipeTo(child.stdin).catch(() => {});
      }
      const out = await child.output();
      if (this.#down) throw this.#down;
      if (LIFECYCLE.has(args[0])) this.#lifecycle(args[0], timedOut);
      const stderr = decoder.decode(out.stderr).trim();
      return { code: out.code, stdout: out.stdout, stderr, stderrRaw: out.stderr, timedOut };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", kill);
    }
  }

  /** Counts lifecycle timeouts in a row: a daemon deadlocked on its locks may still answer `docker version`. */
  #lifecycle(cmd: string, timedOut: boolean): void {
    if (!timedOut) {
      this.#lifecycleTimeouts = 0;
      return;
    }
    if (++this.#lifecycleTimeouts >= MAX_LIFECYCLE_TIMEOUTS) {
      throw this.markDown(
        new EngineDownError(
          this.engine,
          `${this.cli.binary} ${cmd}`,
          `${MAX_LIFECYCLE_TIMEOUTS} container lifecycle calls in a row timed out`,
          this.#kindName,
        ),
      );
    }
    // One timeout may be a busy engine: ask whether it answers at all, off the caller's path.
    this.assertAnswering(`${this.cli.binary} ${cmd}`).catch(() => {});
  }

  /** Runs `docker ...args` and returns its stdout as text; a failure throws InfraError naming `stage`. */
  async ok(args: string[], stage: string, opts: DockerCallOptions = {}): Promise<string> {
    const r = await this.call(args, opts);
    if (r.timedOut) {
      const bound = opts.timeoutMs ?? DEFAULT_CALL_MS;
      throw new InfraError(`${this.cli.binary} ${args[0]} timed out after ${bound} ms`, stage);
    }
    if (r.code !== 0) {
      const why = r.stderr.split("\n").filter((l) => l.trim()).pop() ?? `exit code ${r.code}`;
      throw new InfraError(`${this.cli.binary} ${args[0]} failed: ${why}`, stage);
    }
    return decoder.decode(r.stdout);
  }

  /**
   * True when the engine answers a probe within 10 s. The probe looks up the `none` network rather than asking
   * `docker version`: the version handler takes none of the daemon's locks, so it still answers when dockerd 20.10 is
   * deadlocked in its network controller (moby/moby#46661), while a network lookup waits on the very lock that is held.
   */
  async ping(): Promise<boolean> {
    try {
      const r = await this.call(this.cli.probe, { timeoutMs: PROBE_MS });
      // An engine without a `none` network (not Docker's) still answered.
      return !r.timedOut && (r.code === 0 || !/cannot connect|error during connect|connection refused/i.test(r.stderr));
    } catch {
      return false; // the CLI cannot run, or the engine is marked down
    }
  }

  /** True when the image exists in this engine. */
  async hasImage(image: string): Promise<boolean> {
    const r = await this.call(["image", "inspect", "--format", "{{.Id}}", image]);
    return r.code === 0;
  }
}

/** The last line of a CLI's error that says something (not its `Run 'docker run --help'` pointer). */
export function lastWords(stderr: string): string | undefined {
  return stderr.split("\n").filter((l) => l.trim() && !/^(Run|See) '.* --help'/.test(l.trim())).pop();
}
