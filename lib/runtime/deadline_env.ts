/**
 * An `ExecEnv` under a deadline: the agent timeout is one deadline for the whole episode, so no command may run past
 * it, whatever timeout the harness's tool asked for (pi's bash has none, opencode's is two minutes). A command still
 * running when the deadline passes is killed by its runtime with everything it started, and the call raises
 * `AgentTimeoutError`; so does any call made after the deadline.
 */
import { AgentTimeoutError } from "../base/errors.ts";
import type { ExecEnv, ExecOptions, ExecResult } from "./exec_env.ts";

/** The timeout a command gets when it names none, as every runtime defaults it. */
const DEFAULT_TIMEOUT_SEC = 600;

/** `inner` with every command bounded by `deadline()` (a `performance.now()` time) of an agent timeout of `timeoutSec`. */
export class DeadlineExecEnv implements ExecEnv {
  /** Wraps `inner`; `deadline` is read at each call, so the clock may start after the wrapper is made. */
  constructor(
    readonly inner: ExecEnv,
    readonly deadline: () => number,
    /** The agent timeout in seconds, for the error's wording. */
    readonly timeoutSec: number,
  ) {}

  /** The inner environment's id. */
  get id(): string {
    return this.inner.id;
  }

  /** The inner environment's working directory. */
  get workdir(): string {
    return this.inner.workdir;
  }

  /** The inner environment's scratch folder. */
  get scratch(): string {
    return this.inner.scratch;
  }

  /** Whether the agent stopped the inner environment. */
  get dead(): boolean {
    return this.inner.dead;
  }

  set dead(v: boolean) {
    this.inner.dead = v;
  }

  /** Runs `script` with its timeout cut to the time left; raises `AgentTimeoutError` once the deadline has passed. */
  async exec(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    const leftMs = this.deadline() - performance.now();
    if (leftMs <= 0) throw new AgentTimeoutError(this.timeoutSec);
    const askedSec = opts.timeoutSec ?? DEFAULT_TIMEOUT_SEC;
    if (askedSec * 1000 <= leftMs) return this.inner.exec(script, opts);
    const r = await this.inner.exec(script, { ...opts, timeoutSec: leftMs / 1000 });
    // Killed by the deadline rather than by its own timeout: the episode is over.
    if (r.timedOut) throw new AgentTimeoutError(this.timeoutSec);
    return r;
  }
}
