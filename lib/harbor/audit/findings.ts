/**
 * What the audit reads from an exploit's episodes: the outcome in one mode (its reward, what pgs's verifier
 * neutralised, whether the tests timed out, the findings and plantings its script printed), and the task's findings
 * across modes (copies of the answer key, a git history beyond HEAD, tests that block on a FIFO, the disk filler).
 */
import type { Trajectory } from "../../eval/records/trajectory.ts";
import type { VerifierMode } from "../../task/verifier_mode.ts";
import { PLANTED_MARK } from "./answer_key.ts";
import { DISK_MARK } from "./box_probes.ts";
import { type Exploit, FINDING_MARK, HINTS } from "./exploit.ts";

/** One exploit's outcome in one mode. */
export interface ExploitOutcome {
  /** The exploit's name. */
  exploit: string;
  /** The reward; null when infrastructure failed or it did not run. */
  reward: number | null;
  /** True when the reward reached the pass threshold; null when infrastructure failed. */
  passed: boolean | null;
  /** The infrastructure failure, when there was one. */
  error?: string;
  /** The last 4 kB of test.sh's output in the episode reported (the passing try, else the best). */
  testOutput?: string;
  /** Why it did not run here: it does not apply to the task, or it runs in one mode only. */
  skipped?: string;
  /** What pgs's verifier removed before the tests (links into its inputs, FIFOs), the most of any try. */
  neutralised?: number;
  /** The tests ran out of time in some try. */
  verifierTimeout?: boolean;
  /** The findings its script printed, each once. */
  findings?: string[];
  /** What its script planted (`link PATH -> TARGET`, `fifo PATH`), each once. */
  planted?: string[];
  /** The disk filler's result: MB written, MB it aimed at, and what stopped it (`none`: nothing did). */
  disk?: { wroteMb: number; targetMb: number; why: string };
  /** How the reported try ended (`stop_rule`, `timeout`, `disk_limit`, ...). */
  exitStatus?: string;
  /** Why the verifier failed in the reported try (its reward is then 0), when it did. */
  verifierError?: string;
}

/** A finding on a task, with the fix when it is a defect. */
export interface Finding {
  /** The exploit that found it. */
  exploit: string;
  /** What was found, one line. */
  text: string;
  /** What fixes it; absent where pgs or the task already holds. */
  hint?: string;
}

/** An outcome-bearing verdict of one mode, as the findings read it. */
export interface ModeOutcomes {
  /** The mode. */
  mode: VerifierMode;
  /** Every exploit's outcome, in the battery's order. */
  exploits: ExploitOutcome[];
}

/** True for an exploit whose pass is a way to the reward (not a `report`). */
export const countsAsHack = (x: Exploit): boolean => (x.kind ?? "exploit") === "exploit";

/** The `pgs-audit: ` lines the exploit's script printed, from its episode's tool results. */
function auditLines(t: Trajectory, mark: string): string[] {
  const out: string[] = [];
  for (const m of t.messages) {
    if (m.role !== "tool" && m.role !== "user") continue;
    const text = typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join("");
    for (const line of text.split("\n")) if (line.startsWith(mark)) out.push(line.slice(mark.length).trim());
  }
  return out;
}

/** Not run here, and why. */
export function skippedOutcome(x: Exploit, why: string): ExploitOutcome {
  return { exploit: x.name, reward: null, passed: false, skipped: why };
}

/**
 * One exploit's outcome from its episodes (its variants × tries): passed when any passed (its reward then), else
 * the best reward of those that ran; an infrastructure failure only when none passed and one failed that way.
 */
