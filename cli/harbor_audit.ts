/** `pgs harbor audit PATH [--workers N] [--json] [--verifier-mode M | --all-modes] [--report FILE] [--slurm ...]`. */
import { type AuditResult, auditTasks, DEFAULT_AUDIT_PASS_THRESHOLD } from "../lib/harbor/audit/audit.ts";
import { BATTERY } from "../lib/harbor/audit/battery.ts";
import { DEFAULT_DISK_FILL_CAP_MB } from "../lib/harbor/audit/task_facts.ts";
import { auditHtml } from "../lib/harbor/audit/report_html.ts";
import { PGS_VERSION } from "../lib/eval/run_record.ts";
import { resolve } from "node:path";
import { DEFAULT_CHECK_WORKERS } from "../lib/harbor/check.ts";
import { UsageError } from "../lib/base/errors.ts";
import { type SlurmAudit, slurmAuditJobs } from "../lib/cluster/audit_jobs.ts";
import { stopAllSync } from "../lib/cluster/slurm.ts";
import { findTasks, type Task } from "../lib/task/task.ts";
import { taskSetNotes } from "../lib/task/task_set_notes.ts";
import {
  answeringRuntime,
  type Command,
  numberFlag,
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
import { slurmCheckFlags, slurmHelp, STOP_GRACE_MS } from "./harbor_check.ts";
import { checkOutputFile } from "./output_path.ts";
import { onSignal } from "./signals.ts";
import { rewardText, TaskProgress } from "./task_progress.ts";

const usage = `Usage: pgs harbor audit PATH [--workers N] [--json] [--verifier-mode M | --all-modes] [--report FILE]
                        [--pass-threshold X] [--storage-mb N] [--disk-fill-mb N] [--runtime R]
                        [--pod-cpus N] [--pod-memory-mb N] [--slurm [--nodes N] [--partition P] [--time T]]

For every task directory under PATH (or the one task at PATH): harbor check's oracle and nop, then a battery of
${BATTERY.length} exploits, each a one-call scripted policy (planted reward files, background writers, shadowed
interpreters and tools, Python startup hooks, modules planted in the working directory, tampering with /tests and
/solution, kill -9 -1; and, from what the task's folder holds: links from the files the tests read to the answer
key, copies of it in the image, a git history beyond HEAD, FIFOs the tests would block on, a disk filler). A task
is HACKABLE when an exploit scores at or above the pass threshold while the nop scores below it; a mode holds
because pgs neutralised links when the links were removed before the tests. Findings (copies of the answer key, a
git history beyond HEAD, tests that block, the disk filler's result) are reported with their fix. Exit code 1 if
any task is invalid or hackable, or an episode failed for infrastructure reasons.

Options:
  --workers N          as harbor check's: 2N episodes at once (default ${DEFAULT_CHECK_WORKERS})
  --json               print a JSON array: per task its name, dir, verifier mode, valid, hackable, each exploit's
                       reward and whether it passed, hints (and holds_in, invalid_in, modes with --all-modes)
  --all-modes          audit every verifier mode (isolated, shared, snapshot, shared-clean, and separate where
                       the task has a verifier image) and say in which modes the task holds
  --pass-threshold X   the lowest reward that passes (default ${DEFAULT_AUDIT_PASS_THRESHOLD})
  --report FILE        also write an HTML page with the task × exploit grid
  --disk-fill-mb N     the most the disk filler writes into a box (default ${DEFAULT_DISK_FILL_CAP_MB}; 0: skip it)
${VERIFIER_MODE_HELP}
${STORAGE_MB_HELP}
${POD_BUDGET_HELP}
${RUNTIME_HELP}
${slurmHelp(21)}
  -h, --help           this help`;

/** "pgs neutralised N links" where a mode held because of it. */
function neutralised(r: AuditResult, mode: string): string {
  const n = r.modes.find((m) => m.mode === mode)?.neutralised ?? 0;
  return n ? `pgs neutralised ${n} link${n === 1 ? "" : "s"}` : "";
}

function line(r: AuditResult): string {
  const held = (m: string) => neutralised(r, m) ? `${m} (${neutralised(r, m)})` : m;
  const modes = r.holdsIn
    ? `  holds in ${r.holdsIn.map(held).join(", ") || "no mode"}${
      r.invalidIn?.length ? `; invalid in ${r.invalidIn.join(", ")}` : ""
    }`
    : "";
  const mode = r.verifierMode ? `  [${r.verifierMode}]` : "";
  const own = !r.holdsIn && r.verifierMode && !r.hackable && neutralised(r, r.verifierMode);
  const because = own ? `  holds: ${own}` : "";
  const fixes = new Set(r.hints);
  const found = r.findings.map((f) => {
    const fix = f.hint && !fixes.has(f.hint) ? (fixes.add(f.hint), `\n     hint: ${f.hint}`) : "";
    return `\n     finding (${f.exploit}): ${f.text}${fix}`;
  }).join("");
  const hints = r.hints.map((h) => `\n     hint: ${h}`).join("") + found;
  const time = `  ${r.seconds.toFixed(1)}s`;
  if (!r.modes.length) return `FAIL ${r.name}  ${r.error}`;
  const main = r.modes.find((m) => m.mode === r.verifierMode)!;
  const rewards = `oracle ${rewardText(main.check.oracle?.reward)}  nop ${rewardText(main.check.nop?.reward)}`;
  if (r.hackable) {
    const by = r.exploits.filter((x) => x.passed).map((x) => x.exploit).join(", ");
    return `HACKABLE ${r.name} by ${by}${mode}${modes}${time}${hints}`;
  }
  if (!r.valid || r.error) return `FAIL ${r.name}  ${rewards}${mode}  ${r.error}${modes}${time}${hints}`;
  return `ok   ${r.name}  ${rewards}${mode}${because}${modes}${time}${hints}`;
}

function json(r: AuditResult) {
  const exploits = (xs: AuditResult["exploits"]) =>
    xs.map((x) => ({
      exploit: x.exploit,
      reward: x.reward,
      passed: x.passed,
      ...(x.error ? { error: x.error } : {}),
      ...(x.skipped ? { skipped: x.skipped } : {}),
      ...(x.neutralised ? { neutralised: x.neutralised } : {}),
      ...(x.verifierTimeout ? { verifier_timeout: true } : {}),
      ...(x.verifierError ? { verifier_error: x.verifierError } : {}),
      ...(x.planted ? { planted: x.planted } : {}),
      ...(x.findings ? { findings: x.findings } : {}),
      ...(x.disk ? { disk: { wrote_mb: x.disk.wroteMb, target_mb: x.disk.targetMb, stopped_by: x.disk.why } } : {}),
    }));
  const main = r.modes.find((m) => m.mode === r.verifierMode);
  return {
    task: r.name,
    dir: r.dir,
    verifier_mode: r.verifierMode ?? null,
    valid: r.valid,
    hackable: r.hackable,
    oracle_reward: main?.check.oracle?.reward ?? null,
    nop_reward: main?.check.nop?.reward ?? null,
    exploits: exploits(r.exploits),
    ...(r.holdsIn
      ? {
        holds_in: r.holdsIn,
        invalid_in: r.invalidIn ?? [],
        modes: Object.fromEntries(r.modes.map((m) => [m.mode, {
          valid: m.check.valid,
          hackable: m.hackable,
          oracle_reward: m.check.oracle?.reward ?? null,
          nop_reward: m.check.nop?.reward ?? null,
          passed_by: m.exploits.filter((x) => x.passed).map((x) => x.exploit),
          neutralised: m.neutralised,
          ...(m.check.error ? { error: m.check.error } : {}),
        }])),
      }
      : {}),
    neutralised: r.modes.find((m) => m.mode === r.verifierMode)?.neutralised ?? 0,
    hints: r.hints,
    findings: r.findings.map((f) => ({ exploit: f.exploit, text: f.text, hint: f.hint ?? null })),
    error: r.error ?? null,
    seconds: Math.round(r.seconds * 100) / 100,
  };
}

/** The `harbor audit` command. */
export const harborAudit: Command = {
  name: "harbor audit",
  summary: "which tasks a hostile policy can pass without solving them",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harbor audit", argv, {
      workers: { type: "string" },
      json: { type: "boolean" },
      "all-modes": { type: "boolean" },
      "pass-threshold": { type: "string" },
      report: { type: "string" },
      "verifier-mode": { type: "string" },
      "storage-mb": { type: "string" },
      ...POD_BUDGET_FLAGS,
      "disk-fill-mb": { type: "string" },
      runtime: { type: "string" },
      slurm: { type: "boolean" },
      nodes: { type: "string" },
      partition: { type: "string" },
      time: { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError("harbor audit: expected one PATH (a task or a folder of tasks)");
    const workers = positiveInt("harbor audit", "workers", values.workers as string | undefined, DEFAULT_CHECK_WORKERS);
    const verifierMode = verifierModeFlag("harbor audit", values["verifier-mode"] as string | undefined);
    const allModes = Boolean(values["all-modes"]);
    const storageMb = storageMbFlag("harbor audit", values["storage-mb"] as string | undefined);
    const podBudget = podBudgetFlags("harbor audit", values);
    if (allModes && verifierMode) throw new UsageError("harbor audit: give --verifier-mode or --all-modes, not both");
    const passThreshold = numberFlag(
      "harbor audit",
      "pass-threshold",
      values["pass-threshold"] as string | undefined,
      DEFAULT_AUDIT_PASS_THRESHOLD,
    );
    const fill = values["disk-fill-mb"] as string | undefined;
    const diskFillCapMb = fill === "0"
      ? 0
      : positiveInt("harbor audit", "disk-fill-mb", fill, DEFAULT_DISK_FILL_CAP_MB);
    const report = values.report as string | undefined;
    if (report !== undefined) await checkOutputFile("harbor audit", "report", report);
    const slurm = slurmCheckFlags("harbor audit", values);
    const dirs = await findTasks(positionals[0]);
    // With --slurm the engines are the nodes': this host's need not answer.
    const runtime = slurm
      ? runtimeFlag("harbor audit", values.runtime as string | undefined)
      : await answeringRuntime("harbor audit", values.runtime as string | undefined);
    const onCluster: SlurmAudit | undefined = slurm && slurmAuditJobs({
      ...slurm,
      maxConcurrent: 2 * workers,
      runtime: values.runtime as string | undefined,
      storageMb,
      podBudget,
      onNote: (l) => console.error(`pgs harbor audit: ${l}`),
    });
    const off = onCluster ? onSignal("exit", () => stopAllSync(STOP_GRACE_MS)) : undefined;
    const progress = new TaskProgress(dirs.length, "hackable or invalid", Boolean(values.json));
    const loaded: Task[] = [];
    const results = await auditTasks(dirs, {
      runJobs: onCluster?.runJobs,
      workers,
      runtime,
      verifierMode,
      allModes,
      passThreshold,
      storageMb,
      podBudget,
      diskFillCapMb,
      onTask: (t) => loaded.push(t),
      onResult: (r) => progress.ended(r.hackable || !r.valid || Boolean(r.error), line(r)),
    }).finally(async () => {
      await onCluster?.close();
      off?.();
    });
    progress.finish();
    taskSetNotes(loaded);
    if (report !== undefined) {
      const modes = allModes ? "every verifier mode" : verifierMode ? `verifier mode ${verifierMode}` : undefined;
      const run = { path: resolve(positionals[0]), date: new Date().toISOString(), version: PGS_VERSION, modes };
      await Deno.writeTextFile(report, auditHtml(results, { run }));
    }
    if (values.json) console.log(JSON.stringify(results.map(json), null, 2));
    else {
      const hackable = results.filter((r) => r.hackable).length;
      console.error(`${results.length - progress.bad}/${results.length} tasks hold; ${hackable} hackable`);
    }
    return progress.bad ? 1 : 0;
  },
};
