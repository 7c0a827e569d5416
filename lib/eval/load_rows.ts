/** The rows an eval runs: every task under a folder, one task, or a rows JSONL (`harbor rows` output or hand-made). */
import { dirname, resolve } from "node:path";
import { UsageError } from "../base/errors.ts";
import type { EnvRow } from "../env/harbor_env.ts";
import { findTasks } from "../task/task.ts";
import { pickRow, rowProblem } from "../env/row_check.ts";

/** Parses a rows JSONL; relative `task_dir`s are taken from the file's folder. Errors name the file and line. */
export function parseRows(text: string, file: string): EnvRow[] {
  const rows: EnvRow[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${file}:${i + 1}`;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line);
    } catch (e) {
      throw new UsageError(`${where}: not JSON (${(e as Error).message})`);
    }
    if (!o || typeof o !== "object" || Array.isArray(o)) throw new UsageError(`${where}: expected a JSON object`);
    const problem = rowProblem(o);
    if (problem) throw new UsageError(`${where}: ${problem}`);
    rows.push({ ...pickRow(o), task_dir: resolve(dirname(file), o.task_dir as string) });
  });
  if (!rows.length) throw new UsageError(`${file}: no rows`);
  return rows;
}

/** Rows for `path`: a `.jsonl` file is read as rows, anything else as a task or a folder of tasks. */
export async function loadRows(path: string): Promise<EnvRow[]> {
  if (path.endsWith(".jsonl")) {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      throw new UsageError(`--tasks ${path}: cannot read (${(e as Error).message})`);
    }
    return parseRows(text, path);
  }
  const dirs = await findTasks(path);
  return dirs.map((d) => ({ task_dir: resolve(d) }));
}
