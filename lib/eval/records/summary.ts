/**
 * The summary of a run, computed from its trajectories only (so it can be recomputed from trajectories.jsonl):
 * pass@1 and pass@k overall, per profile, per task and per profile × task (one definition, `PASS_AT_K_DEFINITION`,
 * over groups: the samples of one row), mean reward, the calibration list (tasks with 0 < passes < k), exit
 * statuses, re-tokenisation drift, and infrastructure errors apart (never counted as a reward of 0).
 */
import { meanPassAtK, passAtK, type PassAtKMean, type SampleGroup } from "./pass_at_k.ts";
import { latestById, type Trajectory } from "./trajectory.ts";

/** The format tag of summary.json. */
export const SUMMARY_FORMAT = "pgs.summary/1";

/** Pass rates of a set of scored episodes. */
export interface PassStats {
  /** Scored episodes (infrastructure errors excluded). */
  episodes: number;
  /** Episodes whose reward reached the pass threshold. */
  passes: number;
  /** pass@1 by `PASS_AT_K_DEFINITION`: the mean over groups of passes / scored (null when nothing was scored). */
  "pass@1": number | null;
  /** Mean reward of scored episodes (null when none). */
  mean_reward: number | null;
  /** Episodes that hit an infrastructure error. */
  infra_errors: number;
}

/** One task's line. */
export interface TaskSummary extends PassStats {
  /** The task's name. */
  task: string;
  /** The task directory. */
  task_dir: string;
  /** The row's id. */
  row_id: string;
  /** The profiles its samples ran under. */
  profiles: string[];
  /** The unbiased pass@k of this row's scored samples (null while it has fewer than k). */
  "pass@k": number | null;
}

/** pass@k of a set of groups, by `PASS_AT_K_DEFINITION`. */
export interface GroupPassAtK {
  /** The mean pass@k over the groups with at least k scored samples (null when none has). */
  "pass@k": number | null;
  /** Groups (rows) with a scored sample, and how many of them the pass@k averages. */
  groups: { scored: number; with_k: number };
}

/** One cell of the profile × task grid: the samples of one profile on one task folder, whatever their rows. */
export interface GridCell extends PassStats, GroupPassAtK {
  /** The task's name. */
  task: string;
  /** The task directory. */
  task_dir: string;
  /** The profile, name@version. */
  profile: string;
}

/** summary.json. */
export interface Summary {
  /** Always SUMMARY_FORMAT. */
  format: typeof SUMMARY_FORMAT;
  /** Samples per task asked for. */
  k: number;
  /** A reward at or above this passes. */
  pass_threshold: number;
  /** False while episodes are missing (an interrupted run). */
  complete: boolean;
  /** Episodes asked for (rows × k) and recorded so far. */
  expected: number;
  /** Every profile ran on every task, each (task, profile) its own group (`--cross`); false for a drawn mix. */
  cross: boolean;
  /** Every episode together; pass@1 by `PASS_AT_K_DEFINITION`. */
  overall: PassStats;
  /** pass@k (k = the run's k) by `PASS_AT_K_DEFINITION`: the report's headline and its curves' last point. */
  "pass@k": number | null;
  /** The groups `pass@k` is over. */
  pass_at_k_groups: GroupPassAtK["groups"];
  /** Per drawn profile (name@version), with its pass@k and exit-status counts. */
  profiles: Record<string, PassStats & GroupPassAtK & { exit_status: Record<string, number> }>;
  /** Per row, sorted by task name. */
  tasks: TaskSummary[];
  /** The profile × task grid, sorted by task then profile: one cell per task folder and profile that ran on it. */
  grid: GridCell[];
  /** Tasks with 0 < passes < scored samples: the ones that give GRPO an advantage. */
  calibration: string[];
  /** Episodes per exit status. */
  exit_status: Record<string, number>;
  /** Turns whose prompt did not extend the previous prompt + completion, and episodes with any. */
  drift: { turns: number; episodes: number; episodes_with_tokens: number };
  /** Token mode: turns a chat endpoint would have re-rendered (the sampled tokens were kept), and episodes with any. */
  template_rewrite: { turns: number; episodes: number; episodes_in_token_mode: number };
  /** Episodes that hit an infrastructure error, with the error. */
  infra: { id: string; task: string; profile: string; error: string }[];
  /**
   * What the verifier neutralised before the tests (links into their inputs, FIFOs, devices): episodes with any, how
   * many in all (`metric/inputs_neutralised`), and the first 200 listed with their episode. Absent in older summaries.
   */
  neutralised?: {
    episodes: number;
    count: number;
    listed: { id: string; task: string; path: string; kind: string; target?: string }[];
  };
  /** The weighted mix's profiles (its keys) drawn for no task: they have no episode; absent without a mix. */
  undrawn_profiles?: string[];
  /** Mean milliseconds per scored episode. */
  mean_timings_ms: Record<string, number>;
}

