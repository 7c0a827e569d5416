/** `pgs harbor check PATH [--workers N] [--json]`. */
import { type CheckResult, checkTasks, DEFAULT_CHECK_WORKERS } from "../lib/harbor/check.ts";
import { UsageError } from "../lib/base/errors.ts";
import { findTasks, type Task } from "../lib/task/task.ts";
import { taskSetNotes } from "../lib/task/task_set_notes.ts";
import {
  answeringRuntime,
  type Command,
  parseFlags,
  POD_BUDGET_FLAGS,
  POD_BUDGET_HELP,
  podBudgetFlags,
  positiveInt,
  RUNTIME_HELP,
  STORAGE_MB_HELP,
  storageMbFlag,
  VERIFIER_MODE_HELP,
  verifierModeFlag,
} from "./args.ts";
import { rewardText, TaskProgress } from "./task_progress.ts";

const usage = `Usage: pgs harbor check PATH [--workers N] [--json] [--verifier-mode M] [--runtime R]
                        [--storage-mb N] [--pod-cpus N] [--pod-memory-mb N]

Runs, for every task directory under PATH (or the one task at PATH), a nop episode (nothing done) and an oracle
episode (solution/solve.sh), both through the real verifier. A task is valid when the oracle scores 1 and the nop
below 1. Exit code 1 if any task is invalid.

Options:
  --workers N   tasks checked at once (default ${DEFAULT_CHECK_WORKERS})
  --json        print a JSON array: per task name, valid, verifier mode, oracle and nop rewards, exit statuses,
                solve.sh's exit code and stderr tail, metrics, timings, error, hints and the last 4 kB of each
                test.sh output
${VERIFIER_MODE_HELP}
${STORAGE_MB_HELP}
${POD_BUDGET_HELP}
${RUNTIME_HELP}
  -h, --help    this help`;

function line(r: CheckResult): string {
  const mark = r.valid ? "ok  " : "FAIL";
  const rewards = `oracle ${rewardText(r.oracle?.reward)}  nop ${rewardText(r.nop?.reward)}`;
  const mode = r.verifierMode ? `  [${r.verifierMode}]` : "";
  const hints = (r.hints ?? []).map((h) => `\n     hint: ${h}`).join("");
  return `${mark} ${r.name}  ${rewards}${mode}  ${r.seconds.toFixed(1)}s${r.error ? `  ${r.error}` : ""}${hints}`;
}

function json(r: CheckResult) {
  const ms = (o: CheckResult["oracle"]) =>
    o && Object.fromEntries(Object.entries(o.timings).map(([k, v]) => [k, Math.round(v)]));
  return {
    name: r.name,
    dir: r.dir,
    valid: r.valid,
    verifier_mode: r.verifierMode ?? null,
    oracle_reward: r.oracle?.reward ?? null,
    nop_reward: r.nop?.reward ?? null,
    oracle_exit_status: r.oracle ? r.oracle.exitStatus ?? "infra_error" : null,
    nop_exit_status: r.nop ? r.nop.exitStatus ?? "infra_error" : null,
    oracle_exit_code: r.oracle?.agentExitCode ?? null,
    oracle_stderr: r.oracle?.trajectory.agent_stderr ?? null,
    oracle_metrics: r.oracle?.metrics ?? {},
    nop_metrics: r.nop?.metrics ?? {},
    timings_ms: { oracle: ms(r.oracle), nop: ms(r.nop) },
    seconds: Math.round(r.seconds * 100) / 100,
    error: r.error ?? null,
    hints: r.hints ?? [],
    oracle_test_output: r.oracle?.testOutput ?? null,
    nop_test_output: r.nop?.testOutput ?? null,
  };
}

/** The `harbor check` command. */
export const harborCheck: Command = {
  name: "harbor check",
  summary: "oracle must pass and doing nothing must fail, for every task",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harbor check", argv, {
      workers: { type: "string" },
      json: { type: "boolean" },
      "verifier-mode": { type: "string" },
      "storage-mb": { type: "string" },
      ...POD_BUDGET_FLAGS,
      runtime: { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError("harbor check: expected one PATH (a task or a folder of tasks)");
    const workers = positiveInt("harbor check", "workers", values.workers as string | undefined, DEFAULT_CHECK_WORKERS);
    const verifierMode = verifierModeFlag("harbor check", values["verifier-mode"] as string | undefined);
    const storageMb = storageMbFlag("harbor check", values["storage-mb"] as string | undefined);
    const podBudget = podBudgetFlags("harbor check", values);
    const dirs = await findTasks(positionals[0]);
    const runtime = await answeringRuntime("harbor check", values.runtime as string | undefined);
    const progress = new TaskProgress(dirs.length, "invalid", Boolean(values.json));
    const loaded: Task[] = [];
    const results = await checkTasks(dirs, {
      workers,
      runtime,
      verifierMode,
      storageMb,
      podBudget,
      onTask: (t) => loaded.push(t),
      onResult: (r) => progress.ended(!r.valid, line(r)),
    });
    progress.finish();
    taskSetNotes(loaded);
    if (values.json) console.log(JSON.stringify(results.map(json), null, 2));
    else console.error(`${results.length - progress.bad}/${results.length} tasks valid`);
    return progress.bad ? 1 : 0;
  },
};
