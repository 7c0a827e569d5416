import type { Neutralised } from "../../verify/input_guard.ts";
import type { OverlayRef } from "../../harness/overlay.ts";
import type { VerifierMode } from "../../task/verifier_mode.ts";
/**
 * The trajectory record (`trajectories.jsonl`, one JSON object per finished episode) and its append-only file:
 * each record is written whole, synchronously, when its episode ends, so a killed run leaves only complete lines
 * (a torn last line is dropped on resume).
 */
import type { ChatMessage, ToolSchema } from "../../harness/types.ts";
import type { TurnFlag } from "../../harness/profile_episode.ts";

/** The format tag of every record; bumped on incompatible changes. */
export const TRAJECTORY_FORMAT = "pgs.trajectory/1";

import type { ExitStatus } from "../../harness/episode_state.ts";

/** How an episode ended (see `episode_state.ts`). `infra_error` episodes are not scored and are retried on resume. */
export type { ExitStatus };

/** Harbor's `rollout_details` entry: one list per turn. */
export interface RolloutDetail {
  /** Per turn: the prompt's token ids. */
  prompt_token_ids: number[][];
  /** Per turn: the completion's token ids. */
  completion_token_ids: number[][];
  /** Per turn: one logprob per completion token. */
  logprobs: number[][];
}

/** One finished episode. */
export interface Trajectory {
  /** Always TRAJECTORY_FORMAT. */
  format: typeof TRAJECTORY_FORMAT;
  /** `<row id>/<sample>`: what resume matches on. */
  id: string;
  /** sha256 of the row, 12 hex digits; also the profile draw's group. */
  row_id: string;
  /** The task's name. */
  task: string;
  /** The task directory, absolute. */
  task_dir: string;
  /** 0-based sample index of the row (0..k-1). */
  sample: number;
  /** The drawn profile, name@version. */
  profile: string;
  /** The weights key the profile was drawn by. */
  profile_key: string;
  /** The model name the emulated harness was configured with (its `-m`), which its dialect follows; absent before. */
  harness_model?: string;
  /** What the harness sends beside messages and tools, in its wire's names (e.g. gemini's generationConfig). */
  generation?: Record<string, unknown>;
  /** The overlay laid over the profile (`--overlay`): its file and hash. */
  overlay?: OverlayRef;
  /** The policy's name (endpoint URL, script, oracle). */
  policy: string;
  /** The model name, when known. */
  model?: string;
  /** The whole history as the harness kept it. */
  messages: ChatMessage[];
  /** Tool schemas sent with each request (empty for text protocols). */
  tools: ToolSchema[];
  /** Chat-template kwargs of the episode (model < profile < row). */
  chat_template_kwargs: Record<string, unknown>;
  /** The answer by the profile's rule (what the verifier received). */
  answer: string;
  /** The reward, or null for an infrastructure error. */
  reward: number | null;
  /** `metric/<key>` per reward component and the profile metrics. */
  metrics: Record<string, number>;
  /** Where the tests ran (or would have): isolated, shared or separate; absent when no container started. */
  verifier_mode?: VerifierMode;
  /** How the episode ended. */
  exit_status: ExitStatus;
  /** The infrastructure error (led by `start: ` or `verify: ` when that phase failed), or why the verifier failed. */
  error?: string;
  /** With an infrastructure error: the stage that failed (build, start, setup, healthcheck, verify, ...). */
  infra_stage?: string;
  /** Assistant turns taken. */
  turns: number;
  /** Tool calls, format errors and unknown tools counted by the harness. */
  counters: { tool_calls: number; format_errors: number; unknown_tools: number };
  /** Turns (0-based) with a format error or a call to an unknown tool, and what it was; absent in older records. */
  turn_flags?: TurnFlag[];
  /**
   * Milliseconds: container start, policy time, tool time, verifier, whole episode; for a pod (a compose task), also
   * `services_ms`, the part of the start spent starting its sidecars until `main`'s dependencies held.
   */
  timings: {
    start_ms: number;
    policy_ms: number;
    tools_ms: number;
    verify_ms: number;
    total_ms: number;
    services_ms?: number;
  };
  /** Token ids and logprobs per turn (with `--token-ids` and an endpoint that returns them). */
  rollout_details?: RolloutDetail[];
  /** Turns (0-based) whose prompt did not start with the previous prompt plus completion. */
  drift_turns?: number[];
  /**
   * Token mode: turns (0-based) whose prompt a chat endpoint would have rendered differently from the previous prompt
   * plus completion (the sampled tokens were kept). The drift token mode avoided.
   */
  template_rewrite_turns?: number[];
  /**
   * Token mode: over the episode's whole sequence (the last prompt plus the last completion), 1 for sampled tokens and
   * 0 for prompt, tool-result and template tokens.
   */
  loss_mask?: number[];
  /** Token counts summed over turns, when the endpoint reported them. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** The last 4 kB of test.sh's output, when the tests ran. */
  test_output?: string;
  /**
   * What the verifier removed before the tests because it could make them read their own inputs in place of the
   * agent's work, or block them (links into /tests, FIFOs, devices): the first 50; `metric/inputs_neutralised` counts
   * them all. Absent when nothing was.
   */
  neutralised?: Neutralised[];
  /** The files the episode changed in its working directory, as a diff (`pgs eval`, unless `--no-diff`). */
  workdir_diff?: WorkdirDiff;
  /** The task's agent timeout in seconds (`[agent] timeout_sec`): what a `timeout` exit ran out of. */
  agent_timeout_sec?: number;
  /** The exit code of the last program the policy ran in the container itself (Harbor's oracle: solve.sh). */
  agent_exit_code?: number;
  /** The last 4 kB of that program's stderr, when it wrote any. */
  agent_stderr?: string;
  /** The DOCKER_HOST the episode ran on ("default": the environment's). */
  docker_host: string;
  /** The Slurm node (or worker) that ran it; absent for a one-host run. */
  node?: string;
  /** ISO time the episode started. */
  started_at: string;
  /** ISO time the episode ended. */
  ended_at: string;
}

