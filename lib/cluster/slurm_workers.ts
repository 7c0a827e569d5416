/**
 * One `pgs worker` per node of a Slurm allocation (the job pgs runs inside, or one it asks for), each started as a job
 * step listening on its node's address with a fresh per-run token, health-checked, and handed to the dispatcher as a
 * `DispatchWorker` whose step ending counts as the worker lost.
 */
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { SlurmAllocation, slurmAvailable, slurmCall, SlurmError, type SlurmStep } from "./slurm.ts";
import type { DispatchWorker } from "./dispatch.ts";
import { WorkerClient } from "./worker_client.ts";
import type { EpisodeRequest } from "./worker_protocol.ts";
import type { Trajectory } from "../eval/records/trajectory.ts";

/** What `startSlurmWorkers` starts. */
export interface SlurmWorkersOptions {
  /** Nodes to ask for when pgs runs outside a job (default 1; ignored inside one, whose nodes are all used). */
  nodes?: number;
  /** Partition to ask for (default: the cluster's default). */
  partition?: string;
  /** Time limit to ask for, as salloc takes it (default: the partition's). */
  time?: string;
  /** Episodes each worker runs at once (its `--max-concurrent`; required). */
  maxConcurrent: number;
  /** Boxes each worker starts at once (its `--max-starting`; default the worker's). */
  maxStarting?: number;
  /** The container runtime on every node (default the worker's, docker). */
  runtime?: string;
  /** Aborts the start (the allocation is released). */
  signal?: AbortSignal;
  /** Lines for the user (a worker that failed to start); default stderr. */
  onNote?: (line: string) => void;
  /** How long a worker may take to print its ready line (default 120 s). */
  readyMs?: number;
}

/** The started workers, their allocation, and their end. */
export interface SlurmWorkers {
  /** The workers that answered their health check. */
  workers: SlurmWorker[];
  /** The allocation they run in. */
  allocation: SlurmAllocation;
  /** Stops every worker (SIGTERM, then after a grace SIGKILL) and releases the allocation if pgs asked for it. */
  close(): Promise<void>;
}

/** The environment variable the workers read the run's token from. */
export const TOKEN_ENV = "PGS_WORKER_TOKEN";
const READY = "pgs-worker ready ";

/** A worker on a node: its client, its capacity, and its step (whose end is the worker's loss). */
export class SlurmWorker implements DispatchWorker {
  /** Resolves with a reason when its step ends. */
  readonly gone: Promise<string>;
  /** Settles once a written-off worker is ended and its node swept (at once while it is not written off). */
  retired: Promise<void> = Promise.resolve();
  /**
   * The worker at `client.url`, running as `step`; `sweep` removes what a worker killed outright left on its node's
   * engine (default: nothing to do).
   */
  constructor(
    readonly client: WorkerClient,
    readonly capacity: number,
    readonly step: SlurmStep,
    readonly sweep: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.gone = step.exited.then((x) => {
      const how = x.signal ? `signal ${x.signal}` : `code ${x.code}`;
      const tail = step.stderrTail(2);
      return `its step ${step.stepId ?? ""} ended (${how})${tail ? `: ${tail}` : ""}`.replace("step  ", "step ");
    });
  }
  /** The node name. */
  get node(): string {
    return this.client.node;
  }
  /** Runs one episode there. */
  runEpisode(req: EpisodeRequest, opts: { signal?: AbortSignal; timeoutMs: number }): Promise<Trajectory> {
    return this.client.runEpisode(req, opts);
  }
  /**
   * Ends a worker written off: asks it to stop (a worker whose node's slurmd died outlives its step and still
   * answers, and then removes its boxes itself) and stops its step. A worker that does not answer was killed outright
   * (`scancel` of its step sends SIGKILL), so a step on its node sweeps what it left (`pgs worker --sweep`).
   */
  retire(reason: string): void {
    this.retired = (async () => {
      const answered = await this.client.stop(reason);
      await this.step.stop(5_000).catch(() => undefined);
      if (!answered) await this.sweep().catch(() => undefined);
    })();
  }
}

/** How long a sweep step on a node may take before it is stopped. */
const SWEEP_MS = 60_000;

