/** pgs's side of the naive-loop benches: `runEpisodes` with a scripted policy of N shell calls, isolated verifier. */
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { type Policy, scriptPolicy } from "../lib/policies/policy.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import { registerBuiltins } from "../profiles/mod.ts";

// The profiles are registered by main.ts in the CLI; a bench that runs episodes registers them itself.
registerBuiltins();

/** The command every scripted call runs (the naive loop's `docker exec` runs the same). */
export const CALL = "echo ok > out.txt && cat notes.txt | wc -l";

/** pi's dialect: `calls` shell calls, one a turn, then a reply (the stop rule). */
export function callsPolicy(calls: number): Policy {
  return scriptPolicy([
    ...Array.from({ length: calls }, () => ({ tool_calls: [{ name: "bash", arguments: { command: CALL } }] })),
    { content: "Done: out.txt written." },
  ]);
}

/** What one point of pgs measured. */
export interface PgsPoint {
  wallMs: number;
  trajectories: Trajectory[];
}

/**
 * `n` episodes of the task at `dir`, `c` alive at once (and at most 8 starting, as the eval bench), every one
 * verified in a clean container (`isolated`). Throws when an episode was not rewarded: a figure must be honest.
 */
export async function pgsPoint(
  dir: string,
  calls: number,
  c: number,
  n: number,
  onEpisode?: () => void,
): Promise<PgsPoint> {
  const rows = Array.from({ length: n }, (_, i) => ({
    task_dir: dir,
    max_turns: calls + 2,
    messages: [{ role: "user" as const, content: `#${i}` }],
  }));
  const t0 = performance.now();
  const groups = await runEpisodes(callsPolicy(calls), rows, { profile: "pi", verifierMode: "isolated" }, {
    k: 1,
    maxConcurrent: c,
    maxStarting: Math.min(c, 8),
    onEpisode,
  });
  const wallMs = performance.now() - t0;
  const trajectories = groups.flat();
  const bad = trajectories.filter((t) => t.reward !== 1);
  if (bad.length) {
    throw new Error(`bench: ${bad.length}/${n} pgs episodes not rewarded: ${bad[0].exit_status} ${bad[0].error ?? ""}`);
  }
  return { wallMs, trajectories };
}

/** The median of `xs` (the upper one of an even count). */
export function median(xs: number[]): number {
  return xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN;
}
