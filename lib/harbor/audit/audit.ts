/**
 * `harbor audit`: per task, `harbor check`'s oracle and nop, then every exploit of the battery (`battery.ts`), each an
 * episode of its own through the real verifier, all in one worker pool per verifier mode. A task is hackable in a
 * mode when an exploit scores at or above the pass threshold while the nop scores below it.
 */
import type { EnvRow } from "../../env/harbor_env.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import type { PodBudget } from "../../runtime/pod_budget.ts";
import { loadTask, type Task } from "../../task/task.ts";
import { resolveVerifierMode, type VerifierMode } from "../../task/verifier_mode.ts";
import { type CheckResult, checkVerdict, DEFAULT_CHECK_WORKERS } from "../check.ts";
import { harborOraclePolicy, nopPolicy } from "../../policies/policy.ts";
import { type PolicyJob, rowIds, runJobs } from "../../eval/run_episodes.ts";
import { type Trajectory, trajectoryId } from "../../eval/records/trajectory.ts";
import { BATTERY } from "./battery.ts";
import { type Exploit, HINTS, scriptsFor } from "./exploit.ts";
import { exploitPolicy } from "./exploit_policy.ts";
import {
  countsAsHack,
  type ExploitOutcome,
  exploitOutcome,
  type Finding,
  neutralisedLinks,
  skippedOutcome,
  taskFindings,
} from "./findings.ts";
import { DEFAULT_DISK_FILL_CAP_MB, type TaskFacts, taskFacts } from "./task_facts.ts";

export type { ExploitOutcome, Finding } from "./findings.ts";

/** The verdict on a task in one verifier mode. */
export interface ModeVerdict {
  /** The mode. */
  mode: VerifierMode;
  /** `harbor check`'s verdict in this mode (oracle 1, nop below 1). */
  check: CheckResult;
  /** True when an exploit passed while the nop did not. */
  hackable: boolean;
  /** Every exploit's outcome, in the battery's order. */
  exploits: ExploitOutcome[];
  /** Links into the verifier's inputs that pgs removed where the exploits planting them held (0: none). */
  neutralised: number;
}

/** The audit's verdict on one task. */
export interface AuditResult {
  /** The task's name (`[task] name`, else its directory). */
  name: string;
  /** The task directory as given. */
  dir: string;
  /** The mode the task is audited in: the one given, else its own (`resolveVerifierMode`); absent if it did not load. */
  verifierMode?: VerifierMode;
  /** `harbor check`'s verdict in that mode. */
  valid: boolean;
  /** True when an exploit passed in that mode while the nop did not. */
  hackable: boolean;
  /** That mode's exploit outcomes. */
  exploits: ExploitOutcome[];
  /** Every mode audited (one, or all with `allModes`), in the order run. */
  modes: ModeVerdict[];
  /** With `allModes`: the modes in which the task is valid and no exploit passed. */
  holdsIn?: VerifierMode[];
  /** With `allModes`: the modes in which the task is not valid (the oracle fails, or the nop passes). */
  invalidIn?: VerifierMode[];
  /** The fix for each way to the reward found, one line each. */
  hints: string[];
  /** What the probes and the reported exploits found across the modes audited, each with its fix where one is due. */
  findings: Finding[];
  /** Why the task is invalid, or what failed (a load error, an infrastructure error of an episode). */
  error?: string;
  /** Wall time of the task's episodes in seconds. */
  seconds: number;
}

