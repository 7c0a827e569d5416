/**
 * The record of one evaluation episode as it is run (`episode_runner.ts`): the trajectory's fixed fields, the phase
 * timings, what each policy turn brought (token ids, usage, the agent's exit code), and the trajectory it ends as,
 * scored or an infrastructure error.
 */
import type { EpisodeReward, HarborEpisode } from "../episode/harbor_episode.ts";
import type { PolicyTurn, TurnTokens } from "../policies/policy.ts";
import { InfraError } from "../base/errors.ts";
import { PolicyError } from "../policies/policy.ts";
import {
  type ExitStatus,
  type RolloutDetail,
  type Trajectory,
  TRAJECTORY_FORMAT,
  trajectoryId,
} from "./records/trajectory.ts";
import type { WorkdirDiff } from "./records/trajectory.ts";

/** The phases an episode goes through, as an infrastructure error names them. */
export type Phase = "start" | "agent" | "verify";

/** One episode's record while it runs. */
export class EpisodeRecord {
  /** The trajectory's fields known before it ends. */
  readonly base: Omit<Trajectory, "exit_status" | "reward" | "timings" | "ended_at">;
  /** Milliseconds per phase. */
  readonly timings: Trajectory["timings"] = { start_ms: 0, policy_ms: 0, tools_ms: 0, verify_ms: 0, total_ms: 0 };
  readonly #t0 = performance.now();
  readonly #tokens: (TurnTokens | undefined)[] = [];
  readonly #drift: number[] = [];
  readonly #rewrites: number[] = [];
  #tokenMode = false;
  readonly #usage = { prompt_tokens: 0, completion_tokens: 0 };
  #exitCode?: number;
  #stderrTail?: string;
  /** Why the turns ended early (a context overflow), when they did. */
  error?: string;

  /** A record for sample `sample` of row `rowId` (`row` its task_dir) under profile `key`, run by `policy`. */
  constructor(
    job: { rowId: string; sample: number; taskDir: string },
    key: string,
    policy: string,
    extra: { model?: string; dockerHost?: string },
  ) {
    this.base = {
      format: TRAJECTORY_FORMAT,
      id: trajectoryId(job.rowId, job.sample),
      row_id: job.rowId,
      task: job.taskDir.split("/").filter(Boolean).pop() ?? job.taskDir,
      task_dir: job.taskDir,
      sample: job.sample,
      profile: key,
      profile_key: key,
      policy,
      ...(extra.model ? { model: extra.model } : {}),
      messages: [],
      tools: [],
      chat_template_kwargs: {},
      answer: "",
      metrics: {},
      turns: 0,
      counters: { tool_calls: 0, format_errors: 0, unknown_tools: 0 },
      docker_host: extra.dockerHost ?? "default",
      started_at: new Date().toISOString(),
    };
  }

  /** Milliseconds since the episode began. */
  get elapsedMs(): number {
    return performance.now() - this.#t0;
  }

  /** Takes the started episode's profile, tools and kwargs into the record. */
  started(ep: HarborEpisode): void {
    const base = this.base;
    base.task = ep.task.name;
    base.tools = ep.tools;
    const dialect = ep.episode.profile;
    if (dialect.harnessModel !== undefined) base.harness_model = dialect.harnessModel;
    if (dialect.generation) base.generation = dialect.generation;
    if (dialect.overlay) base.overlay = dialect.overlay;
    base.chat_template_kwargs = ep.chatTemplateKwargs;
  }

  /** Takes what a policy turn brought besides the assistant message: token ids, usage, the agent's exit code. */
  turn(reply: PolicyTurn): void {
    if (reply.exitCode !== undefined) this.#exitCode = reply.exitCode;
    if (reply.stderrTail !== undefined) this.#stderrTail = reply.stderrTail;
    if (reply.usage) {
      this.#usage.prompt_tokens += reply.usage.prompt_tokens ?? 0;
      this.#usage.completion_tokens += reply.usage.completion_tokens ?? 0;
    }
  }

  /** Takes a turn's token ids (token mode), noting a prompt that does not extend the last turn's. */
  tokens(turn: number, reply: PolicyTurn): void {
    const prev = this.#tokens[this.#tokens.length - 1];
    const grown = prev && [...prev.prompt_token_ids, ...prev.completion_token_ids];
    if (reply.tokens && grown && !startsWith(reply.tokens.prompt_token_ids, grown)) this.#drift.push(turn);
    this.#tokens.push(reply.tokens);
    if (reply.templateRewrite !== undefined) this.#tokenMode = true;
    if (reply.templateRewrite) this.#rewrites.push(turn);
  }

