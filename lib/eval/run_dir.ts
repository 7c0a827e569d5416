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
  };
}

/** A run's title for its pages: its tasks and policy when run.json names them, else the folder's name. */
export function runTitle(runDir: string, info: RunInfo): string {
  return info.tasks
    ? `pgs eval: ${info.tasks}${info.policy ? ` (${info.policy})` : ""}`
    : `pgs run ${basename(resolve(runDir))}`;
}