/** Options of `auditTasks`. */
export interface AuditOptions {
  /** As `harbor check`'s: twice as many episodes run at once (default `DEFAULT_CHECK_WORKERS`). */
  workers?: number;
  /** Where the episodes run (default: the registry's default runtime on the environment's engine). */
  runtime?: Runtime;
  /** Image mapping, task image → replacement (default none). */
  images?: Record<string, string>;
  /** The mode every task is audited in (default: each task's own). */
  verifierMode?: VerifierMode;
  /** Audit every mode: isolated, shared, snapshot, shared-clean, and separate where the task has a verifier image. */
  allModes?: boolean;
  /** The lowest reward that passes (default 1). */
  passThreshold?: number;
  /** Disk bound in MB of the boxes of a task that sets no `storage_mb` (default 10240; 0: none). */
  storageMb?: number;
  /** The most a compose task's whole pod may use (`HarborEnvOptions.podBudget`; default: no total). */
  podBudget?: PodBudget;
  /** The exploits (default `BATTERY`). */
  battery?: readonly Exploit[];
  /** Called as each task's verdict is complete. */
  onResult?: (r: AuditResult) => void;
  /** Called with each loaded task before it runs (the CLI counts tasks that leave the network unset). */
  onTask?: (t: Task) => void;
  /** The most the disk filler writes into a box, in MB (default `DEFAULT_DISK_FILL_CAP_MB`; 0: it does not run). */
  diskFillCapMb?: number;
  /**
   * Runs one mode's episodes somewhere else than on `runtime` (`harbor audit --slurm`: on the workers of a Slurm
   * allocation, lib/cluster/audit_jobs.ts), with the mode every task is verified in (undefined: each task's own),
   * reporting each record through `onEpisode`; a record of stage `node` is superseded by its re-run's. Default: here.
   */
  runJobs?: (
    jobs: AuditJob[],
    verifierMode: VerifierMode | undefined,
    onEpisode: (t: Trajectory) => void,
  ) => Promise<void>;
}

/** Who plays one of the audit's episodes: Harbor's oracle, the nop, or one exploit's script. */
export type AuditAgent = { kind: "harbor-oracle" } | { kind: "nop" } | {
  kind: "exploit";
  name: string;
  script: string;
};

/** One of the audit's episodes, as `AuditOptions.runJobs` gets it. */
export interface AuditJob {
  /** The row (an exploit's names the profile it plays under). */
  row: EnvRow;
  /** The row's id. */
  rowId: string;
  /** The slot: 0 the oracle, 1 the nop, then the exploits'. */
  sample: number;
  /** Who plays it. */
  agent: AuditAgent;
}

/** The modes `allModes` audits, in order; `separate` only where the task has a verifier image. */
export const AUDIT_MODES: readonly VerifierMode[] = ["isolated", "shared", "snapshot", "shared-clean", "separate"];

/** The reward that passes unless told otherwise (the eval's default pass threshold). */
export const DEFAULT_AUDIT_PASS_THRESHOLD = 1;

/** True when the task names a verifier image of its own (`[verifier.environment]`, or a tests/Dockerfile to build). */
function hasVerifierImage(task: Task): boolean {
  return Boolean(task.config.verifier.environment || task.paths.testsDockerfile);
}

/** A loaded task and what the audit collects of it. */
interface Entry {
  i: number;
  dir: string;
  task: Task;
  modes: VerifierMode[];
  own: VerifierMode;
  facts: TaskFacts;
  done: ModeVerdict[];
  seconds: number;
}

/**
 * Audits task directories. Results come back in input order; a task that does not load is an invalid result, never
 * a throw. An engine that stops answering stops the audit (an EngineDownError), as it stops `harbor check`.
 */
export async function auditTasks(dirs: string[], opts: AuditOptions = {}): Promise<AuditResult[]> {
  const battery = opts.battery ?? BATTERY;
  const threshold = opts.passThreshold ?? DEFAULT_AUDIT_PASS_THRESHOLD;
  const results: AuditResult[] = new Array(dirs.length);
  const entries: Entry[] = [];
  for (const [i, dir] of dirs.entries()) {
    try {
      const task = await loadTask(dir);
      opts.onTask?.(task);
      const own = resolveVerifierMode(task, opts.verifierMode);
      const modes = opts.allModes
        ? (hasVerifierImage(task) ? [...AUDIT_MODES] : AUDIT_MODES.filter((m) => m !== "separate"))
        : [own];
      const facts = await taskFacts(task, opts.diskFillCapMb ?? DEFAULT_DISK_FILL_CAP_MB, opts.storageMb);
      const base = opts.allModes ? resolveVerifierMode(task) : own;
      entries.push({ i, dir, task, modes, own: base, facts, done: [], seconds: 0 });
    } catch (e) {
      const error = (e as Error).message;
      results[i] = {
        name: dir,
        dir,
        valid: false,
        hackable: false,
        exploits: [],
        modes: [],
        hints: [],
        findings: [],
        error,
        seconds: 0,
      };
      opts.onResult?.(results[i]);
    }
  }
  const workers = Math.max(1, opts.workers ?? DEFAULT_CHECK_WORKERS);
  const runModes = [...new Set(entries.flatMap((e) => e.modes))].sort((a, b) =>
    AUDIT_MODES.indexOf(a) - AUDIT_MODES.indexOf(b)
  );
  for (const mode of runModes) {
    const inMode = entries.filter((e) => e.modes.includes(mode));
    await auditMode(
      inMode,
      mode,
      opts.allModes || opts.verifierMode ? mode : undefined,
      battery,
      workers,
      opts,
      (e) => {
        if (e.done.length < e.modes.length) return;
        results[e.i] = verdictOf(e, battery, Boolean(opts.allModes));
        opts.onResult?.(results[e.i]);
      },
      threshold,
    );
  }
  return results;
}