  /** The trajectory of an infrastructure failure in `phase` (never a reward: retried, reported apart). */
  failed(e: unknown, phase: Phase, ep?: HarborEpisode, prefix = ""): Trajectory {
    return this.#end({
      ...(ep ? episodeFields(ep) : {}),
      exit_status: "infra_error",
      reward: null,
      error: `${prefix}${(e as Error).message}`,
      infra_stage: stageOf(e, phase),
    });
  }

  /** The trajectory of a failure before the episode began (its profile could not be resolved). */
  refused(error: string, stage: string): Trajectory {
    return this.#end({ exit_status: "infra_error", reward: null, error, infra_stage: stage });
  }

  /** The scored trajectory: the episode's messages and counters, the reward and what the verifier said. */
  scored(ep: HarborEpisode, s: EpisodeReward, diff?: WorkdirDiff): Trajectory {
    const tokens = this.#tokens;
    const rollout: RolloutDetail[] | undefined = tokens.some(Boolean)
      ? [{
        prompt_token_ids: tokens.map((t) => t?.prompt_token_ids ?? []),
        completion_token_ids: tokens.map((t) => t?.completion_token_ids ?? []),
        logprobs: tokens.map((t) => t?.logprobs ?? []),
      }]
      : undefined;
    const usage = this.#usage;
    const error = this.error ?? s.verifierError;
    return this.#end({
      ...episodeFields(ep),
      answer: s.answer,
      reward: s.reward,
      metrics: s.metrics,
      exit_status: s.exitStatus,
      ...(error ? { error } : {}),
      ...(rollout ? { rollout_details: rollout, drift_turns: this.#drift } : {}),
      ...(rollout && this.#tokenMode ? tokenFields(rollout[0], this.#rewrites) : {}),
      ...(usage.prompt_tokens || usage.completion_tokens ? { usage } : {}),
      ...(this.#exitCode !== undefined ? { agent_exit_code: this.#exitCode } : {}),
      ...(this.#stderrTail ? { agent_stderr: this.#stderrTail } : {}),
      ...(s.testOutput ? { test_output: s.testOutput } : {}),
      ...(s.neutralised ? { neutralised: s.neutralised } : {}),
      ...(diff ? { workdir_diff: diff } : {}),
    });
  }

  #end(t: Partial<Trajectory> & { exit_status: ExitStatus; reward: number | null }): Trajectory {
    const timings = this.timings;
    timings.total_ms = this.elapsedMs;
    for (const k of Object.keys(timings) as (keyof typeof timings)[]) timings[k] = Math.round(timings[k] ?? 0);
    return { ...this.base, ...t, timings, ended_at: new Date().toISOString() };
  }
}

function startsWith(a: number[], prefix: number[]): boolean {
  if (a.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (a[i] !== prefix[i]) return false;
  return true;
}

/** Token mode's fields: the rewrite turns, and the loss mask when every prompt extends the last (it always does). */
function tokenFields(r: RolloutDetail, rewrites: number[]): Partial<Trajectory> {
  const mask = lossMask(r);
  return { template_rewrite_turns: rewrites, ...(mask ? { loss_mask: mask } : {}) };
}

/**
 * The loss mask over the last prompt plus the last completion: 1 for each turn's completion, 0 for the first prompt
 * and for what came between a completion and the next prompt; undefined when a prompt does not extend the last.
 */
export function lossMask(r: RolloutDetail): number[] | undefined {
  const n = r.prompt_token_ids.length;
  if (!n) return undefined;
  const mask: number[] = new Array(r.prompt_token_ids[0].length).fill(0);
  for (let t = 0; t < n; t++) {
    const completion = r.completion_token_ids[t];
    for (let i = 0; i < completion.length; i++) mask.push(1);
    if (t + 1 < n) {
      const next = r.prompt_token_ids[t + 1];
      if (!startsWith(next, [...r.prompt_token_ids[t], ...completion])) return undefined;
      for (let i = mask.length; i < next.length; i++) mask.push(0);
    }
  }
  return mask;
}

/** An infrastructure error's stage: the InfraError's own (build, setup, healthcheck, ...), else the runner's phase. */
function stageOf(e: unknown, phase: Phase): string {
  return e instanceof InfraError ? e.stage : e instanceof PolicyError && e.stage ? e.stage : phase;
}

function episodeFields(ep: HarborEpisode): Partial<Trajectory> {
  const c = ep.episode.counters;
  return {
    messages: ep.episode.messages,
    verifier_mode: ep.verifier.mode,
    agent_timeout_sec: ep.state.limits.timeoutSec,
    turns: c.turns,
    counters: { tool_calls: c.toolCalls, format_errors: c.formatErrors, unknown_tools: c.unknownTools },
    turn_flags: ep.episode.flags,
  };
}
