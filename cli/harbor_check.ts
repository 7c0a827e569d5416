/** `pgs harbor check PATH [--workers N] [--json] [--slurm ...]`. */
import { type CheckOptions, type CheckResult, checkTasks, DEFAULT_CHECK_WORKERS } from "../lib/harbor/check.ts";
import { slurmCheckJobs } from "../lib/cluster/check_jobs.ts";
import { stopAllSync } from "../lib/cluster/slurm.ts";
import type { SlurmSettings } from "../lib/eval/config.ts";
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
  runtimeFlag,
  STORAGE_MB_HELP,
  storageMbFlag,
  VERIFIER_MODE_HELP,
  verifierModeFlag,
} from "./args.ts";
import { rewardText, TaskProgress } from "./task_progress.ts";
import { onSignal } from "./signals.ts";

/** How long a signal's exit waits for the workers' steps to end (they remove their boxes) before killing them. */
export const STOP_GRACE_MS = 8_000;

/** `--slurm`, `--nodes`, `--partition`, `--time` of `cmd`, checked, or undefined without `--slurm`. */
export function slurmCheckFlags(cmd: string, values: Record<string, unknown>): SlurmSettings | undefined {
  const given = ["nodes", "partition", "time"].filter((k) => values[k] !== undefined);
  if (!values.slurm) {
    if (given.length) throw new UsageError(`${cmd}: --${given[0]} goes with --slurm`);
    return undefined;
  }
  const out: SlurmSettings = {};
  if (values.nodes !== undefined) out.nodes = positiveInt(cmd, "nodes", values.nodes as string, 1);
  for (const k of ["partition", "time"] as const) {
    const v = values[k] as string | undefined;
    if (v === undefined) continue;
    if (!/^[\w.:-]+$/.test(v)) throw new UsageError(`${cmd}: --${k} must be a name, got ${JSON.stringify(v)}`);
    out[k] = v;
  }
  return out;
}

/** The check's `runJobs` on a Slurm allocation's workers; a signal ends every step and the allocation. */
function slurmJobs(
  slurm: SlurmSettings,
  opts: Parameters<typeof slurmCheckJobs>[0],
): NonNullable<CheckOptions["runJobs"]> {
  const run = slurmCheckJobs({ ...opts, ...slurm });
  return async (jobs, onEpisode) => {
    const off = onSignal("exit", () => stopAllSync(STOP_GRACE_MS));
    try {
      await run(jobs, onEpisode);
    } finally {
      off();
    }
  };
}

/** The help of `--slurm` and its flags, for `harbor check` and `harbor audit`, with option names `pad` wide. */
export function slurmHelp(pad: number): string {
  const rows: [string, string][] = [
    [
      "--slurm",
      "run the episodes on the nodes of a Slurm allocation, one pgs worker per node on its own engine (--runtime's), " +
      "--workers × 2 episodes at once on each: inside a job (SLURM_JOB_ID set) on its nodes, else on one pgs asks " +
      "for and releases at the end (docs/cluster.md)",
    ],
    ["--nodes N", "with --slurm outside a job: nodes to ask for (default 1)"],
    ["--partition P", "with --slurm outside a job: the partition (default the cluster's)"],
    ["--time T", "with --slurm outside a job: the time limit, as salloc takes it (default the partition's)"],
  ];
  const width = 118 - pad;
  return rows.map(([flag, text]) => {
    const lines: string[] = [];
    let cur = "";
    for (const w of text.split(" ")) {
      if (cur && cur.length + 1 + w.length > width) lines.push(cur), cur = w;
      else cur = cur ? `${cur} ${w}` : w;
    }
    lines.push(cur);
    const head = `  ${flag.padEnd(pad - 1)} `;
    return lines.map((l, i) => (i ? " ".repeat(pad + 2) : head) + l).join("\n");
  }).join("\n");
}

const usage = `Usage: pgs harbor check PATH [--workers N] [--json] [--verifier-mode M] [--runtime R]
                        [--storage-mb N] [--pod-cpus N] [--pod-memory-mb N]
                        [--slurm [--nodes N] [--partition P] [--time T]]

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
${slurmHelp(14)}
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
      slurm: { type: "boolean" },
      nodes: { type: "string" },
      partition: { type: "string" },
      time: { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError("harbor check: expected one PATH (a task or a folder of tasks)");
    const workers = positiveInt("harbor check", "workers", values.workers as string | undefined, DEFAULT_CHECK_WORKERS);
    const verifierMode = verifierModeFlag("harbor check", values["verifier-mode"] as string | undefined);
    const storageMb = storageMbFlag("harbor check", values["storage-mb"] as string | undefined);
    const podBudget = podBudgetFlags("harbor check", values);
    const slurm = slurmCheckFlags("harbor check", values);
    const dirs = await findTasks(positionals[0]);
    // With --slurm the engines are the nodes': this host's need not answer.
    const runtime = slurm
      ? runtimeFlag("harbor check", values.runtime as string | undefined)
      : await answeringRuntime("harbor check", values.runtime as string | undefined);
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
      runJobs: slurm
        ? slurmJobs(slurm, {
          maxConcurrent: 2 * workers,
          runtime: values.runtime as string | undefined,
          verifierMode,
          storageMb,
          podBudget,
          onNote: (l) => console.error(`pgs harbor check: ${l}`),
        })
        : undefined,
    });
    progress.finish();
    taskSetNotes(loaded);
    if (values.json) console.log(JSON.stringify(results.map(json), null, 2));
    else console.error(`${results.length - progress.bad}/${results.length} tasks valid`);
    return progress.bad ? 1 : 0;
  },
};
