/**
 * One episode through its pipeline: started (`startEpisode`: the box, the first step, the deadline, the first
 * prompt), stepped turn by turn (the profile's turns, a multi-step task's steps), verified (`finish`) and closed. The
 * agent deadline, the exit status and the timings are decided here for every front end: the runner (`runEpisode`),
 * the env server and `HarborEnv`.
 */
import type { EpisodeState, ExitStatus } from "../harness/episode_state.ts";
import type { AssistantTurn, ProfileEpisode, StepResult } from "../harness/profile_episode.ts";
import type { ChatMessage, ToolSchema } from "../harness/types.ts";
import type { Sandbox } from "../runtime/sandbox.ts";
import type { EpisodeVerifier } from "../verify/episode_verifier.ts";
import type { Task } from "../task/task.ts";
import type { VerifierMode } from "../task/verifier_mode.ts";
import { combineSteps, passesGate, startStep, type StepOutcome } from "../verify/steps.ts";
import { verify, type VerifyResult } from "../verify/verifier.ts";
import type { Neutralised } from "../verify/input_guard.ts";
import { InfraError } from "../base/errors.ts";

/** Who opens episodes (`HarborEnv`): what scoring needs from it, and the notice of a close. */
export interface EpisodeOwner {
  /** The reward.json key that is the reward (default "reward", else the first key). */
  readonly rewardKey?: string;
  /** The profile mix's keys when the caller gave a mix (one `metric/profile/<key>` each); empty otherwise. */
  readonly mixKeys: string[];
  /** Called once when an episode closed. */
  closed(ep: HarborEpisode): void;
}

/** Where an episode's time went, in milliseconds. */
export interface EpisodeTimings {
  /** Starting: the box (or a warm one taken), the first step, the first prompt. */
  start_ms: number;
  /** Running the harness's tools, over every turn. */
  tools_ms: number;
  /** Verifying, and removing the episode's boxes. */
  verify_ms: number;
}

/** What a finished episode scored. */
export interface EpisodeReward {
  /** The verifier's reward. */
  reward: number;
  /** `metric/<key>` per reward component, `metric/profile/<name>` and `metric/profile/<name>/reward`. */
  metrics: Record<string, number>;
  /** The final answer the verifier was given. */
  answer: string;
  /**
   * Why the verifier failed (the reward is then 0), if it did; for a multi-step task that stopped at a later step's
   * setup or healthcheck, that failure (the reward is then the steps verified before it).
   */
  verifierError?: string;
  /** Where the tests ran. */
  verifierMode: VerifierMode;
  /** How the episode ended (`unfinished` when it was finished before it ended). */
  exitStatus: ExitStatus;
  /** Turns taken. */
  turns: number;
  /** The last 4 kB of test.sh's output (of the last step verified, in a multi-step task). */
  testOutput: string;
  /** What the verifier removed before the tests because it named their inputs (every step's); absent when nothing. */
  neutralised?: Neutralised[];
}

/** One episode: its box, its profile's turns, its state, its verification and its timings. */
export class HarborEpisode {
  #closed = false;
  /** The step a multi-step task is on. */
  #step = 0;
  /** The verified steps of a multi-step task. */
  #outcomes: StepOutcome[] = [];
  /** True once a multi-step task's last step (or a failed gate) ended it. */
  #stepsOver = false;

  /** Milliseconds spent starting (box and first prompt), in the harness's tools, and verifying (with removal). */
  readonly timings: EpisodeTimings = { start_ms: 0, tools_ms: 0, verify_ms: 0 };

  /** The clock the agent's box reads its deadline from (a step's own budget is set there too). */
  #clock: { deadline: number } = { deadline: Infinity };

  /** Made by `startEpisode`. */
  constructor(
    /** Who opened the episode (`HarborEnv`): the reward key, the profile mix, and the close notice. */
    readonly env: EpisodeOwner,
    readonly task: Task,
    readonly box: Sandbox,
    /** The verifier's side of the episode: its mode, the box made ahead, the agent's process table. */
    readonly verifier: EpisodeVerifier,
    readonly episode: ProfileEpisode,
    /** The weights key that was drawn. */
    readonly profileKey: string,
    /** The drawn profile as name@version (`info.harness_profile`). */
    readonly harnessProfile: string,
    /** The first messages the policy receives. */
    readonly firstMessages: ChatMessage[],
    /** Chat-template kwargs for this episode's requests (model < profile < row). */
    readonly chatTemplateKwargs: Record<string, unknown>,
    /** Turns, limits and how the episode ended: the one state machine every front end reads. */
    readonly state: EpisodeState,
    /** The clock the agent's box reads its deadline from (default: one of its own). */
    clock?: { deadline: number },
  ) {
    if (clock) this.#clock = clock;
  }