/** Summary entries listed under `neutralised`. */
const NEUTRALISED_SUMMARY_LISTED = 200;

/** The summary's `neutralised` block over `ts`. */
function neutralisedSummary(ts: Trajectory[]): NonNullable<Summary["neutralised"]> {
  const hit = ts.filter((t) => (t.metrics["metric/inputs_neutralised"] ?? 0) > 0 || t.neutralised?.length);
  const listed = hit.flatMap((t) => (t.neutralised ?? []).map((n) => ({ id: t.id, task: t.task, ...n })));
  return {
    episodes: hit.length,
    count: hit.reduce((n, t) => n + (t.metrics["metric/inputs_neutralised"] ?? t.neutralised?.length ?? 0), 0),
    listed: listed.slice(0, NEUTRALISED_SUMMARY_LISTED),
  };
}

/**
 * The groups of `ts` (the latest record per episode): one per row and profile (a row's samples share its profile, so
 * in a run this is one per row), with its scored samples (`n`) and passes (`c`). Every pass@k figure of the summary
 * and the report is computed over these.
 */
export function rowGroups(ts: Trajectory[], threshold: number): Map<string, SampleGroup> {
  const m = new Map<string, SampleGroup>();
  for (const t of ts) {
    const key = `${t.row_id}\u0000${t.profile}`;
    const g = m.get(key) ?? { n: 0, c: 0 };
    if (t.reward !== null) {
      g.n++;
      if (t.reward >= threshold) g.c++;
    }
    m.set(key, g);
  }
  return m;
}

function stats(ts: Trajectory[], threshold: number): PassStats {
  const scored = ts.filter((t) => t.reward !== null);
  const passes = scored.filter((t) => (t.reward as number) >= threshold).length;
  const n = scored.length;
  const sum = scored.reduce((a, t) => a + (t.reward as number), 0);
  return {
    episodes: n,
    passes,
    "pass@1": meanPassAtK([...rowGroups(ts, threshold).values()], 1)?.value ?? null,
    mean_reward: n ? round(sum / n) : null,
    infra_errors: ts.length - n,
  };
}

function groupPassAtK(ts: Trajectory[], threshold: number, k: number): GroupPassAtK {
  const groups = [...rowGroups(ts, threshold).values()].filter((g) => g.n > 0);
  const m: PassAtKMean | null = meanPassAtK(groups, k);
  return { "pass@k": m?.value ?? null, groups: { scored: groups.length, with_k: m?.groups ?? 0 } };
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function count(xs: string[]): Record<string, number> {
  const m: Record<string, number> = {};
  for (const x of xs) m[x] = (m[x] ?? 0) + 1;
  return m;
}

function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...m.get(key(x)) ?? [], x]);
  return m;
}

/** A reward at or above this passes, unless told otherwise. */
export const DEFAULT_PASS_THRESHOLD = 1;

