/**
 * An eval run in an output folder: `run.json` (the settings), `trajectories.jsonl` (appended as episodes end),
 * `summary.json`, `report.html` and `viewer.html` (written at the end, and on Ctrl-C for what finished). A re-run
 * with the same folder skips finished episodes (and retries infrastructure errors) unless `redo`.
 */
import { EngineDownError } from "../base/errors.ts";
import type { EvalConfig } from "./config.ts";
import { Progress } from "./progress.ts";
import { reportHtml } from "../report/report_html.ts";
import { viewerData } from "../report/viewer_data.ts";
import { viewerHtml } from "../report/viewer_html.ts";
import { rowIds, runEpisodes } from "./run_episodes.ts";
import type { EnvRow } from "../env/harbor_env.ts";
import { readRunInfo, runHeader, runTitle } from "./records/run_dir.ts";
import { summarize, type Summary } from "./records/summary.ts";
import { latestById, readTrajectories, type Trajectory, trajectoryId, TrajectoryWriter } from "./records/trajectory.ts";
import { fingerprint, podBudget, prepareRun } from "./run_setup.ts";
import { openRunFolder, writeAtomic } from "./run_folder.ts";

export { policyFor } from "./run_setup.ts";

/** Where a run reports each finished episode, and that it is over. */
export interface ProgressSink {
  /** One episode finished (or was skipped on resume). */
  episode(t: Trajectory): void;
  /** The run is over. */
  close(): void;
}

/** Hooks of a run, for the CLI. */
export interface EvalHooks {
  /** Stops the run (Ctrl-C). */
  signal?: AbortSignal;
  /** Progress output (default: a Progress on stderr). */
  progress?: (total: number, already: number) => ProgressSink;
  /** Receives a function that writes summary.json and report.html now, synchronously (for signal handlers). */
  onFlush?: (flush: () => void) => void;
  /**
   * Runs the episodes somewhere else than on this host's engines (`pgs eval --slurm`: on the workers of a Slurm
   * allocation), reporting each record through `ctx.onEpisode` (default: `runEpisodes` here).
   */
  runJobs?: (jobs: EvalJob[], ctx: EvalJobsContext) => Promise<void>;
}

/** One episode of a run handed to `EvalHooks.runJobs`: the row (its task_dir absolute), its id and the sample. */
export interface EvalJob {
  /** The row (crossed rows pin their profile). */
  row: EnvRow;
  /** The row's id (`rowIds`). */
  rowId: string;
  /** The 0-based sample. */
  sample: number;
}

/** What `EvalHooks.runJobs` gets besides the jobs. */
export interface EvalJobsContext {
  /** The model recorded on trajectories, as the run resolved it. */
  model?: string;
  /** Records one episode (appends it to trajectories.jsonl); a later record of the same id supersedes it. */
  onEpisode: (t: Trajectory) => void;
  /** Stops the run. */
  signal?: AbortSignal;
}

/** What `evaluate` returns. */
export interface EvalResult {
  /** The summary written to summary.json. */
  summary: Summary;
  /** The output folder, absolute. */
  out: string;
  /** Episodes run now, and skipped as already done. */
  ran: number;
  /** Episodes skipped as already finished by an earlier run. */
  skipped: number;
}

/**
 * Runs (or resumes) an eval into `cfg.out`, in the order a reader would: prepare, open the folder, skip what is done,
 * run the episodes, write the files.
 */