/** Runs `pgs worker --sweep` as a step on `node` of `a`, bounded by `SWEEP_MS`; best effort (a dead node fails). */
export async function sweepNode(a: SlurmAllocation, node: string, runtime: string | undefined): Promise<void> {
  const step = a.startStep(node, [...pgsArgv(), "worker", "--sweep", "--node", node, ...runtimeArgs(runtime)]);
  const timer = setTimeout(() => step.stop(2_000).catch(() => undefined), SWEEP_MS);
  try {
    await step.exited;
  } finally {
    clearTimeout(timer);
  }
}

function runtimeArgs(runtime: string | undefined): string[] {
  return runtime ? ["--runtime", runtime] : [];
}

/** The command line that runs this same pgs: the compiled binary, or `deno run -A main.ts` from source. */
export function pgsArgv(): string[] {
  const exe = Deno.execPath();
  if (!/^deno(\.exe)?$/.test(basename(exe))) return [exe];
  const main = new URL("../../main.ts", import.meta.url);
  const path = main.protocol === "file:" ? fileURLToPath(main) : fileURLToPath(Deno.mainModule);
  return [exe, "run", "-A", path];
}

/** The address `node` listens on (`scontrol show node N`: NodeAddr), else the node name. */
export async function nodeAddress(node: string): Promise<string> {
  const r = await slurmCall("scontrol", ["show", "node", node], { timeoutMs: 10_000, anyCode: true })
    .catch(() => undefined);
  return /\bNodeAddr=(\S+)/.exec(r?.stdout ?? "")?.[1] ?? node;
}

/**
 * Starts a worker on every node of the allocation (SLURM_JOB_ID's, else a new one of `opts.nodes` nodes): throws when
 * Slurm is not usable or no worker starts; the run goes on with the ones that did, saying which did not.
 */
export async function startSlurmWorkers(opts: SlurmWorkersOptions): Promise<SlurmWorkers> {
  const absent = await slurmAvailable();
  if (absent) throw new SlurmError("--slurm", absent);
  const allocation = Deno.env.get("SLURM_JOB_ID") ? SlurmAllocation.attach() : await SlurmAllocation.request({
    nodes: opts.nodes ?? 1,
    partition: opts.partition,
    time: opts.time,
    signal: opts.signal,
  });
  const note = opts.onNote ?? ((l: string) => console.error(l));
  const workers: SlurmWorker[] = [];
  const close = async () => {
    // Sweeps of nodes whose workers were lost run in the allocation: they end before it is released.
    await Promise.all(workers.map((w) => w.retired));
    await allocation.release(5_000);
  };
  try {
    const token = crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", "");
    const nodes = await allocation.aliveNodes();
    const started = await Promise.allSettled(nodes.map((n) => startOne(allocation, n, token, opts)));
    const failed: string[] = [];
    started.forEach((r, i) => {
      if (r.status === "fulfilled") workers.push(r.value);
      else failed.push(`${nodes[i]}: ${(r.reason as Error).message}`);
    });
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (!workers.length) {
      throw new SlurmError(`job ${allocation.jobId}`, `no worker started (${failed.join("; ") || "no node alive"})`);
    }
    for (const f of failed) note(`worker on ${f}; the run goes on with ${workers.length} node(s)`);
    return { workers, allocation, close };
  } catch (e) {
    await close().catch(() => undefined);
    throw e;
  }
}

async function startOne(a: SlurmAllocation, node: string, token: string, opts: SlurmWorkersOptions) {
  const host = await nodeAddress(node);
  const argv = [
    ...pgsArgv(),
    "worker",
    "--token-env",
    TOKEN_ENV,
    "--host",
    host,
    "--port",
    "0",
    "--node",
    node,
    "--max-concurrent",
    String(opts.maxConcurrent),
    ...(opts.maxStarting ? ["--max-starting", String(opts.maxStarting)] : []),
    ...runtimeArgs(opts.runtime),
  ];
  const step = a.startStep(node, argv, { [TOKEN_ENV]: token });
  try {
    const line = await step.readyLine(READY, opts.readyMs ?? 120_000);
    const url = line.slice(READY.length).split(" ")[0];
    const client = new WorkerClient({ url, token, node });
    const h = await client.health({ signal: opts.signal });
    return new SlurmWorker(client, h.capacity, step, () => sweepNode(a, node, opts.runtime));
  } catch (e) {
    await step.stop(2_000).catch(() => undefined);
    throw e;
  }
}
