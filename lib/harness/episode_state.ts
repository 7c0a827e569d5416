/**
 * The one episode state machine: its turn count, its limits (turns, the task's `[agent] timeout_sec`) and how it
 * ended. `pgs eval`, `pgs env serve`, HarborEnv and `pgs harbor check` all end episodes through it, so an exit status
 * means the same everywhere and every status that can be produced is in `ExitStatus`.
 */

/** How an episode ended. Every value here can be produced, and docs/eval.md lists them. */
export type ExitStatus =
  /** The profile's stop rule ended it (a finish tool, a sentinel, a reply without a call, ...). */
  | "stop_rule"
  /** The turn limit was reached. */
  | "max_turns"
  /** The profile's limit of malformed turns in a row was reached. */
  | "format_errors"
  /** The task's `[agent] timeout_sec` ran out. */
  | "timeout"
  /** The endpoint refused the prompt as longer than the model's context. */
  | "context_length"
  /** The agent stopped its own container (e.g. `kill -9 -1`): scored on what the container holds. */
  | "container_dead"
  /** The trainer asked for the reward before the episode ended (`pgs env serve`, `HarborEpisode.finish`). */
  | "unfinished"
  /** Infrastructure failed: no reward, reported apart and retried; never the policy's doing. */
  | "infra_error";

/** Every exit status, in the order docs/eval.md lists them. */
export const EXIT_STATUSES: readonly ExitStatus[] = [
  "stop_rule",
  "max_turns",
  "format_errors",
  "timeout",
  "context_length",
  "container_dead",
  "unfinished",
  "infra_error",
];

/** An episode's limits. */
export interface EpisodeLimits {
  /** Turns before the episode ends with `max_turns` (default: no limit). */
  maxTurns?: number;
  /** Seconds from the first prompt before it ends with `timeout`: the task's `[agent] timeout_sec`. */
  timeoutSec: number;
}

/** The state of one episode: turns taken, the agent deadline, and the exit status once it ended. */
export class EpisodeState {
  /** Turns taken. */
  turns = 0;
  #exit?: ExitStatus;
  /** `performance.now()` at which the agent timeout runs out (a multi-step task's: the current step's). */
  deadline: number;

  /** Starts the agent clock now (or at `now`). */
  constructor(readonly limits: EpisodeLimits, now: number = performance.now()) {
    this.deadline = now + limits.timeoutSec * 1000;
  }

  /** True once the episode ended. */
  get done(): boolean {
    return this.#exit !== undefined;
  }

  /** How it ended, while undefined it has not. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exit;
  }

  /** How it ended when its reward is asked for: `unfinished` if it had not. */
  get finalStatus(): ExitStatus {
    return this.#exit ?? "unfinished";
  }

  /** Milliseconds left of the agent timeout (0 when it has run out). */
  timeLeftMs(now: number = performance.now()): number {
    return Math.max(0, this.deadline - now);
  }

  /** Whether a turn may be taken now; ends the episode with `timeout` when the deadline has passed. */
  admit(now: number = performance.now()): boolean {
    if (this.done) return false;
    if (this.timeLeftMs(now) <= 0) this.end("timeout");
    return !this.done;
  }

  /**
   * Records a turn that was stepped: it ends with `ended` when the step ended the episode, else with `max_turns` at
   * the turn limit, else with `timeout` once the deadline passed during the turn. Returns the exit status, if any.
   */
  stepped(ended?: ExitStatus, now: number = performance.now()): ExitStatus | undefined {
    this.turns++;
    if (ended) return this.end(ended);
    if (this.limits.maxTurns !== undefined && this.turns >= this.limits.maxTurns) return this.end("max_turns");
    if (this.timeLeftMs(now) <= 0) return this.end("timeout");
  }

  /** Starts the agent clock again for `timeoutSec` (a multi-step task's next step has a budget of its own). */
  restartClock(timeoutSec: number, now: number = performance.now()): void {
    this.deadline = now + timeoutSec * 1000;
  }

  /** Ends the episode with `status` unless it has ended already; returns the status it ended with. */
  end(status: ExitStatus): ExitStatus {
    this.#exit ??= status;
    return this.#exit;
  }
}
