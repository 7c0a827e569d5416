/**
 * Reading an eval run's folder without changing it (exports, the viewer): a run still going may be appending a line
 * right now, so a torn last line is skipped here, never cut off the file as a resuming run does (`readTrajectories`).
 */
import { basename, join, resolve } from "node:path";
import { DEFAULT_PASS_THRESHOLD } from "./summary.ts";
import { latestById, type Trajectory, TRAJECTORY_FORMAT } from "./trajectory.ts";

/** The episodes of the run in `runDir` (its `trajectories.jsonl`), the latest record per episode id. */
export function readRunTrajectories(runDir: string): Trajectory[] {
  const path = join(runDir, "trajectories.jsonl");
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new Error(`${runDir}: no trajectories.jsonl (not a pgs eval --out)`);
    throw e;
  }
  const lines = text.split("\n");
  // The part after the last newline is a record still being written (or nothing).
  lines.pop();
  const out: Trajectory[] = [];
  lines.forEach((line, i) => {
    if (line === "") return;
    let t: Trajectory;
    try {
      t = JSON.parse(line);
    } catch (e) {
      throw new Error(`${path}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    if (t?.format !== TRAJECTORY_FORMAT) {
      throw new Error(`${path}:${i + 1}: not a ${TRAJECTORY_FORMAT} record (format ${JSON.stringify(t?.format)})`);
    }
    out.push(t);
  });
  return latestById(out);
}

/** What a run's folder says of the run besides its episodes. */
export interface RunInfo {
  /** Samples per task (run.json), null when the folder has no run.json. */
  k: number | null;
  /** The pass threshold (summary.json; the default while the run has written none). */
  passThreshold: number;
  /** The tasks file or folder the run read (run.json), when known. */
  tasks?: string;
  /** The policy's label (run.json), when known. */
  policy?: string;
  /** What the report's header shows of the run (run.json), as far as it says. */
  header: RunHeader;
}

/** What report.html's header shows of a run; each field is absent when the run does not say. */
export interface RunHeader {
  /** The model. */
  model?: string;
  /** When the first run into the folder started, ISO 8601. */
  started_at?: string;
  /** When the latest run into the folder started, ISO 8601. */
  resumed_at?: string;
  /** Samples per row. */
  k?: number;
  /** The seed of the profile draw. */
  seed?: number;
  /** The turn limit (a row's own wins). */
  max_turns?: number;
  /** The pgs version that ran it. */
  pgs_version?: string;
  /** The tasks file or folder. */
  tasks?: string;
  /** The git revision of the tasks' folder. */
  tasks_git_revision?: string;
  /** The policy's label. */
  policy?: string;
  /** The profile, or the mix as name=weight, .... */
  profiles?: string;
  /** Every profile ran on every task. */
  cross?: boolean;
}

/** The header fields of a run.json record (any shape: what is not there, or not of its type, is left out). */
export function runHeader(run: Record<string, unknown> | undefined): RunHeader {
  const settings = (run?.settings && typeof run.settings === "object" ? run.settings : {}) as Record<string, unknown>;
  const str = (v: unknown) => typeof v === "string" && v ? v : undefined;
  const int = (v: unknown) => typeof v === "number" && Number.isFinite(v) ? v : undefined;
  const mix = settings.profiles && typeof settings.profiles === "object"
    ? Object.entries(settings.profiles as Record<string, unknown>).map(([p, w]) => `${p}=${w}`).join(", ")
    : str(settings.profile);
  const h: RunHeader = {
    model: str(run?.model) ?? str(settings.model),
    started_at: str(run?.started_at),
    resumed_at: str(run?.resumed_at),
    k: int(run?.k),
    seed: int(settings.seed),
    max_turns: int(settings.maxTurns),
    pgs_version: str(run?.pgs_version),
    tasks: str(settings.tasks),
    tasks_git_revision: str(run?.tasks_git_revision),
    policy: str(settings.policy),
    profiles: mix || undefined,
    cross: typeof run?.cross === "boolean" ? run.cross : undefined,
  };
  return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as RunHeader;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Deno.readTextFileSync(path));
    return v && typeof v === "object" ? v : undefined;
  } catch {
    return undefined; // absent, or being replaced right now: what it says is optional here
  }
}

/** run.json's k and settings, and summary.json's pass threshold, as far as they are there. */
export function readRunInfo(runDir: string): RunInfo {
  const run = readJson(join(runDir, "run.json"));
  const summary = readJson(join(runDir, "summary.json"));
  const settings = (run?.settings ?? {}) as Record<string, unknown>;
  return {
    k: typeof run?.k === "number" ? run.k : null,
    passThreshold: typeof summary?.pass_threshold === "number" ? summary.pass_threshold : DEFAULT_PASS_THRESHOLD,
    ...(typeof settings.tasks === "string" ? { tasks: settings.tasks } : {}),
    ...(typeof settings.policy === "string" ? { policy: settings.policy } : {}),
    header: runHeader(run),
  };
}

/** A run's title for its pages: its tasks and policy when run.json names them, else the folder's name. */
export function runTitle(runDir: string, info: RunInfo): string {
  return info.tasks
    ? `pgs eval: ${info.tasks}${info.policy ? ` (${info.policy})` : ""}`
    : `pgs run ${basename(resolve(runDir))}`;
}