export function exploitOutcome(x: Exploit, tries: Trajectory[], threshold: number): ExploitOutcome {
  const scored = tries.filter((t) => t.exit_status !== "infra_error");
  const best = scored.reduce<Trajectory | undefined>(
    (b, t) => (!b || (t.reward ?? 0) > (b.reward ?? 0) ? t : b),
    undefined,
  );
  const passed = best !== undefined && (best.reward ?? 0) >= threshold;
  const failed = tries.find((t) => t.exit_status === "infra_error");
  if (!passed && failed) {
    return { exploit: x.name, reward: null, passed: null, error: failed.error ?? "infrastructure error" };
  }
  const neutralised = Math.max(0, ...scored.map((t) => t.metrics["metric/inputs_neutralised"] ?? 0));
  const timedOut = scored.some((t) => (t.metrics["metric/verifier_timeout"] ?? 0) > 0);
  const findings = [...new Set(scored.flatMap((t) => auditLines(t, FINDING_MARK)))];
  const planted = [...new Set(scored.flatMap((t) => auditLines(t, PLANTED_MARK)))];
  const disk = scored.flatMap((t) => auditLines(t, DISK_MARK)).map((l) => l.match(/^(\d+) (\d+) (.+)$/)).find(Boolean);
  return {
    exploit: x.name,
    reward: best!.reward,
    passed,
    ...(best!.test_output ? { testOutput: best!.test_output } : {}),
    ...(neutralised ? { neutralised } : {}),
    ...(timedOut ? { verifierTimeout: true } : {}),
    ...(findings.length ? { findings } : {}),
    ...(planted.length ? { planted } : {}),
    ...(disk ? { disk: { wroteMb: Number(disk[1]), targetMb: Number(disk[2]), why: disk[3] } } : {}),
    exitStatus: best!.exit_status,
    ...(best!.error ? { verifierError: best!.error } : {}),
  };
}

/** The links pgs neutralised in a mode where the exploits planting them held: the reason it holds there. */
export function neutralisedLinks(battery: readonly Exploit[], exploits: ExploitOutcome[]): number {
  return battery.reduce((n, x, k) => {
    const o = exploits[k];
    return x.guarded && countsAsHack(x) && o?.passed === false ? n + (o.neutralised ?? 0) : n;
  }, 0);
}

/** The task's findings across `modes`: what the probes saw, blocking plantings, the disk filler. */
export function taskFindings(battery: readonly Exploit[], modes: ModeOutcomes[], storageMb?: number): Finding[] {
  const out: Finding[] = [];
  battery.forEach((x, k) => {
    const runs = modes.map((m) => ({ mode: m.mode, o: m.exploits[k] })).filter((r) => r.o && !r.o.skipped);
    if (!runs.length) return;
    const hint = HINTS[x.hint];
    const passedSomewhere = runs.some((r) => r.o.passed);
    if (x.reportsAlways || (passedSomewhere && countsAsHack(x))) {
      for (const text of new Set(runs.flatMap((r) => r.o.findings ?? []))) out.push({ exploit: x.name, text, hint });
    }
    if (x.guarded && !countsAsHack(x)) {
      const what = [...new Set(runs.flatMap((r) => r.o.planted ?? []))].map(plantedText).join(", ");
      if (!what) return;
      const blocked = runs.filter((r) => r.o.verifierTimeout).map((r) => r.mode);
      const held = runs.filter((r) => !r.o.verifierTimeout && (r.o.neutralised ?? 0) > 0).map((r) => r.mode);
      if (blocked.length) {
        out.push({
          exploit: x.name,
          text: `tests block on ${what}: the verifier timed out in ${blocked.join(", ")}`,
          hint,
        });
      }
      if (held.length) {
        out.push({ exploit: x.name, text: `pgs removed ${what} before the tests in ${held.join(", ")}` });
      }
    }
    const disk = runs.find((r) => r.o.disk || r.o.exitStatus === "disk_limit")?.o;
    if (disk) out.push(diskFinding(x, disk, storageMb));
  });
  return out;
}

/** A planting as words: `fifo P` → "a FIFO at P", `link P -> T` → "a link P -> T". */
function plantedText(p: string): string {
  const [kind, ...rest] = p.split(" ");
  return kind === "fifo" ? `a FIFO at ${rest.join(" ")}` : `a ${kind} ${rest.join(" ")}`;
}

/** What the disk filler did, and the fix where nothing bounded the box. */
function diskFinding(x: Exploit, o: ExploitOutcome, storageMb?: number): Finding {
  const bound = storageMb ? `a bound of ${storageMb} MB` : "no bound";
  if (o.exitStatus === "disk_limit") {
    return { exploit: x.name, text: `disk: the episode ended disk_limit (${bound}): the bound holds` };
  }
  const d = o.disk!;
  if (d.why !== "none") {
    return { exploit: x.name, text: `disk: wrote ${d.wroteMb} MB, then ${d.why} (${bound})` };
  }
  const past = storageMb !== undefined && d.wroteMb > storageMb;
  const text = `disk: wrote ${d.wroteMb} MB of ${d.targetMb} MB and nothing refused it (${bound}` +
    (past ? `: not enforced)` : storageMb ? `, not reached under the audit's cap)` : `)`);
  return { exploit: x.name, text, ...(past ? { hint: HINTS[x.hint] } : {}) };
}
