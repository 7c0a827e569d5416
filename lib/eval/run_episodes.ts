/**
 * Runs k episodes per row over one or more Docker engines: each engine has its own HarborEnv (so its own image
 * cache), its own number of live episodes and its own limit on containers starting at once. Jobs go out sample by
 * sample (every row's sample 0 first), so an interrupted run still covers every task. `harbor check` runs on the same
 * pool (`runJobs`), with a policy per episode.
 */
import { EngineDownError } from "../base/errors.ts";
import { type EnvRow, HarborEnv, type HarborEnvOptions } from "../env/harbor_env.ts";
import { createRuntime } from "../runtime/registry.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { type EndpointOptions, endpointPolicy } from "../policies/endpoint_policy.ts";
import { EpisodeAborted, type EpisodeJob, rowId, runEpisode } from "./episode_runner.ts";
import { functionPolicy, type Policy, type PolicyFn } from "../policies/policy.ts";
import { Semaphore } from "../base/semaphore.ts";
import { type Trajectory, trajectoryId } from "./records/trajectory.ts";

/** Samples per row, unless the run says otherwise. */
export const DEFAULT_K = 1;

/** Episodes alive at once on one Docker engine, unless the run or the engine says otherwise. */
export const DEFAULT_MAX_CONCURRENT = 8;

/** Containers starting at once on one Docker engine, unless the run or the engine says otherwise. */
export const DEFAULT_MAX_STARTING = 4;

/** One Docker engine and its limits. */
export interface DockerHostOptions {
  /** A DOCKER_HOST value (default: the environment's). */
  host?: string;
  /** A client of the engine to use as is (default: one the runtime registry makes for `host`). */
  runtime?: Runtime;
  /** Episodes alive at once on this engine (default: the run's `maxConcurrent`). */
  maxConcurrent?: number;
  /** Containers starting at once on this engine (default: the run's `maxStarting`). */
  maxStarting?: number;
}

/** Options of a run. */
export interface RunEpisodesOptions {
  /** Samples per row (default `DEFAULT_K`). */
  k?: number;
  /** Turn limit (a row's `max_turns` wins; default `DEFAULT_MAX_TURNS`). */
  maxTurns?: number;
  /** Episodes alive at once, per engine (default `DEFAULT_MAX_CONCURRENT`). */
  maxConcurrent?: number;
  /** Containers starting at once, per engine (default `DEFAULT_MAX_STARTING`). */
  maxStarting?: number;
  /** Engines to spread episodes over (default: one, the environment's DOCKER_HOST). */
  hosts?: DockerHostOptions[];
  /** The registered runtime each of `hosts` is, unless it brings its own `runtime` (default docker). */
  runtime?: string;
  /** Episode ids (`<row id>/<sample>`) already done, skipped (default none). */
  skip?: Set<string>;
  /** Called as each episode ends, in the order they end. */
  onEpisode?: (t: Trajectory) => void;
  /** Stops the run: no new episode starts, and episodes still running are not recorded. */
  signal?: AbortSignal;
  /** Recorded as the trajectories' `model` (default: the endpoint's, when the engine is one). */
  model?: string;
  /** Record each episode's working-directory diff (`EpisodeRunOptions.workdirDiff`; default false). */
  workdirDiff?: boolean;
  /**
   * Run every profile of `envOptions.profiles` (weight > 0) on every row, k samples each: each (row, profile) is its
   * own group, a row pinned to that profile (`crossRows`). Default false: one profile drawn per row.
   */
  cross?: boolean;
}

/**
 * The rows of a crossed run: each row once per profile of `profiles` with a weight above 0, pinned to it
 * (`harness_profile`), in the rows' order then the profiles'. A row that already pins a profile stays as it is, so
 * crossing twice changes nothing.
 */
export function crossRows(rows: EnvRow[], profiles: Record<string, number>): EnvRow[] {
  const names = Object.entries(profiles).filter(([, w]) => w > 0).map(([p]) => p);
  return rows.flatMap((row) =>
    row.harness_profile ? [row] : names.map((harness_profile) => ({ ...row, harness_profile }))
  );
}

/** What answers turns: a Policy, a function, or an OpenAI-compatible endpoint. */
export type Engine = Policy | PolicyFn | EndpointOptions;

function toPolicy(engine: Engine): Policy {
  if (typeof engine === "function") return functionPolicy(engine);
  if ("turn" in engine) return engine;
  return endpointPolicy(engine);
}

/**
 * Runs `k` episodes of every row under `envOptions` (profiles, seed, images, ...) and returns, per row, its
 * trajectories (the k samples share the row's drawn profile, as in training). With `cross`, per row and profile.
 *
 * @example Score the example tasks with the oracle under pi
 * ```ts
 * import { harborRows, oraclePolicy, runEpisodes } from "@pgs/pgs";
 * const rows = await harborRows("examples/tasks");
 * const groups = await runEpisodes(oraclePolicy(), rows, { profile: "pi" }, { k: 1, maxConcurrent: 4 });
 * if (!groups.every((g) => g.every((t) => t.reward === 1))) throw new Error("the oracle failed");
 * ```
 */
