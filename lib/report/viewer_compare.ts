/**
 * Two runs in one viewer (`pgs view RUN_A RUN_B`): every episode labelled by its run, the same task × profile × sample
 * of the two runs paired, and per (task, profile) the pass rates of A and B. On a task where each run has one
 * profile the other lacks (the `+exact-edit` study: `opencode@1.18.33` in A, `opencode@1.18.33+exact-edit` in B),
 * those two profiles pair with each other.
 */
import { latestById, type Trajectory } from "../eval/records/trajectory.ts";
import { VIEWER_DATA_FORMAT, type ViewerData, type ViewerEpisode, viewerEpisode } from "./viewer_data.ts";

/** One run to compare. */
export interface CompareRun {
  /** Its label in the page ("A", "B"). */
  label: string;
  /** Its title (the folder and what it ran). */
  title: string;
  /** A reward at or above this passes, in this run. */
  passThreshold: number;
  /** Samples per task asked for (null when unknown). */
  k: number | null;
  /** The run's records (the latest per id is kept). */
  trajectories: Trajectory[];
}

/** Passes among the scored episodes (infrastructure errors are not scored). */
export interface PassCount {
  /** Episodes at or above the run's pass threshold. */
  passes: number;
  /** Episodes with a reward. */
  scored: number;
}

/** One (task, profile) line of the comparison. */
export interface CompareRow {
  /** The task. */
  task: string;
  /** The profile, or `A's ⇄ B's` when two different profiles were paired on this task. */
  profile: string;
  /** Per run label, its count ({passes: 0, scored: 0} when the run has no such episode). */
  runs: Record<string, PassCount>;
}

/** A run as the comparing page lists it. */
export interface ViewerRun {
  /** Its label. */
  label: string;
  /** Its title. */
  title: string;
  /** Its pass threshold. */
  pass_threshold: number;
  /** Its k. */
  k: number | null;
  /** Its episodes. */
  episodes: number;
}

/** The viewer's data when runs are compared: `ViewerData` plus the runs and the per-(task, profile) table. */
export interface CompareViewerData extends ViewerData {
  /** Every episode of both runs, pairs next to each other. */
  episodes: CompareEpisode[];
  /** The runs, in the order given. */
  runs: ViewerRun[];
  /** Per (task, profile), each run's passes, sorted by task then profile. */
  compare: CompareRow[];
  /**
   * The rows both runs scored, summed per run: the only fair "all" (rows one run lacks would pool different task ×
   * profile sets), with how many rows they are of how many in all.
   */
  compare_total: { shared: number; rows: number; runs: Record<string, PassCount> };
}

/** An episode of a compared run: its run and, when the other run has the same task × profile × sample, that one. */
export type CompareEpisode = ViewerEpisode & { run: string; pair?: string };

/**
 * Per task, the profile slot of each run's profiles: a profile both runs have on the task is its own slot; when each
 * run has exactly one profile the other lacks, the two share the slot `A's ⇄ B's`; any other is alone in its slot.
 */
export function profileSlots(a: Trajectory[], b: Trajectory[]): [Map<string, string>, Map<string, string>] {
  const byTask = (ts: Trajectory[]) => {
    const m = new Map<string, Set<string>>();
    for (const t of ts) (m.get(t.task) ?? m.set(t.task, new Set()).get(t.task)!).add(t.profile);
    return m;
  };
  const [ta, tb] = [byTask(a), byTask(b)];
  const sa = new Map<string, string>(), sb = new Map<string, string>();
  for (const task of new Set([...ta.keys(), ...tb.keys()])) {
    const pa = ta.get(task) ?? new Set<string>(), pb = tb.get(task) ?? new Set<string>();
    const onlyA = [...pa].filter((p) => !pb.has(p)), onlyB = [...pb].filter((p) => !pa.has(p));
    const joined = onlyA.length === 1 && onlyB.length === 1 ? `${onlyA[0]} ⇄ ${onlyB[0]}` : undefined;
    for (const p of pa) sa.set(`${task}\n${p}`, joined && p === onlyA[0] ? joined : p);
    for (const p of pb) sb.set(`${task}\n${p}`, joined && p === onlyB[0] ? joined : p);
  }
  return [sa, sb];
}

/** The viewer's data for two runs (`runs[0]` is A, `runs[1]` is B). */
export function compareViewerData(runs: [CompareRun, CompareRun], title?: string): CompareViewerData {
  const [a, b] = runs.map((r) => latestById(r.trajectories));
  const slots = profileSlots(a, b);
  const rows = new Map<string, CompareRow>();
  const episodes: (CompareEpisode & { key: string[] })[] = [];
  const byKey = new Map<string, CompareEpisode & { key: string[] }>();
  [a, b].forEach((ts, i) => {
    const run = runs[i];
    for (const t of ts) {
      const slot = slots[i].get(`${t.task}\n${t.profile}`) ?? t.profile;
      const rowKey = `${t.task}\n${slot}`;
      let row = rows.get(rowKey);
      if (!row) {
        row = { task: t.task, profile: slot, runs: Object.fromEntries(runs.map((r) => [r.label, zero()])) };
        rows.set(rowKey, row);
      }
      if (t.reward !== null) {
        row.runs[run.label].scored++;
        if (t.reward >= run.passThreshold) row.runs[run.label].passes++;
      }
      const e: CompareEpisode & { key: string[] } = {
        ...viewerEpisode(t),
        id: `${run.label}:${t.id}`,
        run: run.label,
        key: [t.task, slot, String(t.sample)],
      };
      const pairKey = e.key.join("\n");
      if (i === 0) byKey.set(pairKey, e);
      else {
        const other = byKey.get(pairKey);
        if (other && other.pair === undefined) [other.pair, e.pair] = [e.id, other.id];
      }
      episodes.push(e);
    }
  });
  // Pairs next to each other: by task, profile slot, sample, then run.
  episodes.sort((x, y) =>
    x.key[0].localeCompare(y.key[0]) || x.key[1].localeCompare(y.key[1]) ||
    Number(x.key[2]) - Number(y.key[2]) || x.run.localeCompare(y.run)
  );
  const compare = [...rows.values()].sort((x, y) => x.task.localeCompare(y.task) || x.profile.localeCompare(y.profile));
  const shared = compare.filter((r) => runs.every((run) => r.runs[run.label].scored > 0));
  const total = Object.fromEntries(runs.map((run) => [run.label, zero()]));
  for (const r of shared) {
    for (const run of runs) {
      total[run.label].passes += r.runs[run.label].passes;
      total[run.label].scored += r.runs[run.label].scored;
    }
  }
  return {
    format: VIEWER_DATA_FORMAT,
    title: title ?? runs.map((r) => `${r.label}: ${r.title}`).join(" · "),
    pass_threshold: runs[0].passThreshold,
    k: runs[0].k,
    generated_at: new Date().toISOString(),
    episodes: episodes.map(({ key: _key, ...e }) => e),
    runs: runs.map((r, i) => ({
      label: r.label,
      title: r.title,
      pass_threshold: r.passThreshold,
      k: r.k,
      episodes: [a, b][i].length,
    })),
    compare,
    compare_total: { shared: shared.length, rows: compare.length, runs: total },
  };
}

function zero(): PassCount {
  return { passes: 0, scored: 0 };
}
