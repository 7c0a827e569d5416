/**
 * `harbor rows`: one training row per task, `{"task_dir", "messages": [system, user]}`, in the dialect HarborEnv
 * uses without a profile (`NO_PROFILE_DIALECT`, looked up in the process's registry).
 */
import { fillTemplate } from "../harness/profile_episode.ts";
import { getProfile, NO_PROFILE_DIALECT } from "../harness/registry.ts";
import { createRuntime } from "../runtime/registry.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { ImageStore } from "../runtime/images.ts";
import { findTasks, loadTask } from "../task/task.ts";
import { taskWorkdir } from "../runtime/workdir.ts";

/** A chat message of a row. */
export interface RowMessage {
  /** Who the message is from. */
  role: "system" | "user";
  /** The message text. */
  content: string;
}

/** One row: the task directory (absolute) and the first messages. */
export interface HarborRow {
  /** The task directory, absolute. */
  task_dir: string;
  /** The system message (unless `noSystem`) and the user message (the instruction). */
  messages: RowMessage[];
}

/** Options of `harborRows`. */
export interface RowsOptions {
  /** Leave the system message out (default false). */
  noSystem?: boolean;
  /**
   * The engine that tells a task's working directory when only its image can (no `workdir` in task.toml and a
   * WORKDIR that the Dockerfile does not decide); default: the environment's.
   */
  runtime?: Runtime;
}

/** Builds a row for every task under `path` (or the one task at `path`), in directory order. */
export async function harborRows(path: string, opts: RowsOptions = {}): Promise<HarborRow[]> {
  const rows: HarborRow[] = [];
  let store: ImageStore | undefined;
  const images = () => store ??= new ImageStore(opts.runtime ?? createRuntime());
  const system = opts.noSystem ? undefined : getProfile(NO_PROFILE_DIALECT).system;
  for (const dir of await findTasks(path)) {
    const task = await loadTask(dir);
    const messages: RowMessage[] = [];
    if (system !== undefined) {
      messages.push({ role: "system", content: fillTemplate(system, { workdir: await taskWorkdir(task, images) }) });
    }
    messages.push({ role: "user", content: task.instruction });
    rows.push({ task_dir: task.dir, messages });
  }
  return rows;
}

/** Writes rows as JSONL atomically: a temporary file renamed into place, so no partial file is ever left. */
export async function writeJsonl(out: string, rows: unknown[]): Promise<void> {
  const tmp = `${out}.tmp-${Deno.pid}`;
  try {
    await Deno.writeTextFile(tmp, rows.map((r) => JSON.stringify(r) + "\n").join(""));
    await Deno.rename(tmp, out);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}
