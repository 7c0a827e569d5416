/**
 * `harbor audit --slurm`: the audit's episodes (per task and mode: Harbor's oracle, the nop and each exploit's
 * scripts) run on one pgs worker per node of a Slurm allocation, each episode carrying its own policy. The workers
 * start with the first mode's episodes and serve every mode; a node lost in one mode is left out of the next.
 */
import { resolve } from "node:path";
import type { AuditOptions } from "../harbor/audit/audit.ts";
import { checkSettings, type SlurmCheckOptions, startCheckWorkers } from "./check_jobs.ts";
import { type DispatchWorker, type EpisodeJobSpec, runOnWorkers } from "./dispatch.ts";
import type { SlurmWorkers } from "./slurm_workers.ts";

/** The audit's `runJobs` on a Slurm allocation, and the end of its workers. */
export interface SlurmAudit {
  /** `AuditOptions.runJobs`: one mode's episodes on the workers (started by the first call). */
  runJobs: NonNullable<AuditOptions["runJobs"]>;
  /** Stops the workers and releases the allocation pgs asked for; nothing when none started. */
  close(): Promise<void>;
}

/** A worker the dispatcher may write off: once it has, `retired` says so and the next mode goes without it. */
function tracked(w: DispatchWorker): DispatchWorker & { retired: boolean } {
  const t = {
    node: w.node,
    capacity: w.capacity,
    runEpisode: w.runEpisode.bind(w),
    gone: w.gone,
    retired: false,
    retire(why: string) {
      t.retired = true;
      w.retire?.(why);
    },
  };
  return t;
}

/** The audit's episodes on the workers of a Slurm allocation (`opts.maxConcurrent` per worker). */
export function slurmAuditJobs(opts: SlurmCheckOptions): SlurmAudit {
  const note = opts.onNote ?? ((l: string) => console.error(l));
  let started: Promise<{ sw: SlurmWorkers; workers: ReturnType<typeof tracked>[] }> | undefined;
  const start = async () => {
    const sw = await startCheckWorkers(opts, note, "episodes");
    return { sw, workers: sw.workers.map(tracked) };
  };
  return {
    async runJobs(jobs, verifierMode, onEpisode) {
      started ??= start();
      const { workers } = await started;
      const specs: EpisodeJobSpec[] = jobs.map((j) => ({
        row: { ...j.row, task_dir: resolve(j.row.task_dir) }, // a path every node sees
        rowId: j.rowId,
        sample: j.sample,
        policy: j.agent,
      }));
      // Every episode names its own policy; the settings' (the nop) answers none.
      const settings = checkSettings("nop", { ...opts, verifierMode });
      await runOnWorkers(workers.filter((w) => !w.retired), specs, settings, {
        onEpisode,
        onNote: note,
        signal: opts.signal,
      });
    },
    async close() {
      const s = await started?.catch(() => undefined);
      await s?.sw.close();
    },
  };
}