/** One file an episode changed. */
export interface WorkdirFileChange {
  /** Its path, relative to the working directory. */
  path: string;
  /** Whether it was added, deleted or modified (content, mode or kind). */
  change: "added" | "deleted" | "modified";
  /** Lines added and removed in the patch (0 for binary files). */
  added: number;
  /** Lines removed. */
  removed: number;
  /** A binary file: named in the patch, not diffed. */
  binary?: boolean;
  /** Not diffed for its size (over 1 MiB, or past the 32 MiB of a tree's files kept for diffing): named only. */
  large?: boolean;
  /** A text file with too many changes to diff in time: named only. */
  too_different?: boolean;
}

/** The working directory's changes over an episode, from its state at the start to its state before verification. */
export interface WorkdirDiff {
  /** A unified diff in git's layout (`diff --git a/P b/P`, `---`, `+++`, hunks), cut at 256 KiB. */
  patch: string;
  /** Every changed file (up to 2000), in path order, whether or not its part of the patch was cut. */
  files: WorkdirFileChange[];
  /** True when the patch was cut at its cap. */
  truncated?: boolean;
  /** What was left out (the cut, .git/ changes), or why there is no diff (the tree too large, a failed copy). */
  note?: string;
  /** Set when a tree held more files than the diff keeps (50,000, or 8 Mi characters of paths): what was compared. */
  cut?: WorkdirCut;
}

/** How much of the working directory a cut diff compared: past the cut, files are counted, not listed. */
export interface WorkdirCut {
  /** Files and symlinks the working directory held at the start. */
  start_files: number;
  /** Of them, how many were kept and compared (the first ones in the copy's order). */
  start_kept: number;
  /** Files and symlinks it held at the end. */
  end_files: number;
  /** Of them, how many were kept and compared. */
  end_kept: number;
  /** Kept files not compared because the other side held them, if at all, past its cut. */
  unmatched: number;
}

/** The key a record is resumed by. */
export function trajectoryId(rowId: string, sample: number): string {
  return `${rowId}/${sample}`;
}

/** Appends records to `path`, one line each, in a single synchronous write. */
export class TrajectoryWriter {
  #enc = new TextEncoder();
  /** Appends to the JSONL file at `path` (created on first write). */
  constructor(readonly path: string) {}

  /** Writes one record. */
  append(t: Trajectory): void {
    const f = Deno.openSync(this.path, { append: true, create: true });
    try {
      const bytes = this.#enc.encode(JSON.stringify(t) + "\n");
      let off = 0;
      while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    } finally {
      f.close();
    }
  }
}

/**
 * Reads the records of `path` (none if it does not exist). A torn last line, left by a process killed mid-write, is
 * cut off the file; a bad line elsewhere is an error naming the line.
 */
export function readTrajectories(path: string): Trajectory[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const out: Trajectory[] = [];
  const lines = text.split("\n");
  const enc = new TextEncoder();
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const last = i === lines.length - 1;
    if (line !== "") {
      try {
        if (last) throw new Error("no newline");
        const t = JSON.parse(line) as Trajectory;
        if (t.format !== TRAJECTORY_FORMAT) throw new Error(`format ${JSON.stringify(t.format)}`);
        out.push(t);
      } catch (e) {
        if (!last) throw new Error(`${path}:${i + 1}: not a ${TRAJECTORY_FORMAT} record (${(e as Error).message})`);
        Deno.truncateSync(path, offset);
      }
    }
    offset += enc.encode(line).length + 1;
  }
  return out;
}

/** The latest record per id: a retried episode replaces its earlier infrastructure error. */
export function latestById(ts: Trajectory[]): Trajectory[] {
  const m = new Map<string, Trajectory>();
  for (const t of ts) {
    m.delete(t.id);
    m.set(t.id, t);
  }
  return [...m.values()];
}
