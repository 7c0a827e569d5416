/**
 * The runner's side of a run spread over workers (`pgs eval --slurm`): a queue of episodes handed to the workers up to
 * each one's capacity. A worker that is lost loses only its in-flight episodes: each is recorded once as an
 * infrastructure error (stage `node`, never scored) and re-queued on the workers left, whose scored trajectory later
 * supersedes it (`latestById`), as a `--resume` would. With no worker left the run ends with one error.
 */
import type { EnvRow } from "../env/harbor_env.ts";
import { drawProfile } from "../harness/draw.ts";
import { NO_PROFILE_DIALECT, resolveProfileName } from "../harness/registry.ts";
import { UsageError } from "../base/errors.ts";
import { EpisodeRecord } from "../eval/episode_record.ts";
import type { Trajectory } from "../eval/records/trajectory.ts";
import type { EpisodeRequest, EpisodeSettings, PolicySpec } from "./worker_protocol.ts";
import { WorkerEpisodeError, WorkerLost } from "./worker_client.ts";

/** One episode to run: the row, its id and the sample index. */
export interface EpisodeJobSpec {
  /** The row; its `task_dir` absolute. */
  row: EnvRow;
  /** The row's id (`rowIds`). */
  rowId: string;
  /** The 0-based sample. */
  sample: number;
  /** Its own policy over the run's settings' (default the settings'). */
  policy?: PolicySpec;
}

/** A worker as the dispatcher sees it (a `WorkerClient` with its capacity, or a fake in tests). */
export interface DispatchWorker {
  /** Its node name, as trajectories and messages say it. */
  readonly node: string;
  /** Episodes it runs at once at most. */
  readonly capacity: number;
  /** Runs one episode there (`WorkerClient.runEpisode`). */
  runEpisode(req: EpisodeRequest, opts: { signal?: AbortSignal; timeoutMs: number }): Promise<Trajectory>;
  /** Resolves with a reason once the worker is known gone by other means (its Slurm step ended); optional. */
  readonly gone?: Promise<string>;
  /** Called once when the dispatcher writes the worker off (e.g. to stop its step); optional, never awaited. */
  retire?(reason: string): void;
}

/** Options of `runOnWorkers`. */
export interface DispatchOptions {
  /** Called as each episode's record arrives (scored, an episode's own infrastructure error, or a lost one). */
  onEpisode: (t: Trajectory) => void;
  /** One line for the user (a worker lost, ...); default: stderr. */
  onNote?: (line: string) => void;
  /** Stops the run: nothing new is sent, requests in flight are dropped (not recorded). */
  signal?: AbortSignal;
  /** How long one episode's request may take before its worker counts as lost (default 6 h). */
  episodeTimeoutMs?: number;
  /** How long a busy worker is left alone when it names no Retry-After (default 1 s). */
  busyBackoffMs?: number;
}

/** The bound of one episode's request, unless told otherwise. */
export const DEFAULT_EPISODE_TIMEOUT_MS = 6 * 3600_000;

/** Every worker was lost: the run cannot go on. */
export class AllWorkersLost extends Error {
  /** Always "AllWorkersLost". */
  override name = "AllWorkersLost";
}

interface Slot {
  w: DispatchWorker;
  inFlight: Map<EpisodeJobSpec, AbortController>;
  lost?: string;
  /** Not before this time (ms since epoch): it said it was busy. */
  restUntil: number;
}

/**
 * Runs every job on `workers`, each with at most its `capacity` in flight and no job in flight twice, and reports
 * each record through `opts.onEpisode`. Throws `AllWorkersLost` when no worker is left, a `UsageError` on the first
 * `bad_request` (it would fail on every worker), and returns early (nothing more recorded) when `opts.signal` aborts.
 */
