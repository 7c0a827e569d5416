/**
 * What the trajectory viewer embeds: each episode's record without the bulky token arrays (their per-turn counts are
 * kept), plus the run's pass threshold and k. The page reads it from a `<script type="application/json">` element, or
 * from the view server's `data.json` while a run goes on.
 */
import { getProfile } from "../harness/registry.ts";
import { parseTaskConfig } from "../task/task_config.ts";
import { latestById, type Trajectory } from "../eval/records/trajectory.ts";
import { type EpisodeTokens, episodeTokens, exitReason, shownMetrics, verifierNote } from "./viewer_facts.ts";

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
  /** Prompt and completion tokens of the episode, when usage or token ids were recorded. */
  tokens?: EpisodeTokens;
  /** Why it ended, in words (`exitReason`); absent for the profile's own stop. */
  reason?: string;
  /** What the verifier-output section says when test.sh's output is empty (`verifierNote`). */
  verifier_note?: string;
  /** The metrics worth showing (`shownMetrics`). */
  shown_metrics: Record<string, number>;
  /** Comparing runs: the label of the run the episode belongs to (its `id` is then `<run>:<record id>`). */
  run?: string;
  /** The profile's `truncationMark`, when it is registered here and declares one. */
  truncation_mark?: string;
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

/**
 * The viewer's form of one record. A timeout is worded with the record's `agent_timeout_sec`; an older record's
 * task folder is read for it (its task.toml's `[agent] timeout_sec`).
 */
export function viewerEpisode(t: Trajectory): ViewerEpisode {
  const { rollout_details, loss_mask: _mask, ...rest } = t;
  const r = rollout_details?.[0];
  const tokens = episodeTokens(t);
  const timeout = t.exit_status === "timeout" ? t.agent_timeout_sec ?? agentTimeoutOf(t.task_dir) : undefined;
  const reason = exitReason(t, timeout);
  const note = verifierNote(t);
  const mark = truncationMarkOf(t.profile);
  return {
    ...rest,
    ...(r
      ? {
        turn_tokens: r.prompt_token_ids.map((p, i) => ({
          prompt: p.length,
          completion: r.completion_token_ids[i]?.length ?? 0,
        })),
      }
      : {}),
    ...(tokens ? { tokens } : {}),
    ...(reason ? { reason } : {}),
    ...(note ? { verifier_note: note } : {}),
    ...(mark ? { truncation_mark: mark } : {}),
    shown_metrics: shownMetrics(t.metrics),
  };
}

const marks = new Map<string, string | undefined>();

/** The truncation mark of profile `spec` (looked up once), or undefined when it is not registered or declares none. */
function truncationMarkOf(spec: string): string | undefined {
  if (!marks.has(spec)) {
    let mark: string | undefined;
    try {
      mark = getProfile(spec).truncationMark;
    } catch { /* a profile of a module this process did not load: the generic mark serves */ }
    marks.set(spec, mark);
  }
  return marks.get(spec);
}

const timeouts = new Map<string, number | undefined>();

/** The `[agent] timeout_sec` of the task in `dir` (read once per folder), or undefined when it cannot be read. */
function agentTimeoutOf(dir: string): number | undefined {
  if (!timeouts.has(dir)) {
    let sec: number | undefined;
    try {
      const file = `${dir}/task.toml`;
      sec = parseTaskConfig(Deno.readTextFileSync(file), file).agent.timeoutSec;
    } catch { /* the task moved or changed: the reason then names the setting instead */ }
    timeouts.set(dir, sec);
  }
  return timeouts.get(dir);
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

/** Strings at least this long that occur more than once (system prompts, instructions) are sent once. */
const SHARED_MIN = 256;

/**
 * `data` with what repeats across episodes sent once: each distinct `tools` list goes to `tool_sets` (an episode keeps
 * its index), and each long message text that occurs more than once goes to `strings` (the content becomes
 * `{"$s": index}`). A run's episodes share their profile's system prompt and tool schemas, which would otherwise be
 * most of the page. `UNPACK_SCRIPT` undoes it in the page.
 */
export function packViewerData(data: ViewerData): Record<string, unknown> {
  const seen = new Map<string, number>();
  for (const e of data.episodes) {
    for (const m of e.messages) {
      if (typeof m.content === "string" && m.content.length >= SHARED_MIN) {
        seen.set(m.content, (seen.get(m.content) ?? 0) + 1);
      }
    }
  }
  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const toolSets: unknown[] = [];
  const toolIndex = new Map<string, number>();
  const episodes = data.episodes.map((e) => {
    const key = JSON.stringify(e.tools);
    if (!toolIndex.has(key)) toolIndex.set(key, toolSets.push(e.tools) - 1);
    const messages = e.messages.map((m) => {
      if (typeof m.content !== "string" || (seen.get(m.content) ?? 0) < 2) return m;
      if (!stringIndex.has(m.content)) stringIndex.set(m.content, strings.push(m.content) - 1);
      return { ...m, content: { $s: stringIndex.get(m.content)! } };
    });
    return { ...e, tools: toolIndex.get(key)!, messages };
  });
  return { ...data, packed: true, strings, tool_sets: toolSets, episodes };
}

/** The page's inverse of `packViewerData`, as JavaScript: `unpack(d)` restores every episode in place. */
export const UNPACK_SCRIPT = `function unpack(d) {
  if (!d.packed) return d;
  for (const e of d.episodes) {
    e.tools = d.tool_sets[e.tools];
    for (const m of e.messages) {
      if (m.content && typeof m.content === "object" && !Array.isArray(m.content)) m.content = d.strings[m.content.$s];
    }
  }
  delete d.packed; delete d.strings; delete d.tool_sets;
  return d;
}`;
