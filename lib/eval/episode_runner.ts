/**
 * One evaluation episode, the whole loop in order (as mini-swe-agent's agent reads): start a fresh container under the
 * row's profile, ask the policy for turns and step the harness until the stop rule, the turn limit, the agent timeout
 * or a context overflow ends it, score it with the task's tests, and record it (`episode_record.ts`).
 * Infrastructure failures become an `infra_error` record with no reward, never a reward of 0.
 */
import { createHash } from "node:crypto";
import type { EnvRow, HarborEnv, HarborEpisode } from "../env/harbor_env.ts";
import { resolveProfileName } from "../harness/registry.ts";
import type { Policy, PolicyTurn } from "../policies/policy.ts";
import { PolicyError } from "../policies/policy.ts";
import { EngineDownError } from "../base/errors.ts";
import type { Trajectory } from "./records/trajectory.ts";
import { EpisodeRecord } from "./episode_record.ts";
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

/**
 * Runs one episode to its end and returns its record, in four phases: start a fresh box under the row's profile, run
 * the turns until the stop rule or a limit ends them, let the task's tests decide the reward, and record it. A phase
 * the machinery fails ends the record as an infrastructure error, never a 0.
 */
export async function runEpisode(env: HarborEnv, job: EpisodeJob, opts: EpisodeRunOptions): Promise<Trajectory> {
  const key = env.pick(job.row, job.rowId);
  const rec = new EpisodeRecord({ ...job, taskDir: job.row.task_dir }, key, opts.policy.name, opts);
  try {
    rec.base.profile = resolveProfileName(key);
  } catch (e) {
    return rec.refused((e as Error).message, "profile");
  }
  if (opts.signal?.aborted) throw new EpisodeAborted();

  // 1. Start: a fresh container of the task, its first prompt rendered under the drawn profile.
  const ep = await start(env, job, opts, rec);
  if (!("episode" in ep)) return ep;
  rec.started(ep);
  // The working directory's start state is read in the background, while the policy answers the first turn.
  const workdir = opts.workdirDiff ? recordWorkdir(ep.box, ep.verifier.mode) : undefined;

  // 2. Turns: the policy answers, the harness runs the calls, until the stop rule or a limit ends the episode.
  try {
    await turns(ep, job, opts, rec, workdir?.ready);
  } catch (e) {
    opts.policy.end?.(ep);
    await ep.close();
    if (e instanceof EpisodeAborted || e instanceof EngineDownError) throw e;
    return rec.failed(e, "agent", ep);
  }
  opts.policy.end?.(ep);

  // 3. Verify: the task's tests decide the reward (in the mode the task or the run says).
  const workdirEnd = await workdir?.end();
  const tv = performance.now();
  let reward;
  try {
    reward = await ep.finish();
  } catch (e) {
    if (e instanceof EngineDownError) throw e;
    return rec.failed(e, "verify", ep, "verify: ");
  } finally {
    rec.timings.verify_ms = performance.now() - tv;
  }

  // 4. Record.
  return rec.scored(ep, reward, workdirEnd ? await workdirEnd.diff : undefined);
}

/** Starts the episode under the run's start gate; an infrastructure error's record when it cannot start. */
async function start(
  env: HarborEnv,
  job: EpisodeJob,
  opts: EpisodeRunOptions,
  rec: EpisodeRecord,
): Promise<HarborEpisode | Trajectory> {
  const release = await opts.startGate?.acquire();
  try {
    const ep = await env.reset(job.row, job.rowId, { maxTurns: opts.maxTurns ?? DEFAULT_MAX_TURNS });
    if (ep.box.pod) rec.timings.services_ms = ep.box.timings.services;
    return ep;
  } catch (e) {
    if (e instanceof EngineDownError) throw e;
    // The task's own name when its folder loads (its start failed later: build, setup, healthcheck).
    rec.base.task = await loadTask(job.row.task_dir).then((t) => t.name, () => rec.base.task);
    return rec.failed(e, "start", undefined, "start: ");
  } finally {
    release?.();
    rec.timings.start_ms = rec.elapsedMs;
  }
}

/**
 * The turns: each asks the policy (bounded by the agent's time left) and steps the harness with its answer. The
 * episode's state machine owns the limits (turns, the agent timeout) and the exit status; a policy that runs out of
 * time ends the step (a multi-step task's next step begins, as in Harbor) or the episode; a context overflow ends it.
 */
async function turns(
  ep: HarborEpisode,
  job: EpisodeJob,
  opts: EpisodeRunOptions,
  rec: EpisodeRecord,
  workdirReady?: Promise<void>,
): Promise<void> {
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
        if ((await ep.timeUp()).done) break;
        continue;
      }
      if (e instanceof PolicyError && e.kind === "context_length") {
        ep.end("context_length");
        rec.error = e.message;
        break;
      }
      throw e;
    } finally {
      rec.timings.policy_ms += performance.now() - tp;
    }
    rec.turn(reply);
    // A policy that acts in the container itself may end the episode in its turn (its program ran out of the agent
    // timeout, or stopped the container): the episode is scored as it stands, and the reply is not taken.
    if (ep.done) break;
    rec.tokens(turn, reply);
    const { tokens: _t, usage: _u, exitCode: _x, stderrTail: _e, templateRewrite: _r, ...assistant } = reply;
    await workdirReady; // the first tool call waits for the start state, so nothing changed it before
    await ep.step(assistant);
    rec.timings.tools_ms = ep.timings.tools_ms;
  }
}
