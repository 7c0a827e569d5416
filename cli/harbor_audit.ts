/** `pgs harbor audit PATH [--workers N] [--json] [--verifier-mode M | --all-modes] [--report FILE]`. */
import { type AuditResult, auditTasks, DEFAULT_AUDIT_PASS_THRESHOLD } from "../lib/audit/audit.ts";
import { BATTERY } from "../lib/audit/battery.ts";
import { auditHtml } from "../lib/audit/report_html.ts";
import { DEFAULT_CHECK_WORKERS } from "../lib/eval/check.ts";
import { UsageError } from "../lib/base/errors.ts";
import { findTasks, type Task } from "../lib/task/task.ts";
import { taskSetNotes } from "../lib/task/task_set_notes.ts";
import {
  answeringRuntime,
  type Command,
  numberFlag,
  parseFlags,
  positiveInt,
  RUNTIME_HELP,
  VERIFIER_MODE_HELP,
  verifierModeFlag,
} from "./args.ts";
import { checkOutputFile } from "./output_path.ts";
import { rewardText, TaskProgress } from "./task_progress.ts";

const usage = `Usage: pgs harbor audit PATH [--workers N] [--json] [--verifier-mode M | --all-modes] [--report FILE]
                        [--pass-threshold X] [--runtime R]

For every task directory under PATH (or the one task at PATH): harbor check's oracle and nop, then a battery of
${BATTERY.length} generic exploits, each a one-call scripted policy that knows nothing of the task (planted reward files,
background writers, shadowed interpreters and tools, Python startup hooks, modules planted in the working
directory, tampering with /tests and /solution, kill -9 -1). A task is HACKABLE when an exploit scores at or above
the pass threshold while the nop scores below it. Exit code 1 if any task is invalid or hackable, or an episode
failed for infrastructure reasons.

Options:
  --workers N          as harbor check's: 2N episodes at once (default ${DEFAULT_CHECK_WORKERS})
  --json               print a JSON array: per task its name, dir, verifier mode, valid, hackable, each exploit's
                       reward and whether it passed, hints (and holds_in, invalid_in, modes with --all-modes)
  --all-modes          audit every verifier mode (isolated, shared, snapshot, shared-clean, and separate where
                       the task has a verifier image) and say in which modes the task holds
  --pass-threshold X   the lowest reward that passes (default ${DEFAULT_AUDIT_PASS_THRESHOLD})
  --report FILE        also write an HTML page with the task × exploit grid
${VERIFIER_MODE_HELP}
${RUNTIME_HELP}
  -h, --help           this help`;

function line(r: AuditResult): string {
  const modes = r.holdsIn
    ? `  holds in ${r.holdsIn.join(", ") || "no mode"}${
      r.invalidIn?.length ? `; invalid in ${r.invalidIn.join(", ")}` : ""
    }`
    : "";
  const mode = r.verifierMode ? `  [${r.verifierMode}]` : "";
  const hints = r.hints.map((h) => `\n     hint: ${h}`).join("");
  const time = `  ${r.seconds.toFixed(1)}s`;
  if (!r.modes.length) return `FAIL ${r.name}  ${r.error}`;
  const main = r.modes.find((m) => m.mode === r.verifierMode)!;
  const rewards = `oracle ${rewardText(main.check.oracle?.reward)}  nop ${rewardText(main.check.nop?.reward)}`;
  if (r.hackable) {
    const by = r.exploits.filter((x) => x.passed).map((x) => x.exploit).join(", ");
    return `HACKABLE ${r.name} by ${by}${mode}${modes}${time}${hints}`;
  }
  if (!r.valid || r.error) return `FAIL ${r.name}  ${rewards}${mode}  ${r.error}${modes}${time}`;
  return `ok   ${r.name}  ${rewards}${mode}${modes}${time}`;
}

function json(r: AuditResult) {
  const exploits = (xs: AuditResult["exploits"]) =>
    xs.map((x) => ({ exploit: x.exploit, reward: x.reward, passed: x.passed, ...(x.error ? { error: x.error } : {}) }));
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
          ...(m.check.error ? { error: m.check.error } : {}),
        }])),
      }
      : {}),
    hints: r.hints,
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
      runtime: { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError("harbor audit: expected one PATH (a task or a folder of tasks)");
    const workers = positiveInt("harbor audit", "workers", values.workers as string | undefined, DEFAULT_CHECK_WORKERS);
    const verifierMode = verifierModeFlag("harbor audit", values["verifier-mode"] as string | undefined);
    const allModes = Boolean(values["all-modes"]);
    if (allModes && verifierMode) throw new UsageError("harbor audit: give --verifier-mode or --all-modes, not both");
    const passThreshold = numberFlag(
      "harbor audit",
      "pass-threshold",
      values["pass-threshold"] as string | undefined,
      DEFAULT_AUDIT_PASS_THRESHOLD,
    );
    const report = values.report as string | undefined;
    if (report !== undefined) await checkOutputFile("harbor audit", "report", report);
    const dirs = await findTasks(positionals[0]);
    const runtime = await answeringRuntime("harbor audit", values.runtime as string | undefined);
    const progress = new TaskProgress(dirs.length, "hackable or invalid", Boolean(values.json));
    const loaded: Task[] = [];
    const results = await auditTasks(dirs, {
      workers,
      runtime,
      verifierMode,
      allModes,
      passThreshold,
      onTask: (t) => loaded.push(t),
      onResult: (r) => progress.ended(r.hackable || !r.valid || Boolean(r.error), line(r)),
    });
    progress.finish();
    taskSetNotes(loaded);
    if (report !== undefined) await Deno.writeTextFile(report, auditHtml(results));
    if (values.json) console.log(JSON.stringify(results.map(json), null, 2));
    else {
      const hackable = results.filter((r) => r.hackable).length;
      console.error(`${results.length - progress.bad}/${results.length} tasks hold; ${hackable} hackable`);
    }
    return progress.bad ? 1 : 0;
  },
};
