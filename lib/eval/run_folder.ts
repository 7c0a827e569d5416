/**
 * An eval run's folder: `run.json` (the settings, so that a re-run resumes only the same run), `trajectories.jsonl`,
 * `summary.json`, `report.html` and `viewer.html`. A folder of someone else's files is refused, and so is one holding a
 * run with other settings (unless `redo`).
 */
import { join, resolve } from "node:path";
import { warnOnce } from "../base/warn.ts";
import { UsageError } from "../base/errors.ts";
import { type EvalConfig, isRecord } from "./config.ts";
import { gitRevision, PGS_VERSION, RUN_FORMAT, type RunRecord } from "./run_record.ts";

/** The files of a run's folder. */
export interface RunPaths {
  /** run.json: the settings. */
  run: string;
  /** trajectories.jsonl: one line per finished episode. */
  traj: string;
  /** summary.json. */
  summary: string;
  /** report.html. */
  report: string;
  /** viewer.html. */
  viewer: string;
}

/** A run's folder, opened: where it is, its files, and the record written to run.json. */
export interface RunFolder {
  /** The folder, absolute. */
  out: string;
  /** Its files. */
  paths: RunPaths;
  /** What run.json now says. */
  record: RunRecord;
}

/**
 * Opens `cfg.out` for a run whose settings are `settings` (`fingerprint`), `model` its model and `rows` its row
 * count: made when new, resumed when it holds the same run, refused otherwise; run.json written.
 */
export async function openRunFolder(
  cfg: EvalConfig,
  settings: Record<string, unknown>,
  model: string | undefined,
  rows: number,
): Promise<RunFolder> {
  const out = resolve(cfg.out);
  await refuseForeignFolder(cfg.out, out);
  await Deno.mkdir(out, { recursive: true });
  const paths = {
    run: join(out, "run.json"),
    traj: join(out, "trajectories.jsonl"),
    summary: join(out, "summary.json"),
    report: join(out, "report.html"),
    viewer: join(out, "viewer.html"),
  };
  if (cfg.redo) {
    for (const p of Object.values(paths)) await Deno.remove(p).catch(() => {});
  }
  let startedAt: string | undefined;
  try {
    const prevRun: unknown = JSON.parse(await Deno.readTextFile(paths.run));
    const prev = isRecord(prevRun) ? prevRun.settings : undefined;
    if (isRecord(prevRun) && typeof prevRun.started_at === "string") startedAt = prevRun.started_at;
    // Both sides' keys: a setting present in only one of them (tokens, cross) differs too.
    for (const k of new Set([...Object.keys(settings), ...Object.keys(isRecord(prev) ? prev : {})])) {
      if (!isRecord(prev)) break; // not a run's folder
      if (JSON.stringify(prev[k] ?? null) !== JSON.stringify(settings[k] ?? null)) {
        throw new UsageError(
          `--out ${cfg.out} holds a run with other settings (${k}: ${JSON.stringify(prev[k] ?? null)} → ${
            JSON.stringify(settings[k] ?? null)
          }); use --redo or another --out`,
        );
      }
    }
    // k is recorded beside the settings: another k would mix samples of two runs in one summary.
    if (isRecord(prevRun) && typeof prevRun.k === "number" && prevRun.k !== cfg.k) {
      throw new UsageError(
        `--out ${cfg.out} holds a run with other settings (k: ${prevRun.k} → ${cfg.k}); use --redo or another --out`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
  }
  const now = new Date().toISOString();
  const tasksGit = await gitRevision(cfg.tasks);
  const record: RunRecord = {
    format: RUN_FORMAT,
    settings,
    k: cfg.k,
    cross: cfg.cross,
    ...(model ? { model } : {}),
    pgs_version: PGS_VERSION,
    ...(tasksGit ? { tasks_git_revision: tasksGit } : {}),
    started_at: startedAt ?? now,
    ...(startedAt ? { resumed_at: now } : {}),
  };
  writeAtomic(paths.run, JSON.stringify(record, null, 2) + "\n");
  const weighted = Object.values(cfg.profiles ?? {}).filter((w) => w > 0).length;
  if (!cfg.cross && weighted > rows) {
    // Each row draws one profile for its k samples: fewer rows than profiles leave some profile undrawn. Said once
    // the run will go ahead, so that a refused run's error stays its only line.
    warnOnce(
      `${rows} task${rows === 1 ? "" : "s"} for a mix of ${weighted} profiles: each task draws one ` +
        `profile for its samples, so some profiles run on no task (--cross runs every profile on every task)`,
      "mix-too-few-tasks",
    );
  }
  return { out, paths, record };
}

/** Writes `text` to `path` whole: a reader never sees half a file. */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${Deno.pid}`;
  Deno.writeTextFileSync(tmp, text);
  Deno.renameSync(tmp, path);
}

/** The files a pgs eval folder holds; a folder with anything else is someone's, not a run's. */
const RUN_FILES = new Set(["run.json", "trajectories.jsonl", "summary.json", "report.html", "viewer.html"]);

/** Refuses `--out` when it is an existing folder with files, none of them a run's `run.json` (pgs would write beside them). */
async function refuseForeignFolder(given: string, out: string): Promise<void> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(out)) names.push(e.name);
  } catch {
    return; // not there yet (or not a folder: the mkdir says so)
  }
  if (names.length === 0 || names.includes("run.json")) return;
  if (names.every((n) => RUN_FILES.has(n) || n.startsWith(".") && n.includes(".partial"))) return;
  throw new UsageError(
    `--out ${given} is a folder holding other files (${names.slice(0, 3).join(", ")}${
      names.length > 3 ? ", ..." : ""
    }) and no pgs run (run.json); give a new or empty folder`,
  );
}
