/**
 * One evaluation episode: reset a fresh container under the row's profile, ask the policy for turns and step the
 * harness until the stop rule, the turn limit, the agent timeout or a context overflow ends it, then score it with
 * the verifier. Infrastructure failures become an `infra_error` record with no reward, never a reward of 0.
 */
import { createHash } from "node:crypto";
import type { EnvRow, HarborEnv, HarborEpisode } from "../env/harbor_env.ts";
import { resolveProfileName } from "../harness/registry.ts";
import type { Policy, PolicyTurn, TurnTokens } from "../policies/policy.ts";
import { PolicyError } from "../policies/policy.ts";
import { EngineDownError, InfraError } from "../base/errors.ts";
import {
  type ExitStatus,
  type RolloutDetail,
  type Trajectory,
  TRAJECTORY_FORMAT,
  trajectoryId,
} from "./records/trajectory.ts";
import { recordWorkdir } from "./workdir_diff.ts";
import { loadTask } from "../task/task.ts";

/** Turns before an episode ends with `max_turns`, unless the run or the row says otherwise. */
export const DEFAULT_MAX_TURNS = 32;

/** One episode to run: a row, its id (the draw's group) and the sample index. */
export interface EpisodeJob {
  /** The row (task_dir, optional messages, forced profile, kwargs, max_turns). */
  row: EnvRow;
  /** The row's id: also the group of the profile draw. */
  rowId: string;
  /** 0-based sample index. */
  sample: number;
}

/** Something that hands out start slots: `acquire()` resolves with the function that gives the slot back. */
export interface StartGate {
  /** Waits for a slot. */
  acquire(): Promise<() => void>;
}

/** How episodes are run. */
export interface EpisodeRunOptions {
  /** What answers the turns. */
  policy: Policy;
  /** Turns before the episode ends with `max_turns` (a row's `max_turns` wins; default `DEFAULT_MAX_TURNS`). */
  maxTurns?: number;
  /** Limits containers starting at once (default: no limit); a `Semaphore` is one. */
  startGate?: StartGate;
  /** Stops the episode (it is then not recorded). */
  signal?: AbortSignal;
  /** Recorded as `model` (default none). */
  model?: string;
  /** Recorded as `docker_host` (default "default"). */
  dockerHost?: string;
  /**
   * Record the files the episode changed as `workdir_diff` (default false; `pgs eval` sets it unless `--no-diff`).
   * For policies that act through the profile's tools: one that changes the container within its turn (Harbor's
   * oracle) may do so before the start state is read.
   */
  workdirDiff?: boolean;
}

/** Thrown when an episode is stopped by the run's signal: nothing is recorded for it. */
export class EpisodeAborted extends Error {
  /** Error name. */
  override name = "EpisodeAborted";
}

/** The id of a row: sha256 of its JSON, 12 hex digits. */
export function rowId(row: EnvRow): string {
  return createHash("sha256").update(JSON.stringify(row)).digest("hex").slice(0, 12);
}