export async function runOnWorkers(
  workers: DispatchWorker[],
  jobs: EpisodeJobSpec[],
  settings: EpisodeSettings,
  opts: DispatchOptions,
): Promise<void> {
  const note = opts.onNote ?? ((l: string) => console.error(l));
  const timeoutMs = opts.episodeTimeoutMs ?? DEFAULT_EPISODE_TIMEOUT_MS;
  const backoff = opts.busyBackoffMs ?? 1_000;
  const queue = [...jobs];
  const slots: Slot[] = workers.map((w) => ({ w, inFlight: new Map(), restUntil: 0 }));
  if (!slots.length) throw new AllWorkersLost("no worker to run the episodes on");
  let failure: Error | undefined;
  let finished = false; // a worker's step ending once the run is over (its close) is no loss
  let wake: () => void = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poke = () => wake();
  opts.signal?.addEventListener("abort", poke);

  const lose = (s: Slot, why: string) => {
    if (s.lost || finished || opts.signal?.aborted) return;
    s.lost = why;
    const lost = [...s.inFlight.keys()];
    for (const c of s.inFlight.values()) c.abort();
    s.inFlight.clear();
    for (const job of lost) opts.onEpisode(lostRecord(job, settings, `node ${s.w.node} lost: ${why}`));
    queue.unshift(...lost);
    const left = slots.filter((x) => !x.lost).length;
    note(
      `node ${s.w.node} lost (${why}): ${lost.length} episode(s) re-queued; ${left} node${left === 1 ? "" : "s"} left`,
    );
    try {
      s.w.retire?.(why);
    } catch { /* best effort */ }
    poke();
  };
  for (const s of slots) s.w.gone?.then((why) => lose(s, why));

  const send = (s: Slot, job: EpisodeJobSpec) => {
    const ctl = new AbortController();
    s.inFlight.set(job, ctl);
    const req: EpisodeRequest = {
      settings,
      row: job.row,
      rowId: job.rowId,
      sample: job.sample,
      ...(job.policy ? { policy: job.policy } : {}),
    };
    s.w.runEpisode(req, { signal: ctl.signal, timeoutMs }).then(
      (t) => {
        if (s.inFlight.get(job) !== ctl) return; // written off meanwhile: recorded and re-queued already
        s.inFlight.delete(job);
        if (!opts.signal?.aborted) opts.onEpisode(t.node ? t : { ...t, node: s.w.node });
      },
      (e) => {
        if (s.inFlight.get(job) !== ctl) return;
        s.inFlight.delete(job);
        if (opts.signal?.aborted) return;
        if (e instanceof WorkerEpisodeError && e.kind === "busy") {
          queue.unshift(job);
          s.restUntil = Date.now() + (e.retryAfterSec !== undefined ? e.retryAfterSec * 1000 : backoff);
        } else if (e instanceof WorkerEpisodeError && (e.kind === "bad_request" || e.kind === "unauthorized")) {
          failure ??= new UsageError(
            `the worker on ${s.w.node} refused an episode of ${job.row.task_dir}: ${e.message}`,
          );
        } else if (e instanceof WorkerLost || e instanceof WorkerEpisodeError) {
          s.inFlight.set(job, ctl); // lose() records and re-queues it with the others
          lose(s, e instanceof WorkerLost ? e.message.replace(/^.*is lost: /, "") : `infra: ${e.message}`);
        } else {
          failure ??= e as Error;
        }
      },
    ).finally(poke);
  };

  try {
    while (true) {
      if (opts.signal?.aborted) return;
      if (failure) throw failure;
      const alive = slots.filter((s) => !s.lost);
      const busy = slots.some((s) => s.inFlight.size);
      if (!queue.length && !busy) return;
      if (!alive.length) {
        const why = slots.map((s) => `${s.w.node}: ${s.lost}`).join("; ");
        throw new AllWorkersLost(`every node is lost (${why}); ${queue.length} episode(s) not run, re-run to resume`);
      }
      const now = Date.now();
      // The job goes to the worker with the most room, resting ones left alone.
      while (queue.length) {
        const ready = alive.filter((s) => s.inFlight.size < s.w.capacity && s.restUntil <= now);
        if (!ready.length) break;
        ready.sort((a, b) => a.inFlight.size / a.w.capacity - b.inFlight.size / b.w.capacity);
        send(ready[0], queue.shift()!);
      }
      const rest = alive.filter((s) => s.restUntil > now).map((s) => s.restUntil - now);
      await new Promise<void>((r) => {
        wake = r;
        if (queue.length && rest.length) timer = setTimeout(r, Math.min(...rest));
      });
      clearTimeout(timer);
    }
  } finally {
    finished = true;
    opts.signal?.removeEventListener("abort", poke);
    for (const s of slots) for (const c of s.inFlight.values()) c.abort();
  }
}

/** The record of an episode its worker lost: an infrastructure error of stage `node`, superseded by its re-run. */
export function lostRecord(job: EpisodeJobSpec, settings: EpisodeSettings, error: string): Trajectory {
  const key = profileKey(job, settings);
  const p = job.policy ?? settings.policy;
  // As the worker's policies name themselves: a script by its label, an endpoint by its URL, the others by kind.
  const policy = p.kind === "script"
    ? p.name
    : p.kind === "endpoint"
    ? `endpoint ${p.url.replace(/\/+$/, "")}`
    : p.kind === "exploit"
    ? `exploit:${p.name}`
    : p.kind;
  const rec = new EpisodeRecord({ rowId: job.rowId, sample: job.sample, taskDir: job.row.task_dir }, key, policy, {
    model: settings.model,
  });
  try {
    rec.base.profile = resolveProfileName(key);
  } catch { /* the key stands */ }
  const node = /^node (\S+)/.exec(error)?.[1];
  return { ...rec.refused(error, "node"), ...(node ? { node } : {}) };
}

/** The profile the worker drew (or would draw) for the job, as HarborEnv.pick does. */
function profileKey(job: EpisodeJobSpec, s: EpisodeSettings): string {
  if (job.row.harness_profile) return job.row.harness_profile;
  const weights = s.profiles ?? { [s.profile ?? NO_PROFILE_DIALECT]: 1 };
  return drawProfile(weights, s.seed ?? 0, job.rowId, job.row.task_dir);
}