  /** True once the episode ended (stop rule, limits, a dead container, or `end`). */
  get done(): boolean {
    return this.state.done;
  }

  /** How the episode ended; undefined while it runs. */
  get exitStatus(): ExitStatus | undefined {
    return this.state.exitStatus;
  }

  /** Milliseconds left of the task's agent timeout: the bound of the policy's next turn. */
  timeLeftMs(): number {
    return this.state.timeLeftMs();
  }

  /** Ends the episode from outside (the policy's endpoint refused the context, its turn timed out); first end wins. */
  end(status: ExitStatus): ExitStatus {
    return this.state.end(status);
  }

  /** Tool schemas for the request (empty for text protocols). */
  get tools(): ToolSchema[] {
    return this.episode.tools;
  }

  /** `info` for rollout dumps. */
  get info(): {
    harness_profile: string;
    harness_model: string | null;
    chat_template_kwargs: Record<string, unknown>;
    task: string;
  } {
    return {
      harness_profile: this.harnessProfile,
      harness_model: this.episode.profile.harnessModel ?? null,
      chat_template_kwargs: this.chatTemplateKwargs,
      task: this.task.name,
    };
  }

  /**
   * Takes the policy's assistant turn. In a multi-step task, a turn that ends a step has the step verified; unless it
   * was the last or its `min_reward` gate failed, the next step starts and its instruction is the next observation.
   */
  async step(turn: AssistantTurn): Promise<StepResult> {
    if (this.state.done) throw new Error(`step after the episode ended (${this.state.exitStatus})`);
    // A step's time ran out between turns: the step ends as it stands (the late turn is not taken) and the task goes on.
    if (this.#stepTimedOut()) return await this.timeUp();
    if (!this.state.admit()) return this.#ended([]);
    const t = performance.now();
    let r: StepResult;
    try {
      r = await this.#stepOnce(turn);
    } finally {
      this.timings.tools_ms += performance.now() - t;
    }
    const status = this.state.stepped(r.done ? r.exitStatus ?? "stop_rule" : undefined);
    return status ? this.#ended(r.observations) : r;
  }

  #ended(observations: ChatMessage[]): StepResult {
    return { observations, done: true, exitStatus: this.state.exitStatus };
  }