function startsWith(a: number[], prefix: number[]): boolean {
  if (a.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (a[i] !== prefix[i]) return false;
  return true;
}

/** Runs one episode to its end and returns its record. */
export async function runEpisode(env: HarborEnv, job: EpisodeJob, opts: EpisodeRunOptions): Promise<Trajectory> {
  const started = new Date();
  const t0 = performance.now();
  const key = env.pick(job.row, job.rowId);
  const base: Omit<Trajectory, "exit_status" | "reward" | "timings" | "ended_at"> = {
    format: TRAJECTORY_FORMAT,
    id: trajectoryId(job.rowId, job.sample),
    row_id: job.rowId,
    task: job.row.task_dir.split("/").filter(Boolean).pop() ?? job.row.task_dir,
    task_dir: job.row.task_dir,
    sample: job.sample,
    profile: key,
    profile_key: key,
    policy: opts.policy.name,
    ...(opts.model ? { model: opts.model } : {}),
    messages: [],
    tools: [],
    chat_template_kwargs: {},
    answer: "",
    metrics: {},
    turns: 0,
    counters: { tool_calls: 0, format_errors: 0, unknown_tools: 0 },
    docker_host: opts.dockerHost ?? "default",
    started_at: started.toISOString(),
  };
  const timings = { start_ms: 0, policy_ms: 0, tools_ms: 0, verify_ms: 0, total_ms: 0 };
  const done = (t: Partial<Trajectory> & { exit_status: ExitStatus; reward: number | null }): Trajectory => {
    timings.total_ms = Math.round(performance.now() - t0);
    for (const k of Object.keys(timings) as (keyof typeof timings)[]) timings[k] = Math.round(timings[k]);
    return { ...base, ...t, timings, ended_at: new Date().toISOString() };
  };
  try {
    base.profile = resolveProfileName(key);
  } catch (e) {
    return done({ exit_status: "infra_error", reward: null, error: (e as Error).message, infra_stage: "profile" });
  }
  if (opts.signal?.aborted) throw new EpisodeAborted();

  let ep: HarborEpisode;
  const release = await opts.startGate?.acquire();
  try {
    ep = await env.reset(job.row, job.rowId, { maxTurns: opts.maxTurns ?? DEFAULT_MAX_TURNS });
  } catch (e) {
    if (e instanceof EngineDownError) throw e;
    // The task's own name when its folder loads (its start failed later: build, setup, healthcheck).
    base.task = await loadTask(job.row.task_dir).then((t) => t.name, () => base.task);
    return done({
      exit_status: "infra_error",
      reward: null,
      error: `start: ${(e as Error).message}`,
      infra_stage: stageOf(e, "start"),
    });
  } finally {
    release?.();
    timings.start_ms = performance.now() - t0;
  }
  base.task = ep.task.name;
  base.tools = ep.tools;
  const dialect = ep.episode.profile;
  if (dialect.harnessModel !== undefined) base.harness_model = dialect.harnessModel;
  if (dialect.generation) base.generation = dialect.generation;
  if (dialect.overlay) base.overlay = dialect.overlay;
  base.chat_template_kwargs = ep.chatTemplateKwargs;
  // The working directory's start state is read in the background, while the policy answers the first turn.
  const workdir = opts.workdirDiff ? recordWorkdir(ep.box, ep.verifier.mode) : undefined;

  const tokens: (TurnTokens | undefined)[] = [];
  const drift: number[] = [];
  const rewrites: number[] = [];
  let tokenMode = false;
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  let error: string | undefined;
  let exitCode: number | undefined;
  let stderrTail: string | undefined;
  try {
    // The episode's state machine owns the limits (turns, the agent timeout) and the exit status.
    for (let turn = 0; !ep.done; turn++) {
      if (opts.signal?.aborted) throw new EpisodeAborted();
      if (!ep.state.admit()) break; // the agent timeout ran out between turns
      const timeout = AbortSignal.timeout(Math.max(1, ep.timeLeftMs()));
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let reply: PolicyTurn;
      const tp = performance.now();
      try {
        reply = await opts.policy.turn({
          messages: [...ep.episode.messages],
          tools: ep.tools,
          chatTemplateKwargs: ep.chatTemplateKwargs,
          episode: ep,
          turn,
          sample: job.sample,
          signal,
        });
      } catch (e) {
        if (opts.signal?.aborted) throw new EpisodeAborted();
        if (timeout.aborted) {
          // A multi-step task's step ends as it stands and the next begins (Harbor's per-step timeout); else the end.
          if ((await ep.timeUp()).done) break;
          continue;
        }
        if (e instanceof PolicyError && e.kind === "context_length") {
          ep.end("context_length");
          error = e.message;
          break;
        }
        throw e;
      } finally {
        timings.policy_ms += performance.now() - tp;
      }
      if (reply.exitCode !== undefined) exitCode = reply.exitCode;
      if (reply.stderrTail !== undefined) stderrTail = reply.stderrTail;
      if (reply.usage) {
        usage.prompt_tokens += reply.usage.prompt_tokens ?? 0;
        usage.completion_tokens += reply.usage.completion_tokens ?? 0;
      }
      // A policy that acts in the container itself may end the episode in its turn (its program ran out of the agent
      // timeout, or stopped the container): the episode is scored as it stands, and the reply is not taken.
      if (ep.done) break;
      const prev = tokens[tokens.length - 1];
      if (
        reply.tokens && prev && !startsWith(reply.tokens.prompt_token_ids, [
          ...prev.prompt_token_ids,
          ...prev.completion_token_ids,
        ])
      ) drift.push(turn);
      tokens.push(reply.tokens);
      if (reply.templateRewrite !== undefined) tokenMode = true;
      if (reply.templateRewrite) rewrites.push(turn);
      const { tokens: _t, usage: _u, exitCode: _x, stderrTail: _e, templateRewrite: _r, ...assistant } = reply;
      await workdir?.ready; // the first tool call waits for the start state, so nothing changed it before
      await ep.step(assistant);
      timings.tools_ms = ep.timings.tools_ms;
    }
  } catch (e) {
    opts.policy.end?.(ep);
    await ep.close();
    if (e instanceof EpisodeAborted || e instanceof EngineDownError) throw e;
    return done({
      ...episodeFields(ep),
      exit_status: "infra_error",
      reward: null,
      error: (e as Error).message,
      infra_stage: stageOf(e, "agent"),
    });
  }
  opts.policy.end?.(ep);

  const workdirEnd = await workdir?.end();
  const tv = performance.now();
  let scored;
  try {
    scored = await ep.finish();
  } catch (e) {
    if (e instanceof EngineDownError) throw e;
    return done({
      ...episodeFields(ep),
      exit_status: "infra_error",
      reward: null,
      error: `verify: ${(e as Error).message}`,
      infra_stage: stageOf(e, "verify"),
    });
  } finally {
    timings.verify_ms = performance.now() - tv;
  }
  const rollout: RolloutDetail[] | undefined = tokens.some(Boolean)
    ? [{
      prompt_token_ids: tokens.map((t) => t?.prompt_token_ids ?? []),
      completion_token_ids: tokens.map((t) => t?.completion_token_ids ?? []),
      logprobs: tokens.map((t) => t?.logprobs ?? []),
    }]
    : undefined;
  return done({
    ...episodeFields(ep),
    answer: scored.answer,
    reward: scored.reward,
    metrics: scored.metrics,
    exit_status: scored.exitStatus,
    ...(error ?? scored.verifierError ? { error: error ?? scored.verifierError } : {}),
    ...(rollout ? { rollout_details: rollout, drift_turns: drift } : {}),
    ...(rollout && tokenMode ? tokenFields(rollout[0], rewrites) : {}),
    ...(usage.prompt_tokens || usage.completion_tokens ? { usage } : {}),
    ...(exitCode !== undefined ? { agent_exit_code: exitCode } : {}),
    ...(stderrTail ? { agent_stderr: stderrTail } : {}),
    ...(scored.testOutput ? { test_output: scored.testOutput } : {}),
    ...(scored.neutralised ? { neutralised: scored.neutralised } : {}),
    ...(workdirEnd ? { workdir_diff: await workdirEnd.diff } : {}),
  });
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
function stageOf(e: unknown, phase: "start" | "agent" | "verify"): string {
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
