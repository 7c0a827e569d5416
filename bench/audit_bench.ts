/**
 * `deno task bench:audit`: how long `harbor audit` takes per task, on the fixtures of tests/fixtures/audit/ (13 small
 * tasks, each with the oracle, the nop and the whole battery, racing exploits several times: 22 episodes), in each task's own mode and then with every
 * mode on a few of them, on the default runtime. Prints wall time, seconds per task and episodes a minute; asserts
 * nothing; leaves nothing behind. AUDIT_WORKERS (4), AUDIT_ALL_MODES_TASKS (3).
 */
import { resolve } from "node:path";
import { auditTasks } from "../lib/harbor/audit/audit.ts";
import { BATTERY } from "../lib/harbor/audit/battery.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import { findTasks } from "../lib/task/task.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();
const WORKERS = Number(Deno.env.get("AUDIT_WORKERS") ?? 4);
const ALL_MODES_TASKS = Number(Deno.env.get("AUDIT_ALL_MODES_TASKS") ?? 3);
const dirs = await findTasks(resolve(import.meta.dirname!, "..", "tests", "fixtures", "audit"));
const runtime = createRuntime();
if (!await runtime.ping()) {
  console.error(`bench: no ${runtime.kind} engine answers at ${runtime.engine}`);
  Deno.exit(1);
}
const perTask = 2 + BATTERY.reduce((n, x) => n + (x.tries ?? 1), 0);

async function point(label: string, tasks: string[], allModes: boolean): Promise<void> {
  const t = performance.now();
  const results = await auditTasks(tasks, { workers: WORKERS, runtime, allModes });
  const s = (performance.now() - t) / 1000;
  const episodes = results.reduce((n, r) => n + r.modes.length * perTask, 0);
  const hackable = results.filter((r) => r.hackable).length;
  console.log(
    `  ${label}: ${tasks.length} tasks, ${episodes} episodes in ${s.toFixed(1)} s: ${
      (s / tasks.length).toFixed(1)
    } s ` +
      `a task, ${(episodes / s * 60).toFixed(0)} episodes/min (${hackable} hackable)`,
  );
}

console.log(
  `harbor audit on ${runtime.kind}, --workers ${WORKERS} (${2 * WORKERS} episodes at once), ${perTask} episodes a ` +
    `task and mode, ${navigator.hardwareConcurrency} cores, load ${Deno.loadavg()[0].toFixed(1)}:`,
);
await point("own mode", dirs, false);
await point("--all-modes", dirs.slice(0, ALL_MODES_TASKS), true);
