/** Notes on a whole task set, said once per run: where pgs's defaults differ from Harbor's for these tasks. */
import type { Task } from "./task.ts";
import { warnOnce } from "../base/warn.ts";

/** The run's notes on `tasks` (also passed to `warnOnce`): today, how many leave the network unset. */
export function taskSetNotes(tasks: Task[]): string[] {
  const notes: string[] = [];
  const unset = tasks.filter((t) => t.config.environment.networkUnset).length;
  if (unset) {
    notes.push(
      `${unset} of ${tasks.length} tasks leave allow_internet (and network_mode) unset: pgs runs them with no ` +
        `network (pgs's default), Harbor with the network; set [environment] allow_internet = true in a task ` +
        `to match Harbor`,
    );
  }
  for (const n of notes) warnOnce(n);
  return notes;
}
