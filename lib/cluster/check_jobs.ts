/**
 * `harbor check --slurm`: the check's episodes (an oracle and a nop per task) run on one pgs worker per node of a Slurm
 * allocation, as `pgs eval --slurm` runs its own, with the same two agents as a local check: the worker's
 * `harbor-oracle` (solve.sh as Harbor's oracle runs it) and `nop`. The two go as two runs over the same workers, each
 * with half of every worker's capacity.
 */
import { resolve } from "node:path";
import type { PodBudget } from "../runtime/pod_budget.ts";
import type { VerifierMode } from "../task/verifier_mode.ts";
import type { CheckAgent, CheckJob, CheckOptions } from "../harbor/check.ts";
import type { Trajectory } from "../eval/records/trajectory.ts";
import { type DispatchWorker, runOnWorkers } from "./dispatch.ts";
import { type SlurmWorkers, startSlurmWorkers } from "./slurm_workers.ts";
import type { EpisodeSettings } from "./worker_protocol.ts";

/** What `slurmCheckJobs` asks of Slurm and of the workers. */
export interface SlurmCheckOptions {
  /** Nodes to ask for outside a job (default 1; inside one, all of its nodes). */
  nodes?: number;
  /** Partition to ask for (default the cluster's). */
  partition?: string;
  /** Time limit to ask for, as salloc takes it (default the partition's). */
  time?: string;
  /** Episodes each worker runs at once (the check's 2 × `--workers`). */
  maxConcurrent: number;
  /** The container runtime on every node (default the worker's, docker). */
  runtime?: string;
  /** Image mapping, task image → replacement (default none). */
  images?: Record<string, string>;
  /** Where the tests run, for every task (default: each task's own mode). */
  verifierMode?: VerifierMode;
  /** Disk bound in MB of each box (default the worker's, 10240; 0: none). */
  storageMb?: number;
  /** The most a compose task's whole pod may use (default: no total). */
  podBudget?: PodBudget;
  /** Aborts the start of the workers. */
  signal?: AbortSignal;
  /** One line for the user; default stderr. */
  onNote?: (line: string) => void;
}

/** A turn limit neither agent meets, as a local check has none: the task's `[agent] timeout_sec` bounds each episode
 * (JSON has no Infinity). */
const NO_TURN_LIMIT = 10_000;

/** The settings a worker runs one of the check's agents with. */
export function checkSettings(agent: CheckAgent, opts: Omit<SlurmCheckOptions, "maxConcurrent">): EpisodeSettings {
  const s: EpisodeSettings = {
    policy: { kind: agent === "oracle" ? "harbor-oracle" : "nop" },
    images: opts.images,
    verifierMode: opts.verifierMode,
    storageMb: opts.storageMb,
    podBudget: opts.podBudget,
    maxTurns: NO_TURN_LIMIT,
  };
  return JSON.parse(JSON.stringify(s));
}

/** `worker` with a capacity of its own (a share of the worker's), its loss and retirement the worker's. */
function share(w: DispatchWorker, capacity: number): DispatchWorker {
  return {
    node: w.node,
    capacity,
    runEpisode: (req, o) => w.runEpisode(req, o),
    gone: w.gone,
    retire: (why) => w.retire?.(why),
  };
}

/**
 * Runs the check's jobs on `workers`: the oracles and the nops as two runs at once, each with half of every worker's
 * capacity (at least 1). The first failure (every node lost, a refused request) stops the other run and is thrown.
 */
export async function runCheckOnWorkers(
  workers: DispatchWorker[],
  jobs: CheckJob[],
  onEpisode: (t: Trajectory) => void,
  opts: Omit<SlurmCheckOptions, "maxConcurrent"> = {},
): Promise<void> {
  const stop = new AbortController();
  const pass = async (agent: CheckAgent) => {
    const mine = jobs.filter((j) => j.agent === agent).map(({ row, rowId, sample }) => ({
      row: { ...row, task_dir: resolve(row.task_dir) }, // a path every node sees
      rowId,
      sample,
    }));
    if (!mine.length) return;
    const shared = workers.map((w) => share(w, Math.max(1, Math.ceil(w.capacity / 2))));
    try {
      await runOnWorkers(shared, mine, checkSettings(agent, opts), {
        onEpisode,
        onNote: opts.onNote,
        signal: stop.signal,
      });
    } catch (e) {
      stop.abort(e);
      throw e;
    }
  };
  await Promise.all([pass("oracle"), pass("nop")]);
}

/**
 * Starts the workers of a check or an audit on the allocation's nodes (`opts.maxConcurrent` each) and says where in
 * one line, `what` leading it.
 */
export async function startCheckWorkers(
  opts: SlurmCheckOptions,
  note: (line: string) => void,
  what: string,
): Promise<SlurmWorkers> {
  const sw = await startSlurmWorkers({
    nodes: opts.nodes,
    partition: opts.partition,
    time: opts.time,
    maxConcurrent: opts.maxConcurrent,
    maxStarting: opts.maxConcurrent,
    runtime: opts.runtime,
    signal: opts.signal,
    onNote: note,
  });
  const names = sw.workers.map((w) => `${w.node} (${w.capacity})`).join(", ");
  note(`${what} over ${sw.workers.length} node(s) of Slurm job ${sw.allocation.jobId}: ${names}`);
  return sw;
}

/** The `runJobs` hook of `harbor check --slurm`: workers started on the allocation's nodes, ended when it returns. */
export function slurmCheckJobs(opts: SlurmCheckOptions): NonNullable<CheckOptions["runJobs"]> {
  const note = opts.onNote ?? ((l: string) => console.error(l));
  return async (jobs, onEpisode) => {
    const sw = await startCheckWorkers(opts, note, `${jobs.length} episode(s)`);
    try {
      await runCheckOnWorkers(sw.workers, jobs, onEpisode, { ...opts, onNote: note });
    } finally {
      await sw.close();
    }
  };
}