/** Summarises trajectories (the latest record per episode id counts). */
export function summarize(
  all: Trajectory[],
  opts: { k: number; expected?: number; passThreshold?: number; cross?: boolean; mix?: string[] },
): Summary {
  const ts = latestById(all);
  const th = opts.passThreshold ?? DEFAULT_PASS_THRESHOLD;
  const profiles: Summary["profiles"] = {};
  for (const [p, group] of [...groupBy(ts, (t) => t.profile)].sort(([a], [b]) => a.localeCompare(b))) {
    profiles[p] = {
      ...stats(group, th),
      ...groupPassAtK(group, th, opts.k),
      exit_status: count(group.map((t) => t.exit_status)),
    };
  }
  const tasks: TaskSummary[] = [];
  for (const [id, group] of groupBy(ts, (t) => t.row_id)) {
    const s = stats(group, th);
    tasks.push({
      task: group[0].task,
      task_dir: group[0].task_dir,
      row_id: id,
      profiles: [...new Set(group.map((t) => t.profile))],
      ...s,
      "pass@k": s.episodes >= opts.k ? round(passAtK(s.episodes, s.passes, opts.k)) : null,
    });
  }
  tasks.sort((a, b) => a.task.localeCompare(b.task) || a.row_id.localeCompare(b.row_id));
  const grid: GridCell[] = [...groupBy(ts, (t) => `${t.task_dir}\u0000${t.profile}`).values()].map((group) => ({
    task: group[0].task,
    task_dir: group[0].task_dir,
    profile: group[0].profile,
    ...stats(group, th),
    ...groupPassAtK(group, th, opts.k),
  })).sort((a, b) =>
    a.task.localeCompare(b.task) || a.task_dir.localeCompare(b.task_dir) || a.profile.localeCompare(b.profile)
  );
  const headline = groupPassAtK(ts, th, opts.k);
  const withTokens = ts.filter((t) => t.drift_turns !== undefined);
  const inTokenMode = ts.filter((t) => t.template_rewrite_turns !== undefined);
  const scored = ts.filter((t) => t.reward !== null);
  const mean = (f: (t: Trajectory) => number) =>
    scored.length ? Math.round(scored.reduce((a, t) => a + f(t), 0) / scored.length) : 0;
  return {
    format: SUMMARY_FORMAT,
    k: opts.k,
    pass_threshold: th,
    complete: opts.expected === undefined || ts.filter((t) => t.reward !== null).length >= opts.expected,
    expected: opts.expected ?? ts.length,
    cross: opts.cross ?? false,
    overall: stats(ts, th),
    "pass@k": headline["pass@k"],
    pass_at_k_groups: headline.groups,
    profiles,
    tasks,
    grid,
    calibration: tasks.filter((t) => t.passes > 0 && t.passes < t.episodes).map((t) => t.task),
    exit_status: count(ts.map((t) => t.exit_status)),
    drift: {
      turns: withTokens.reduce((a, t) => a + (t.drift_turns?.length ?? 0), 0),
      episodes: withTokens.filter((t) => t.drift_turns!.length > 0).length,
      episodes_with_tokens: withTokens.length,
    },
    template_rewrite: {
      turns: inTokenMode.reduce((a, t) => a + t.template_rewrite_turns!.length, 0),
      episodes: inTokenMode.filter((t) => t.template_rewrite_turns!.length > 0).length,
      episodes_in_token_mode: inTokenMode.length,
    },
    infra: ts.filter((t) => t.reward === null).map((t) => ({
      id: t.id,
      task: t.task,
      profile: t.profile,
      error: t.error ?? "",
    })),
    neutralised: neutralisedSummary(ts),
    // A profile of the mix no row drew has no episode to list: said, not left out.
    ...(opts.mix ? { undrawn_profiles: opts.mix.filter((k) => !ts.some((t) => t.profile_key === k)) } : {}),
    mean_timings_ms: {
      start: mean((t) => t.timings.start_ms),
      policy: mean((t) => t.timings.policy_ms),
      tools: mean((t) => t.timings.tools_ms),
      verify: mean((t) => t.timings.verify_ms),
      total: mean((t) => t.timings.total_ms),
    },
  };
}