/** Runs every task of `entries` in `mode` (their own when `override` is undefined); calls `onTask` as each completes. */
async function auditMode(
  entries: Entry[],
  mode: VerifierMode,
  override: VerifierMode | undefined,
  battery: readonly Exploit[],
  workers: number,
  opts: AuditOptions,
  onTask: (e: Entry) => void,
  threshold: number,
): Promise<void> {
  const rows = entries.map((e) => ({ task_dir: e.dir }));
  const ids = rowIds(rows);
  const oracle = harborOraclePolicy(), nop = nopPolicy();
  const jobs: PolicyJob[] = [];
  const auditJobs: AuditJob[] = [];
  const of = new Map<string, { at: number; slot: number }>();
  const plans = entries.map((e) => planOf(e, mode, battery));
  const got = plans.map((p) => Array.from({ length: p.total }, (): Trajectory | undefined => undefined));
  entries.forEach((_, at) => {
    const rowId = ids[at];
    const add = (slot: number, job: Omit<PolicyJob, "rowId" | "sample">, agent: AuditAgent) => {
      jobs.push({ ...job, rowId, sample: slot });
      auditJobs.push({ row: job.row, rowId, sample: slot, agent });
      of.set(trajectoryId(rowId, slot), { at, slot });
    };
    add(0, { row: rows[at], policy: oracle }, { kind: "harbor-oracle" });
    add(1, { row: rows[at], policy: nop }, { kind: "nop" });
    battery.forEach((x, k) => {
      for (const { slot, script } of plans[at].slots[k]) {
        const row = { ...rows[at], harness_profile: x.profile };
        add(slot, { row, policy: exploitPolicy(x, script) }, { kind: "exploit", name: x.name, script });
      }
    });
  });
  const onEpisode = (t: Trajectory) => {
    if (t.exit_status === "infra_error" && t.infra_stage === "node") return; // its re-run's record follows
    const { at, slot } = of.get(t.id)!;
    const ts = got[at];
    ts[slot] = t;
    if (ts.some((x) => !x)) return;
    const e = entries[at];
    const all = ts as Trajectory[];
    e.seconds += spanSeconds(all);
    e.done.push(modeVerdict(e, mode, all, battery, plans[at], threshold));
    onTask(e);
  };
  if (opts.runJobs) {
    if (auditJobs.length) await opts.runJobs(auditJobs, override, onEpisode);
    return;
  }
  const concurrent = 2 * workers;
  await runJobs(jobs, {
    images: opts.images,
    verifierMode: override,
    storageMb: opts.storageMb,
    podBudget: opts.podBudget,
  }, {
    maxConcurrent: concurrent,
    maxStarting: concurrent,
    maxTurns: Number.POSITIVE_INFINITY,
    hosts: [{ host: opts.runtime?.host, runtime: opts.runtime }],
    onEpisode,
  });
}

/** A task's episodes in one mode: per exploit its slots (a variant's script each, times its tries), or why none. */
interface Plan {
  total: number;
  slots: { slot: number; script: string }[][];
  skipped: (string | undefined)[];
}

