/**
 * Reading an eval run's folder for the exports, and writing their output whole. The run is only read: a run still
 * going may be appending a line right now, so a torn last line is skipped here, never cut off the file as a resuming
 * run does (`readTrajectories`).
 */
import { join } from "node:path";
import { latestById, type Trajectory, TRAJECTORY_FORMAT } from "../eval/trajectory.ts";

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

/** Where an export writes before it renames its output into place: beside it, so the rename stays on one disk. */
export function partialPath(out: string): string {
  return `${out}.partial-${Deno.pid}`;
}

/**
 * Runs `write(tmp)` on a fresh temporary path beside `out`, then renames it to `out`: readers see all of the output or
 * none of it. On any error the temporary file or folder is removed and the error rethrown.
 */
export async function writeWhole<T>(out: string, write: (tmp: string) => Promise<T>): Promise<T> {
  const tmp = partialPath(out);
  try {
    const r = await write(tmp);
    await Deno.rename(tmp, out);
    return r;
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
}
