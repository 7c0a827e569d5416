/**
 * The summary of a run, computed from its trajectories only (so it can be recomputed from trajectories.jsonl):
 * pass@1 per profile, pass@k per task, mean reward, the calibration list (tasks with 0 < passes < k), exit
 * statuses, re-tokenisation drift, and infrastructure errors apart (never counted as a reward of 0).
 */
import { latestById, type Trajectory } from "./trajectory.ts";

/** The format tag of summary.json. */
export const SUMMARY_FORMAT = "pgs.summary/1";

/** Pass rates of a set of scored episodes. */
export interface PassStats {
  /** Scored episodes (infrastructure errors excluded). */
  episodes: number;
  /** Episodes whose reward reached the pass threshold. */
  passes: number;
  /** passes / episodes (null when nothing was scored). */
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
  /** 1 when any scored sample passed, else 0 (null when none was scored). */
  "pass@k": number | null;
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
  /** Every episode together. */
  overall: PassStats;
  /** Tasks with at least one pass / tasks with a scored sample. */
  "pass@k": number | null;
  /** Per drawn profile (name@version), with exit-status counts. */
  profiles: Record<string, PassStats & { exit_status: Record<string, number> }>;
  /** Per row, sorted by task name. */
  tasks: TaskSummary[];
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
  /** Mean milliseconds per scored episode. */
  mean_timings_ms: Record<string, number>;
}

function stats(ts: Trajectory[], threshold: number): PassStats {
  const scored = ts.filter((t) => t.reward !== null);
  const passes = scored.filter((t) => (t.reward as number) >= threshold).length;
  const n = scored.length;
  const sum = scored.reduce((a, t) => a + (t.reward as number), 0);
  return {
    episodes: n,
    passes,
    "pass@1": n ? round(passes / n) : null,
    mean_reward: n ? round(sum / n) : null,
    infra_errors: ts.length - n,
  };
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
export function summarize(all: Trajectory[], opts: { k: number; expected?: number; passThreshold?: number }): Summary {
  const ts = latestById(all);
  const th = opts.passThreshold ?? DEFAULT_PASS_THRESHOLD;
  const profiles: Summary["profiles"] = {};
  for (const [p, group] of [...groupBy(ts, (t) => t.profile)].sort(([a], [b]) => a.localeCompare(b))) {
    profiles[p] = { ...stats(group, th), exit_status: count(group.map((t) => t.exit_status)) };
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
      "pass@k": s.episodes ? (s.passes > 0 ? 1 : 0) : null,
    });
  }
  tasks.sort((a, b) => a.task.localeCompare(b.task) || a.row_id.localeCompare(b.row_id));
  const withScore = tasks.filter((t) => t.episodes > 0);
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
    overall: stats(ts, th),
    "pass@k": withScore.length ? round(withScore.filter((t) => t.passes > 0).length / withScore.length) : null,
    profiles,
    tasks,
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
    mean_timings_ms: {
      start: mean((t) => t.timings.start_ms),
      policy: mean((t) => t.timings.policy_ms),
      tools: mean((t) => t.timings.tools_ms),
      verify: mean((t) => t.timings.verify_ms),
      total: mean((t) => t.timings.total_ms),
    },
  };
}
