/**
 * What the trajectory viewer embeds: each episode's record without the bulky token arrays (their per-turn counts are
 * kept), plus the run's pass threshold and k. The page reads it from a `<script type="application/json">` element, or
 * from the view server's `data.json` while a run goes on.
 */
import { latestById, type Trajectory } from "../trajectory.ts";

/** The format tag of the viewer's data. */
export const VIEWER_DATA_FORMAT = "pgs.viewer/1";

/** Token counts of one turn, from the recorded ids. */
export interface TurnTokenCounts {
  /** Prompt tokens of the turn's request. */
  prompt: number;
  /** Completion tokens sampled. */
  completion: number;
}

/** One episode as the viewer shows it: the record without `rollout_details` and `loss_mask`. */
export type ViewerEpisode = Omit<Trajectory, "rollout_details" | "loss_mask"> & {
  /** Per turn, when token ids were recorded. */
  turn_tokens?: TurnTokenCounts[];
};

/** The viewer's data. */
export interface ViewerData {
  /** Always VIEWER_DATA_FORMAT. */
  format: typeof VIEWER_DATA_FORMAT;
  /** The page's title. */
  title: string;
  /** A reward at or above this passes. */
  pass_threshold: number;
  /** Samples per task asked for (null when unknown). */
  k: number | null;
  /** When the data was read, ISO. */
  generated_at: string;
  /** Every episode, the latest record per id, in the order they finished. */
  episodes: ViewerEpisode[];
}

/** The viewer's form of one record. */
export function viewerEpisode(t: Trajectory): ViewerEpisode {
  const { rollout_details, loss_mask: _mask, ...rest } = t;
  const r = rollout_details?.[0];
  if (!r) return rest;
  return {
    ...rest,
    turn_tokens: r.prompt_token_ids.map((p, i) => ({
      prompt: p.length,
      completion: r.completion_token_ids[i]?.length ?? 0,
    })),
  };
}

/** The viewer's data for the records of a run. */
export function viewerData(
  all: Trajectory[],
  opts: { title: string; passThreshold: number; k?: number | null },
): ViewerData {
  return {
    format: VIEWER_DATA_FORMAT,
    title: opts.title,
    pass_threshold: opts.passThreshold,
    k: opts.k ?? null,
    generated_at: new Date().toISOString(),
    episodes: latestById(all).map(viewerEpisode),
  };
}
