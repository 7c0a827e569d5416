/**
 * HarborEnv: the environment a trainer drives turn by turn. `reset(row, group)` starts a fresh container and renders
 * the drawn profile's first prompt; `step(turn)` returns the harness's observations; `finish()` scores the episode
 * with the task's verifier and removes its containers.
 */
import { createHash } from "node:crypto";
import { EpisodeState, type ExitStatus } from "../harness/episode_state.ts";
import { drawProfile } from "../harness/draw.ts";
import { type AssistantTurn, ProfileEpisode, type StepResult } from "../harness/episode.ts";
import { getProfile, NO_PROFILE_DIALECT, resolveProfileName } from "../harness/registry.ts";
import type { ChatMessage, ToolSchema } from "../harness/types.ts";
import { ImageStore } from "../runtime/images.ts";
import { createRuntime } from "../runtime/registry.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { Sandbox, type SandboxOptions } from "../runtime/sandbox.ts";
import { WarmPool } from "../runtime/warm_pool.ts";
import { DeadlineExecEnv } from "../runtime/deadline_env.ts";
import { loadTask, type Task } from "../task/task.ts";
import { combineSteps, passesGate, startStep, type StepOutcome } from "../verify/steps.ts";
import { verify } from "../verify/verifier.ts";
import type { VerifierMode } from "../task/verifier_mode.ts";

/** HarborEnv's arguments (the design's, camel-cased: docs/spec-notes.md). */
export interface HarborEnvOptions {
  /** A subset of the profile's tools (default: all); honoured by profiles with the `toolSubset` capability. */
  tools?: string[];
  /** The reward.json key that is the reward (default "reward", else the first key). */
  rewardKey?: string;
  /** Working directory override (default: task.toml's, else the image's WORKDIR, else /workdir). */
  workdir?: string;
  /** Where every episode's tests run, overriding each task's own mode (default: the task's; see `resolveVerifierMode`). */
  verifierMode?: VerifierMode;
  /** Characters of command output kept where a profile has no limit of its own (default 16000). */
  maxOutput?: number;
  /** One harness profile, e.g. "opencode" or "pi@0.73.1" (default `NO_PROFILE_DIALECT`, palingenesis-default@1). */
  profile?: string;
  /** A weighted mix, e.g. {opencode: 1, pi: 1}; one profile per group (default none). */
  profiles?: Record<string, number>;
  /** Seed of the per-group profile draw (default 0). */
  profileSeed?: number | string;
  /** Per-profile chat-template kwargs, e.g. {opencode: {enable_thinking: true}} (default none). */
  profileChatKwargs?: Record<string, Record<string, unknown>>;
  /** The model's chat-template kwargs, the lowest precedence (default none). */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Task image → replacement, for episodes and verifiers alike (default none). */
  images?: Record<string, string>;
  /** Turns before an episode ends with `max_turns`; a row's `max_turns` wins (default: no limit). */
  maxTurns?: number;
  /** Where episodes run (default: the registry's default runtime, docker, on the environment's engine). */
  runtime?: Runtime;
  /** Boxes started ahead by `warm()` held at most, over every task (default 64). */
  warmMax?: number;
  /** Seconds a box started ahead waits for its reset before it is removed unused (default 600). */
  warmIdleSec?: number;
}

/** A row: a task directory, optionally the first messages, a forced profile and chat-template kwargs. */
export interface EnvRow {
  /** The task directory. */
  task_dir: string;
  /** First messages to send as given, under profiles with the `rowMessages` capability. */
  messages?: ChatMessage[];
  /** A profile forced for this row instead of the group's draw. */
  harness_profile?: string;
  /** Chat-template kwargs for this row (highest precedence). */
  chat_template_kwargs?: Record<string, unknown>;
  /** Turn limit for this row, over HarborEnv's `maxTurns`. */
  max_turns?: number;
}

/** What a finished episode scored. */
export interface EpisodeReward {
  /** The verifier's reward. */
  reward: number;
  /** `metric/<key>` per reward component, `metric/profile/<name>` and `metric/profile/<name>/reward`. */
  metrics: Record<string, number>;
  /** The final answer the verifier was given. */
  answer: string;
  /** Why the verifier failed (the reward is then 0), if it did. */
  verifierError?: string;
  /** Where the tests ran. */
  verifierMode: VerifierMode;
  /** How the episode ended (`unfinished` when it was finished before it ended). */
  exitStatus: ExitStatus;
  /** Turns taken. */
  turns: number;
  /** The last 4 kB of test.sh's output (of the last step verified, in a multi-step task). */
  testOutput: string;
}

/**
 * The environment. It installs no signal handler: a host that embeds it closes it (`await env.close()`, or
 * `await using env = new HarborEnv(...)`), which removes the containers of every episode still open.
 */