  async #stepOnce(turn: AssistantTurn): Promise<StepResult> {
    const r = await this.episode.step(turn);
    if (!this.task.steps || !r.done) return r;
    return await this.#endStep(r);
  }

  /**
   * Verifies the step that ended with `r` and, as Harbor's multi-step trial goes on: unless the container died, it was
   * the last step, its tests gave no reward or its gate failed, starts the next step with a budget of its own (a step
   * that timed out is verified and followed by the next, as in Harbor). A later step whose setup or healthcheck fails
   * ends the task there, scored on the steps verified (Harbor records it on the step).
   */
  async #endStep(r: StepResult): Promise<StepResult> {
    const steps = this.task.steps!;
    const step = steps[this.#step];
    const v = await verify(this.box, this.episode.answer(), {
      rewardKey: this.env.rewardKey,
      step,
      verifier: this.verifier,
    });
    this.#outcomes.push({ name: step.config.name, result: v });
    const dead = r.exitStatus === "container_dead";
    // A step whose tests gave no reward ends the task there, as Harbor's `_should_stop_after_step` does.
    if (dead || this.#step + 1 >= steps.length || !v.rewards || !passesGate(step, v)) {
      this.#stepsOver = true;
      return r;
    }
    const next = steps[++this.#step];
    try {
      await this.box.betweenPhases();
      await startStep(this.box, next);
      await this.box.agentPhase(next);
      await this.verifier.agentStarts(this.box);
    } catch (e) {
      if (!(e instanceof InfraError) || (e.stage !== "setup" && e.stage !== "healthcheck")) throw e;
      this.#stepsOver = true;
      this.stepError = `step ${next.config.name}: ${e.message}`;
      return { observations: r.observations, done: true, exitStatus: r.exitStatus ?? "stop_rule" };
    }
    this.state.restartClock(next.config.agent.timeoutSec);
    this.#clock.deadline = this.state.deadline;
    return { observations: [...r.observations, this.episode.continueWith(next.instruction)], done: false };
  }

  /** True when a multi-step task's current step (not its last) has used up its time. */
  #stepTimedOut(): boolean {
    const steps = this.task.steps;
    return Boolean(steps && this.#step + 1 < steps.length && !this.state.done && this.state.timeLeftMs() <= 0);
  }

  /**
   * The policy's time ran out (its turn took too long, or the step's clock passed between turns): a multi-step task's
   * step (not its last) ends as it stands and the task goes on, as Harbor's trial does; otherwise the episode ends
   * with `timeout`.
   */
  async timeUp(): Promise<StepResult> {
    const steps = this.task.steps;
    if (!steps || this.#step + 1 >= steps.length || this.state.done || this.#stepsOver) {
      this.state.end("timeout");
      return this.#ended([]);
    }
    const r = await this.#endStep({ observations: [], done: true, exitStatus: "timeout" });
    if (r.done) this.state.end("timeout");
    return r.done ? this.#ended(r.observations) : r;
  }

  /** Why a multi-step task stopped before its last step for a reason of the task's own (a later step's setup). */
  stepError?: string;

  /** The index of the step a multi-step task is on (0 for a single-step task). */
  get stepIndex(): number {
    return this.#step;
  }

  /** Scores the episode with the verifier (the answer by the profile's rule), then removes its containers. */
  async finish(): Promise<EpisodeReward> {
    const t = performance.now();
    try {
      const answer = this.episode.answer();
      const v = this.task.steps
        ? await this.#scoreSteps(answer)
        : await verify(this.box, answer, { rewardKey: this.env.rewardKey, final: true, verifier: this.verifier });
      const metrics: Record<string, number> = {};
      for (const [k, x] of Object.entries(v.metrics)) metrics[`metric/${k}`] = x;
      // The mix's one-hot, only for a mix the caller gave: the default profile of an env without one is no mix, and
      // a row that pins its own profile would otherwise report `metric/profile/palingenesis-default@1: 0`.
      const mix = this.env.mixKeys;
      for (const k of mix) metrics[`metric/profile/${k}`] = k === this.profileKey ? 1 : 0;
      metrics[`metric/profile/${this.profileKey}`] = 1;
      metrics[`metric/profile/${this.profileKey}/reward`] = v.reward;
      return {
        reward: v.reward,
        metrics,
        answer,
        verifierError: v.error ?? this.stepError,
        verifierMode: v.mode,
        exitStatus: this.state.finalStatus,
        turns: this.state.turns,
        testOutput: v.testOutput,
        ...(v.neutralised?.length ? { neutralised: v.neutralised } : {}),
      };
    } finally {
      await this.close();
      this.timings.verify_ms = performance.now() - t;
    }
  }

  /** Verifies the step an unfinished multi-step episode stopped in, then combines the steps' rewards. */
  async #scoreSteps(
    answer: string,
  ): Promise<
    Pick<VerifyResult, "reward" | "metrics" | "error" | "mode" | "testOutput" | "neutralised">
  > {
    const key = this.env.rewardKey;
    if (!this.#stepsOver) {
      const step = this.task.steps![this.#step];
      this.#outcomes.push({
        name: step.config.name,
        result: await verify(this.box, answer, { rewardKey: key, step, final: true, verifier: this.verifier }),
      });
      this.#stepsOver = true;
    }
    const testOutput = this.#outcomes.at(-1)?.result.testOutput ?? "";
    const combined = combineSteps(this.task, this.#outcomes, key);
    // What the guard removed counts whatever the steps scored: every step's, summed and listed.
    const count = this.#outcomes.reduce((n, o) => n + (o.result.metrics.inputs_neutralised ?? 0), 0);
    const neutralised = this.#outcomes.flatMap((o) => o.result.neutralised ?? []);
    if (count) combined.metrics = { ...combined.metrics, inputs_neutralised: count };
    return {
      ...combined,
      mode: this.verifier.mode,
      testOutput,
      ...(neutralised.length ? { neutralised } : {}),
    };
  }

  /** Removes the episode's containers without scoring; safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.box.remove();
    } finally {
      this.env.closed(this);
    }
  }

  /** `await using ep = await env.reset(row)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
