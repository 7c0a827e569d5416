/**
 * `pgs export sft`: the passing episodes of an eval run as chat-format SFT rows, `{"messages", "tools"}` one per
 * episode: the rejection-sampling set built from eval runs before RL. The messages are the episode's history exactly
 * as the policy was sent it (OpenAI chat format, tool-call arguments as JSON text, the harness's own wording of every
 * result and error), ending with the policy's final assistant turn; `tools` are the schemas every request carried
 * (none under a text protocol). Infrastructure errors have no reward and never pass.
 */
import type { Trajectory } from "../eval/records/trajectory.ts";
import type { ChatMessage, ToolSchema } from "../harness/types.ts";
import { readRunTrajectories } from "../eval/records/run_dir.ts";
import { writeWhole } from "./run_dir.ts";

/** One SFT row. */
export interface SftRow {
  /** The conversation up to and including the policy's final assistant turn. */
  messages: ChatMessage[];
  /** The tool schemas the requests carried. */
  tools: ToolSchema[];
}

/** Which episodes `sftRows` keeps. */
export interface SftOptions {
  /** The lowest reward kept (default 1, the eval's default pass threshold). */
  minReward?: number;
}

/** What `exportSft` wrote. */
export interface SftExport {
  /** Rows written. */
  rows: number;
  /** Episodes that scored below the threshold. */
  failed: number;
  /** Infrastructure errors (no reward). */
  infra: number;
  /** Passing episodes left out: no assistant turn to learn from. */
  empty: string[];
}

/** A reward at or above this is kept unless told otherwise. */
export const DEFAULT_MIN_REWARD = 1;

/**
 * The row of one episode: its messages through the last assistant message (what comes after it, the results of a
 * last turn cut off by the turn limit, the policy never saw answered), or undefined when it has no assistant turn.
 */
export function sftRow(t: Trajectory): SftRow | undefined {
  const end = t.messages.findLastIndex((m) => m.role === "assistant");
  if (end < 0) return undefined;
  return { messages: t.messages.slice(0, end + 1), tools: t.tools };
}

/** Whether an episode passes: a reward (never an infrastructure error's null) at or above `minReward`. */
export function passes(t: Trajectory, minReward = DEFAULT_MIN_REWARD): boolean {
  return t.reward !== null && t.exit_status !== "infra_error" && t.reward >= minReward;
}

/** The rows of the passing episodes of `ts`, in their order. */
export function sftRows(ts: Trajectory[], opts: SftOptions = {}): SftRow[] {
  return ts.filter((t) => passes(t, opts.minReward)).map(sftRow).filter((r): r is SftRow => r !== undefined);
}

/**
 * Writes the rows of the run in `runDir` (the latest record per episode) to the JSONL file `out`, whole: it is
 * written beside `out` and renamed into place, so a reader never sees part of it.
 */
export async function exportSft(runDir: string, out: string, opts: SftOptions = {}): Promise<SftExport> {
  const ts = readRunTrajectories(runDir);
  const min = opts.minReward ?? DEFAULT_MIN_REWARD;
  const kept = ts.filter((t) => passes(t, min));
  const rows = kept.map((t) => [t, sftRow(t)] as const);
  const body = rows.flatMap(([, r]) => (r ? [JSON.stringify(r) + "\n"] : [])).join("");
  await writeWhole(out, (tmp) => Deno.writeTextFile(tmp, body));
  return {
    rows: rows.filter(([, r]) => r).length,
    failed: ts.filter((t) => t.reward !== null && !passes(t, min)).length,
    infra: ts.filter((t) => t.reward === null).length,
    empty: rows.filter(([, r]) => !r).map(([t]) => t.id),
  };
}