export async function evaluate(cfg: EvalConfig, hooks: EvalHooks = {}): Promise<EvalResult> {
  // 1. Everything the run needs, each failure one line before anything runs.
  const { overlays, rows, policy, model, hosts } = await prepareRun(cfg, { engines: !hooks.runJobs });
  // 2. The output folder: a new run, or the same run resumed (other settings are refused).
  const { out, paths, record } = await openRunFolder(cfg, fingerprint(cfg, overlays), model, rows.length);
  // 3. What is done: finished episodes are skipped, infrastructure errors retried.
  const existing = readTrajectories(paths.traj);
  const rids = rowIds(rows);
  const ids = new Set(rids);
  const all: Trajectory[] = existing.filter((t) => ids.has(t.row_id) && t.sample < cfg.k);
  const done = new Set(latestById(all).filter((t) => t.reward !== null).map((t) => t.id));
  const expected = rows.length * cfg.k;
  const already = rids.flatMap((id) => Array.from({ length: cfg.k }, (_, s) => trajectoryId(id, s)))
    .filter((id) => done.has(id)).length;
  // 4. The files a reader opens, written at the end and whenever the CLI flushes (Ctrl-C).
  const header = runHeader({ ...record });
  // The title `pgs view` gives the same run, from the run.json just written (read once, not at every flush).
  const title = runTitle(out, readRunInfo(out));
  const flush = () => {
    const mix = cfg.profiles && !cfg.cross ? Object.keys(cfg.profiles).filter((k) => cfg.profiles![k] > 0) : undefined;
    const summary = summarize(all, { k: cfg.k, expected, passThreshold: cfg.passThreshold, cross: cfg.cross, mix });
    writeAtomic(paths.summary, JSON.stringify(summary, null, 2) + "\n");
    writeAtomic(paths.report, reportHtml(summary, title, all, { viewer: "viewer.html", run: header }));
    writeAtomic(
      paths.viewer,
      viewerHtml(viewerData(all, { title, passThreshold: summary.pass_threshold, k: cfg.k }), {
        report: "report.html",
      }),
    );
    return summary;
  };
  // 5. The episodes, each appended to trajectories.jsonl as it ends.
  hooks.onFlush?.(flush);
  const writer = new TrajectoryWriter(paths.traj);
  const progress = hooks.progress?.(expected, already) ?? new Progress(expected, already, cfg.passThreshold);
  let ran = 0;
  const onEpisode = (t: Trajectory) => {
    writer.append(t);
    all.push(t);
    ran++;
    progress.episode(t);
  };
  try {
    if (hooks.runJobs) await hooks.runJobs(evalJobs(cfg, rows, done), { model, onEpisode, signal: hooks.signal });
    else {await runEpisodes(policy, rows, {
        profile: cfg.profile,
        profiles: cfg.profiles,
        profileSeed: cfg.seed,
        harnessModel: cfg.harnessModel,
        overlays,
        chatTemplateKwargs: cfg.chatTemplateKwargs,
        profileChatKwargs: cfg.profileChatTemplateKwargs,
        maxOutput: cfg.maxOutput,
        images: cfg.images,
        verifierMode: cfg.verifierMode,
        storageMb: cfg.storageMb,
        podBudget: podBudget(cfg),
      }, {
        k: cfg.k,
        maxTurns: cfg.maxTurns,
        maxConcurrent: cfg.maxConcurrent,
        maxStarting: cfg.maxStarting,
        hosts,
        runtime: cfg.runtime,
        cross: cfg.cross,
        workdirDiff: cfg.workdirDiff,
        skip: done,
        signal: hooks.signal,
        model: cfg.policy.kind === "endpoint" ? undefined : cfg.model,
        onEpisode,
      });}
  } catch (e) {
    // Workers elsewhere all lost (or refusing): what finished is kept, with its summary, for a re-run to resume.
    if (hooks.runJobs && !hooks.signal?.aborted) flush();
    if (e instanceof EngineDownError) {
      // What finished is kept, whole: its summary is written, and a re-run resumes once the engine answers again.
      flush();
      throw new EngineDownError(
        e.engine,
        e.stage,
        `${
          e.message.replace(/^.*\((.*)\)$/, "$1")
        }; ${ran} episode(s) finished now are kept in ${out}, re-run to resume`,
        e.kind,
      );
    }
    throw e;
  } finally {
    progress.close();
  }
  return { summary: flush(), out, ran, skipped: already };
}

/** The episodes of a run (its rows already crossed) not yet done, sample by sample (every row's sample 0 first), as `runEpisodes` orders them. */
function evalJobs(cfg: EvalConfig, rows: EnvRow[], done: Set<string>): EvalJob[] {
  const ids = rowIds(rows);
  const jobs: EvalJob[] = [];
  for (let s = 0; s < cfg.k; s++) {
    rows.forEach((row, i) => {
      if (!done.has(trajectoryId(ids[i], s))) jobs.push({ row, rowId: ids[i], sample: s });
    });
  }
  return jobs;
}
