/**
 * The figures of the report, computed from a run's trajectories (the latest record per episode): pass@1 per profile
 * and task, pass@k curves per profile, format-error rates, turns to finish and tokens per episode. Infrastructure
 * errors are never counted as fails: they are counted apart, as in the summary. The curves use the summary's groups
 * (`rowGroups`) and its one definition of pass@k, so their point at the run's k is the summary's figure.
 */
import { rowGroups } from "../eval/records/summary.ts";
import { latestById, type Trajectory } from "../eval/records/trajectory.ts";
import { meanPassAtK, type SampleGroup } from "../eval/records/pass_at_k.ts";

/** Scored samples of one profile on one task. */
export interface CellStats {
  /** Scored episodes. */
  episodes: number;
  /** Episodes at or above the pass threshold. */
  passes: number;
  /** Episodes with an infrastructure error. */
  infra: number;
}

/** One point of a pass@k curve. */
export interface CurvePoint {
  /** k. */
  k: number;
  /** Mean pass@k over the groups with at least k scored samples (`PASS_AT_K_DEFINITION`). */
  value: number;
  /** How many groups (rows: a task under one profile) that mean is over. */
  tasks: number;
}

/** One bin of a turns histogram. */
export interface TurnsBin {
  /** The first turn count of the bin. */
  from: number;
  /** The last turn count of the bin. */
  to: number;
  /** Scored episodes in the bin that passed. */
  passes: number;
  /** Scored episodes in the bin that did not. */
  fails: number;
}

/** Per profile: what the report's profile section shows. */
export interface ProfileFigures {
  /** Scored episodes. */
  episodes: number;
  /** Format errors per assistant turn over every episode (null without turns). */
  format_error_rate: number | null;
  /** Episodes with at least one format error. */
  episodes_with_format_errors: number;
  /** Calls to tools the episode does not expose. */
  unknown_tools: number;
  /** Mean assistant turns of scored episodes (null when none). */
  mean_turns: number | null;
  /** Turns of the scored episodes, binned. */
  turns: TurnsBin[];
  /** Mean prompt and completion tokens per episode with usage, and how many had it (null when none). */
  tokens: { prompt: number; completion: number; episodes: number } | null;
  /** pass@k for k = 1..K over this profile's groups. */
  pass_at_k: CurvePoint[];
}

/** Every figure of a run. */
export interface RunStats {
  /** Samples per task asked for. */
  k: number;
  /** Profiles drawn, sorted. */
  profiles: string[];
  /** Tasks (their folder and name), sorted by name; rows of one task folder are one task here. */
  tasks: { task_dir: string; task: string }[];
  /** The samples of `profile` on the task in `taskDir`, or undefined when it drew none. */
  cell(profile: string, taskDir: string): CellStats | undefined;
  /** Per profile. */
  per_profile: Record<string, ProfileFigures>;
  /** pass@k for k = 1..K over every group, whatever its profile: the summary's pass@1 and pass@k are its points. */
  pass_at_k: CurvePoint[];
}

/** The pass@k curve of groups of samples: k = 1..maxK, each over the groups with ≥ k scored samples. */
export function curve(groups: SampleGroup[], maxK: number): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (let k = 1; k <= maxK; k++) {
    const m = meanPassAtK(groups, k);
    if (!m) break;
    out.push({ k, value: m.value, tasks: m.groups });
  }
  return out;
}

/** Turn counts binned into at most `maxBins` equal bins starting at 0. */
export function turnsBins(xs: { turns: number; pass: boolean }[], maxBins = 24): TurnsBin[] {
  if (!xs.length) return [];
  const max = Math.max(...xs.map((x) => x.turns));
  const width = Math.max(1, Math.ceil((max + 1) / maxBins));
  const bins: TurnsBin[] = [];
  for (let from = 0; from <= max; from += width) bins.push({ from, to: from + width - 1, passes: 0, fails: 0 });
  for (const x of xs) {
    const b = bins[Math.floor(x.turns / width)];
    if (x.pass) b.passes++;
    else b.fails++;
  }
  return bins;
}

/** The figures of `all` (every record of a run); `k` is the run's samples per task. */
export function runStats(all: Trajectory[], opts: { k: number; passThreshold: number }): RunStats {
  const ts = latestById(all);
  const pass = (t: Trajectory) => t.reward !== null && t.reward >= opts.passThreshold;
  const cells = new Map<string, CellStats>();
  const key = (p: string, r: string) => `${p}\u0000${r}`;
  const tasks = new Map<string, string>();
  for (const t of ts) {
    tasks.set(t.task_dir, t.task);
    const c = cells.get(key(t.profile, t.task_dir)) ?? { episodes: 0, passes: 0, infra: 0 };
    if (t.reward === null) c.infra++;
    else {
      c.episodes++;
      if (pass(t)) c.passes++;
    }
    cells.set(key(t.profile, t.task_dir), c);
  }
  const profiles = [...new Set(ts.map((t) => t.profile))].sort();
  const per_profile: Record<string, ProfileFigures> = {};
  for (const p of profiles) {
    const mine = ts.filter((t) => t.profile === p);
    const scored = mine.filter((t) => t.reward !== null);
    const turns = mine.reduce((a, t) => a + t.turns, 0);
    const errors = mine.reduce((a, t) => a + t.counters.format_errors, 0);
    const withUsage = scored.filter((t) => t.usage);
    const mean = (f: (t: Trajectory) => number) =>
      Math.round(withUsage.reduce((a, t) => a + f(t), 0) / withUsage.length);
    const groups = [...rowGroups(mine, opts.passThreshold).values()];
    per_profile[p] = {
      episodes: scored.length,
      format_error_rate: turns ? Math.round((errors / turns) * 1e4) / 1e4 : null,
      episodes_with_format_errors: mine.filter((t) => t.counters.format_errors > 0).length,
      unknown_tools: mine.reduce((a, t) => a + t.counters.unknown_tools, 0),
      mean_turns: scored.length
        ? Math.round((scored.reduce((a, t) => a + t.turns, 0) / scored.length) * 10) / 10
        : null,
      turns: turnsBins(scored.map((t) => ({ turns: t.turns, pass: pass(t) }))),
      tokens: withUsage.length
        ? {
          prompt: mean((t) => t.usage!.prompt_tokens),
          completion: mean((t) => t.usage!.completion_tokens),
          episodes: withUsage.length,
        }
        : null,
      pass_at_k: curve(groups, opts.k),
    };
  }
  return {
    k: opts.k,
    profiles,
    tasks: [...tasks].map(([task_dir, task]) => ({ task_dir, task }))
      .sort((a, b) => a.task.localeCompare(b.task) || a.task_dir.localeCompare(b.task_dir)),
    cell: (p, r) => cells.get(key(p, r)),
    per_profile,
    pass_at_k: curve([...rowGroups(ts, opts.passThreshold).values()], opts.k),
  };
}