export class HarborEnv {
  /** The image store every episode of this environment shares. */
  readonly store: ImageStore;
  /** Boxes started ahead (`warm`), taken by resets of their task. */
  readonly pool: WarmPool;
  readonly #weights: Record<string, number>;
  /** Episodes started and not yet closed. */
  readonly #open = new Set<HarborEpisode>();
  #closed = false;

  /** Validates the profile names now; throws when both `profile` and `profiles` are given. */
  constructor(readonly opts: HarborEnvOptions = {}) {
    if (opts.profile && opts.profiles) throw new Error("HarborEnv: give profile or profiles, not both");
    this.#weights = opts.profiles ?? { [opts.profile ?? NO_PROFILE_DIALECT]: 1 };
    // Validated now, so a typo fails when the environment is built, not mid-run.
    for (const name of Object.keys(this.#weights)) resolveProfileName(name);
    for (const name of Object.keys(opts.profileChatKwargs ?? {})) resolveProfileName(name);
    this.store = new ImageStore(opts.runtime ?? createRuntime(), opts.images);
    this.pool = new WarmPool(this.store, { max: opts.warmMax, idleMs: (opts.warmIdleSec ?? 600) * 1000 });
  }

  /**
   * Starts `n` boxes of `row`'s task ahead (one at a time, in the background), so that as many later resets of it
   * take a box that is ready; returns how many were asked for (fewer past `warmMax`). Each box serves one episode.
   */
  async warm(row: Pick<EnvRow, "task_dir">, n = 1): Promise<number> {
    if (this.#closed) throw new Error("HarborEnv: warm after close()");
    const task = await loadTask(row.task_dir);
    return this.pool.fill(task, this.#startOptions, n);
  }

  get #startOptions(): SandboxOptions {
    return { workdir: this.opts.workdir, verifierMode: this.opts.verifierMode };
  }

  /** The profile (weights key) a row gets for a group; without a group the row's content stands in. */
  pick(row: EnvRow, group?: string | number): string {
    if (row.harness_profile) return row.harness_profile;
    const g = group === undefined ? createHash("sha256").update(JSON.stringify(row)).digest("hex") : String(group);
    return drawProfile(this.#weights, this.opts.profileSeed ?? 0, g, row.task_dir);
  }

  /**
   * Starts an episode of `row` in a fresh container under the group's profile; `limits.maxTurns` stands in for
   * HarborEnv's own (a row's `max_turns` still wins).
   */
  async reset(row: EnvRow, group?: string | number, limits: { maxTurns?: number } = {}): Promise<HarborEpisode> {
    if (this.#closed) throw new Error("HarborEnv: reset after close()");
    const key = this.pick(row, group);
    const full = resolveProfileName(key);
    const profile = getProfile(full);
    if (profile.capabilities?.toolSubset && this.opts.tools) {
      const unknown = this.opts.tools.filter((t) => !profile.tools.some((x) => x.schema.function.name === t));
      if (unknown.length) throw new Error(`HarborEnv: tools: unknown ${unknown.join(", ")}`);
      profile.tools = profile.tools.filter((t) => this.opts.tools!.includes(t.schema.function.name));
    }
    const task = await loadTask(row.task_dir);
    const box = this.pool.take(task, this.#startOptions) ?? await Sandbox.start(task, this.store, this.#startOptions);
    try {
      // A multi-step task starts its first step (its files, its setup.sh) before the first prompt.
      if (task.steps) await startStep(box, task.steps[0]);
      const timeoutSec = task.config.agent.timeoutSec;
      // The agent clock starts with the first prompt (rendering it may run commands of its own).
      const clock = { deadline: Infinity };
      // One deadline for the whole episode: every tool's command is cut to the agent timeout's time left.
      const agentBox = new DeadlineExecEnv(box, () => clock.deadline, timeoutSec);
      const ep = new ProfileEpisode(profile, agentBox, this.opts.maxOutput);
      let first: ChatMessage[];
      if (profile.capabilities?.rowMessages && row.messages?.length) {
        first = row.messages;
        ep.messages.push(...first);
      } else first = await ep.begin(task.instruction);
      const ctk = {
        ...this.opts.chatTemplateKwargs,
        ...(profile.chatTemplateKwargs ?? {}),
        ...(this.opts.profileChatKwargs?.[key] ?? this.opts.profileChatKwargs?.[full] ?? {}),
        ...row.chat_template_kwargs,
      };
      const state = new EpisodeState({ maxTurns: row.max_turns ?? limits.maxTurns ?? this.opts.maxTurns, timeoutSec });
      clock.deadline = state.deadline;
      const episode = new HarborEpisode(this, task, box, ep, key, full, first, ctk, state);
      this.#open.add(episode);
      if (this.#closed) {
        await episode.close(); // closed while this episode was starting
        throw new Error("HarborEnv: closed while the episode started");
      }
      return episode;
    } catch (e) {
      await box.remove();
      throw e;
    }
  }

  /** The mix's profile names (weights keys). */
  get profileKeys(): string[] {
    return Object.keys(this.#weights);
  }

  /** Episodes started and not yet finished or closed. */
  get openEpisodes(): number {
    return this.#open.size;
  }

  /** Forgets a closed episode (called by `HarborEpisode.close`). */
  closed(ep: HarborEpisode): void {
    this.#open.delete(ep);
  }

  /** Closes every open episode and every box started ahead (removing their containers), and refuses new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...[...this.#open].map((ep) => ep.close()), this.pool.close()]);
  }

  /** `await using env = new HarborEnv(...)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** One episode of a HarborEnv. */
export class HarborEpisode {
  #closed = false;
  /** The step a multi-step task is on. */
  #step = 0;
  /** The verified steps of a multi-step task. */
  #outcomes: StepOutcome[] = [];
  /** True once a multi-step task's last step (or a failed gate) ended it. */
  #stepsOver = false;

  /** Made by `HarborEnv.reset`. */
  constructor(
    readonly env: HarborEnv,
    readonly task: Task,
    readonly box: Sandbox,
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
  ) {}

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
  get info(): { harness_profile: string; chat_template_kwargs: Record<string, unknown>; task: string } {
    return {
      harness_profile: this.harnessProfile,
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
    if (!this.state.admit()) return this.#ended([]);
    const r = await this.#stepOnce(turn);
    const status = this.state.stepped(r.done ? r.exitStatus ?? "stop_rule" : undefined);
    return status ? this.#ended(r.observations) : r;
  }

  #ended(observations: ChatMessage[]): StepResult {
    return { observations, done: true, exitStatus: this.state.exitStatus };
  }

  async #stepOnce(turn: AssistantTurn): Promise<StepResult> {
    const r = await this.episode.step(turn);
    const steps = this.task.steps;
    if (!steps || !r.done) return r;
    const step = steps[this.#step];
    const v = await verify(this.box, this.episode.answer(), { rewardKey: this.env.opts.rewardKey, step });
    this.#outcomes.push({ name: step.config.name, result: v });
    const over = r.exitStatus === "container_dead" || r.exitStatus === "timeout";
    if (over || this.#step + 1 >= steps.length || !passesGate(step, v)) {
      this.#stepsOver = true;
      return r;
    }
    const next = steps[++this.#step];
    await startStep(this.box, next);
    return { observations: [...r.observations, this.episode.continueWith(next.instruction)], done: false };
  }

  /** The index of the step a multi-step task is on (0 for a single-step task). */
  get stepIndex(): number {
    return this.#step;
  }

  /** Scores the episode with the verifier (the answer by the profile's rule), then removes its containers. */
  async finish(): Promise<EpisodeReward> {
    try {
      const answer = this.episode.answer();
      const v = this.task.steps
        ? await this.#scoreSteps(answer)
        : await verify(this.box, answer, { rewardKey: this.env.opts.rewardKey });
      const metrics: Record<string, number> = {};
      for (const [k, x] of Object.entries(v.metrics)) metrics[`metric/${k}`] = x;
      // The mix's one-hot, only for a mix the caller gave: the default profile of an env without one is no mix, and
      // a row that pins its own profile would otherwise report `metric/profile/palingenesis-default@1: 0`.
      const mix = this.env.opts.profiles ? this.env.profileKeys : [];
      for (const k of mix) metrics[`metric/profile/${k}`] = k === this.profileKey ? 1 : 0;
      metrics[`metric/profile/${this.profileKey}`] = 1;
      metrics[`metric/profile/${this.profileKey}/reward`] = v.reward;
      return {
        reward: v.reward,
        metrics,
        answer,
        verifierError: v.error,
        verifierMode: v.mode,
        exitStatus: this.state.finalStatus,
        turns: this.state.turns,
        testOutput: v.testOutput,
      };
    } finally {
      await this.close();
    }
  }

  /** Verifies the step an unfinished multi-step episode stopped in, then combines the steps' rewards. */
  async #scoreSteps(
    answer: string,
  ): Promise<
    { reward: number; metrics: Record<string, number>; error?: string; mode: VerifierMode; testOutput: string }
  > {
    const key = this.env.opts.rewardKey;
    if (!this.#stepsOver) {
      const step = this.task.steps![this.#step];
      this.#outcomes.push({ name: step.config.name, result: await verify(this.box, answer, { rewardKey: key, step }) });
      this.#stepsOver = true;
    }
    const testOutput = this.#outcomes.at(-1)?.result.testOutput ?? "";
    return { ...combineSteps(this.task, this.#outcomes, key), mode: this.box.verifierMode, testOutput };
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