/** Slots 0 and 1 are the oracle and the nop; then each exploit's variants × tries, in the battery's order. */
function planOf(e: Entry, mode: VerifierMode, battery: readonly Exploit[]): Plan {
  let next = 2;
  const skipped: (string | undefined)[] = [];
  const slots = battery.map((x) => {
    const elsewhere = x.once && mode !== e.modes[0];
    const scripts = elsewhere ? [] : scriptsFor(x, e.facts);
    skipped.push(
      elsewhere ? `runs in ${e.modes[0]} only` : scripts.length ? undefined : "does not apply to this task",
    );
    return scripts.flatMap((script) =>
      Array.from({ length: Math.max(1, x.tries ?? 1) }, () => ({ slot: next++, script }))
    );
  });
  return { total: next, slots, skipped };
}

function spanSeconds(ts: Trajectory[]): number {
  const start = Math.min(...ts.map((t) => Date.parse(t.started_at)));
  const end = Math.max(...ts.map((t) => Date.parse(t.ended_at)));
  return (end - start) / 1000;
}

function modeVerdict(
  e: Entry,
  mode: VerifierMode,
  ts: Trajectory[],
  battery: readonly Exploit[],
  plan: Plan,
  threshold: number,
): ModeVerdict {
  const check = checkVerdict(e.dir, e.task, mode, ts[0], ts[1]);
  const exploits = battery.map((x, k) =>
    plan.skipped[k] !== undefined
      ? skippedOutcome(x, plan.skipped[k]!)
      : exploitOutcome(x, plan.slots[k].map((s) => ts[s.slot]), threshold)
  );
  const nopPasses = check.nop?.reward === null || (check.nop?.reward ?? 0) >= threshold;
  const hacked = exploits.some((o, k) => o.passed && countsAsHack(battery[k]));
  return { mode, check, hackable: !nopPasses && hacked, exploits, neutralised: neutralisedLinks(battery, exploits) };
}

/** True when no exploit found a way to the reward in `d` and none failed for infrastructure reasons. */
function holds(d: ModeVerdict, battery: readonly Exploit[]): boolean {
  return d.check.valid && !d.exploits.some((o, k) => o.passed === null || (o.passed && countsAsHack(battery[k])));
}

function verdictOf(e: Entry, battery: readonly Exploit[], allModes: boolean): AuditResult {
  const main = e.done.find((d) => d.mode === e.own) ?? e.done[0];
  const passed = main.exploits.filter((x, k) => x.passed && countsAsHack(battery[k])).map((x) => x.exploit);
  const failed = main.exploits.filter((x) => x.passed === null);
  const infra = failed.length ? `${failed[0].exploit}: ${failed[0].error}` : undefined;
  const result: AuditResult = {
    name: e.task.name,
    dir: e.dir,
    verifierMode: main.mode,
    valid: main.check.valid,
    hackable: main.hackable,
    exploits: main.exploits,
    modes: e.done.sort((a, b) => AUDIT_MODES.indexOf(a.mode) - AUDIT_MODES.indexOf(b.mode)),
    hints: main.hackable ? hintsFor(battery, passed) : [],
    findings: taskFindings(battery, e.done, e.facts.storageMb),
    ...(main.check.error ? { error: main.check.error } : infra ? { error: `infrastructure: ${infra}` } : {}),
    seconds: e.seconds,
  };
  if (allModes) {
    result.holdsIn = e.done.filter((d) => holds(d, battery)).map((d) => d.mode);
    result.invalidIn = e.done.filter((d) => !d.check.valid).map((d) => d.mode);
    if (result.hackable && result.holdsIn.length) {
      result.hints.push(`it holds in ${result.holdsIn.join(", ")}: run it with --verifier-mode ${result.holdsIn[0]}`);
    }
  }
  return result;
}

/** The hint lines for the exploits that passed, each fix once, in the battery's order. */
function hintsFor(battery: readonly Exploit[], passed: string[]): string[] {
  const keys = battery.filter((x) => passed.includes(x.name)).map((x) => x.hint);
  return [...new Set(keys)].map((k) => HINTS[k]);
}
