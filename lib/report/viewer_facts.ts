/**
 * What the viewer says about an episode, worked out from its record alone: why it ended (the error column), whether
 * the tests ran (the verifier-output heading), its token counts, and which metrics mean something to a reader.
 */
import type { Trajectory } from "../eval/records/trajectory.ts";

/** Prompt and completion tokens of an episode, summed over its turns. */
export interface EpisodeTokens {
  /** Prompt tokens, summed over the turns' requests (as an endpoint's usage counts them). */
  prompt: number;
  /** Completion tokens sampled, summed over the turns. */
  completion: number;
  /** Where the counts come from: the endpoint's `usage`, or the recorded token ids. */
  source: "usage" | "token_ids";
}

/**
 * The episode's tokens: the endpoint's usage when it reported any, else the recorded token ids (each turn's prompt
 * and completion counted, as usage counts them); undefined when neither was recorded.
 */
export function episodeTokens(t: Pick<Trajectory, "usage" | "rollout_details">): EpisodeTokens | undefined {
  if (t.usage) return { prompt: t.usage.prompt_tokens, completion: t.usage.completion_tokens, source: "usage" };
  const r = t.rollout_details?.[0];
  if (!r || !r.prompt_token_ids.length) return undefined;
  const sum = (xs: number[][]) => xs.reduce((n, x) => n + x.length, 0);
  return { prompt: sum(r.prompt_token_ids), completion: sum(r.completion_token_ids), source: "token_ids" };
}

/**
 * Why the episode ended, in words, for every exit status but the profile's own stop (`stop_rule`, a normal end):
 * "agent timed out after 900 s", "turn limit (32 turns)", ... `agentTimeoutSec` is the task's `[agent] timeout_sec`
 * when known. Undefined for `stop_rule`.
 */
export function exitReason(
  t: Pick<Trajectory, "exit_status" | "turns" | "infra_stage">,
  agentTimeoutSec?: number,
): string | undefined {
  switch (t.exit_status) {
    case "stop_rule":
      return undefined;
    case "max_turns":
      return `turn limit (${t.turns} turns)`;
    case "format_errors":
      return "too many malformed turns in a row";
    case "timeout":
      return agentTimeoutSec === undefined
        ? "agent timed out (the task's [agent] timeout_sec)"
        : `agent timed out after ${agentTimeoutSec} s`;
    case "context_length":
      return "the prompt outgrew the model's context";
    case "container_dead":
      return "the agent stopped its own container";
    case "unfinished":
      return "scored before it ended";
    case "infra_error":
      return `infrastructure error${t.infra_stage ? ` (${t.infra_stage})` : ""}`;
  }
}

/** The verifier's errors that come after test.sh started: the tests ran, whatever they printed. */
const AFTER_TESTS =
  /^(tests\/test\.sh timed out|the verifier container failed|reward\.(json|txt)|the verifier wrote neither)/;

/**
 * Whether test.sh ran, from the record: not when the episode has no reward (an infrastructure error before or in the
 * verifier), nor when the verifier failed before the tests (capture, copy, its setup); yes when the tests printed
 * something, gave a reward, or failed in a way only running them shows (a timeout, no reward file).
 */
export function testsRan(t: Pick<Trajectory, "reward" | "metrics" | "error" | "test_output">): boolean {
  if (t.test_output) return true;
  if (t.reward === null) return false;
  if (!t.metrics["metric/verifier_failed"]) return true;
  return AFTER_TESTS.test(t.error ?? "");
}

/** What the verifier-output section says when there is no output to show; undefined when there is output. */
export function verifierNote(t: Pick<Trajectory, "reward" | "metrics" | "error" | "test_output">): string | undefined {
  if (t.test_output) return undefined;
  if (testsRan(t)) return "test.sh printed nothing";
  if (t.reward === null) return "the tests did not run (infrastructure error)";
  return t.error ? `the tests did not run: ${t.error}` : "the tests did not run";
}

/**
 * The metrics worth showing: the verifier's own components (`metric/<key>`, shown as `<key>`), without the profile
 * mix's one-hot entries (`metric/profile/<key>`, a training signal; the episode's profile is shown apart) nor
 * `metric/profile/<key>/reward`, which repeats the reward.
 */
export function shownMetrics(metrics: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(metrics)) {
    if (k.startsWith("metric/profile/")) continue;
    out[k.startsWith("metric/") ? k.slice("metric/".length) : k] = v;
  }
  return out;
}
