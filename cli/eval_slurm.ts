/**
 * `pgs eval --slurm`: the run's episodes go to one pgs worker per node of a Slurm allocation (lib/cluster), started
 * once the run is checked, and ended (their steps stopped, an allocation pgs asked for released) when it ends, on
 * Ctrl-C or SIGTERM too.
 */
import type { EvalConfig } from "../lib/eval/config.ts";
import type { EvalHooks } from "../lib/eval/eval_run.ts";
import { runOnWorkers } from "../lib/cluster/dispatch.ts";
import { stopAllSync } from "../lib/cluster/slurm.ts";
import { startSlurmWorkers } from "../lib/cluster/slurm_workers.ts";
import { episodeSettings } from "../lib/cluster/worker_protocol.ts";
import { onSignal } from "./signals.ts";

/** How long a signal's exit waits for the workers' steps to end (they remove their boxes) before killing them. */
const STOP_GRACE_MS = 8_000;

/** The `runJobs` hook of a `--slurm` run of `cfg`; `note` prints one line for the user. */
export function slurmRunJobs(cfg: EvalConfig, note: (line: string) => void): NonNullable<EvalHooks["runJobs"]> {
  return async (jobs, ctx) => {
    if (!jobs.length) return;
    const settings = await episodeSettings(cfg, ctx.model);
    const s = cfg.slurm ?? {};
    // A signal ends every step and the allocation, synchronously, whatever the run is doing then.
    const off = onSignal("exit", () => stopAllSync(STOP_GRACE_MS));
    try {
      const sw = await startSlurmWorkers({
        nodes: s.nodes,
        partition: s.partition,
        time: s.time,
        maxConcurrent: cfg.maxConcurrent,
        maxStarting: cfg.maxStarting,
        runtime: cfg.runtime,
        signal: ctx.signal,
        onNote: note,
      });
      try {
        const names = sw.workers.map((w) => `${w.node} (${w.capacity})`).join(", ");
        note(
          `${jobs.length} episode(s) over ${sw.workers.length} node(s) of Slurm job ${sw.allocation.jobId}: ${names}`,
        );
        await runOnWorkers(sw.workers, jobs, settings, { onEpisode: ctx.onEpisode, onNote: note, signal: ctx.signal });
      } finally {
        await sw.close();
      }
    } finally {
      off();
    }
  };
}