export async function runEpisodes(
  engine: Engine,
  rows: EnvRow[],
  envOptions: Omit<HarborEnvOptions, "runtime"> = {},
  opts: RunEpisodesOptions = {},
): Promise<Trajectory[][]> {
  const policy = toPolicy(engine);
  const model = opts.model ??
    await policy.model?.();
  const k = opts.k ?? DEFAULT_K;
  if (opts.cross && envOptions.profiles) rows = crossRows(rows, envOptions.profiles);
  const ids = rowIds(rows);
  const jobs: PolicyJob[] = [];
  for (let s = 0; s < k; s++) {
    rows.forEach((row, i) => {
      if (!opts.skip?.has(trajectoryId(ids[i], s))) jobs.push({ row, rowId: ids[i], sample: s, policy });
    });
  }
  const groups = new Map<string, Trajectory[]>(ids.map((id) => [id, []]));
  await runJobs(jobs, envOptions, {
    ...opts,
    model,
    onEpisode: (t) => {
      groups.get(t.row_id)!.push(t);
      opts.onEpisode?.(t);
    },
  });
  return ids.map((id) => groups.get(id)!.sort((a, b) => a.sample - b.sample));
}

/** An episode for the worker pool: a job and the policy that answers it. */
export interface PolicyJob extends EpisodeJob {
  /** What answers this episode's turns. */
  policy: Policy;
}

/** Options of `runJobs`: a run's, less what makes its jobs (`k`, `skip`, `cross`). */
export type RunJobsOptions = Omit<RunEpisodesOptions, "k" | "skip" | "cross">;

/**
 * The worker pool under `runEpisodes` and `harbor check`: runs `jobs` in their order over the engines, each engine
 * with its own HarborEnv (so its own image cache), its own number of live episodes and its own limit on containers
 * starting at once, and reports each episode through `onEpisode` as it ends. An engine that stops answering stops
 * the run (what finished was reported) and is thrown as an EngineDownError.
 */
export async function runJobs(
  jobs: PolicyJob[],
  envOptions: Omit<HarborEnvOptions, "runtime"> = {},
  opts: RunJobsOptions = {},
): Promise<void> {
  const hosts = opts.hosts?.length ? opts.hosts : [{}];
  const envs = hosts.map((h) =>
    new HarborEnv({ ...envOptions, runtime: h.runtime ?? createRuntime(opts.runtime, { host: h.host }) })
  );
  await Promise.all(envs.map((e) => e.store.runtime.sweepOrphans()));

  // An engine that stops answering stops the whole run: episodes in flight are dropped (not recorded), as on Ctrl-C.
  // Only that engine is marked down (its calls in flight are killed); the others' episodes end at the stop and
  // remove their containers.
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  let down: EngineDownError | undefined;
  const engineDown = (e: EngineDownError) => {
    down ??= e;
    stop.abort();
  };
  const watch = envs.map((env) => watchEngine(env.store.runtime, engineDown));

  let next = 0;
  const worker = async (env: HarborEnv, host: DockerHostOptions, gate: Semaphore) => {
    while (next < jobs.length && !signal.aborted) {
      const job = jobs[next++];
      try {
        const t = await runEpisode(env, job, {
          policy: job.policy,
          maxTurns: opts.maxTurns,
          startGate: gate,
          signal,
          model: opts.model,
          dockerHost: host.host ?? "default",
          workdirDiff: opts.workdirDiff,
        });
        // After a stop, containers are being removed under live episodes: what they report is not recorded.
        if (signal.aborted) return;
        opts.onEpisode?.(t);
      } catch (e) {
        if (e instanceof EpisodeAborted) return;
        if (e instanceof EngineDownError) return engineDown(e);
        if (signal.aborted) return; // a call killed by the stop
        throw e;
      }
    }
  };
  try {
    await Promise.all(hosts.flatMap((h, i) => {
      const gate = new Semaphore(h.maxStarting ?? opts.maxStarting ?? DEFAULT_MAX_STARTING);
      const n = h.maxConcurrent ?? opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
      return Array.from({ length: n }, () => worker(envs[i], h, gate));
    }));
  } finally {
    for (const w of watch) w();
  }
  // The episodes that finished were reported through onEpisode; the caller keeps them.
  if (down) throw down;
}

/** Probes `runtime` every 15 s while a run goes on; calls `onDown` once it stops answering. Returns a stop function. */
function watchEngine(runtime: Runtime, onDown: (e: EngineDownError) => void): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    runtime.assertAnswering("the run").catch((e) => e instanceof EngineDownError && onDown(e)).finally(() =>
      busy = false
    );
  }, WATCH_MS);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}

/** How often a run asks its engines whether they answer. */
const WATCH_MS = 15_000;

/** Row ids; a row repeated verbatim gets `.2`, `.3`, ... so each occurrence is its own group. */
export function rowIds(rows: EnvRow[]): string[] {
  const seen = new Map<string, number>();
  return rows.map((row) => {
    const id = rowId(row);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 1 ? id : `${id}.${n}`;
  });
}
