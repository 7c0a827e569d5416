/**
 * The profile metrics a finished episode reports: the mix's one-hot only for a mix the caller gave, so that a row
 * pinning its own profile under an environment with none does not list `metric/profile/palingenesis-default@1: 0`.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { dockerTest } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const COUNT = resolve(import.meta.dirname!, "..", "examples", "tasks", "count-error-lines");

async function profileMetrics(env: HarborEnv, row: { task_dir: string; harness_profile?: string }) {
  const ep = await env.reset(row, 1);
  const { metrics } = await ep.finish();
  return Object.entries(metrics).filter(([k]) => k.startsWith("metric/profile/")).sort();
}

dockerTest(
  "profile metrics: a pinned row under no mix reports its own profile only; a mix keeps its one-hot",
  async (docker) => {
    // eval's rows file pinning claude-code, with no --profile: the env holds only the default, which is no mix.
    assert.deepEqual(
      await profileMetrics(new HarborEnv({ runtime: docker }), { task_dir: COUNT, harness_profile: "claude-code" }),
      [
        ["metric/profile/claude-code", 1],
        ["metric/profile/claude-code/reward", 0],
      ],
    );
    // A mix given by the caller: every profile of it, 1 for the drawn one (a trainer averages them into the mix's shares).
    assert.deepEqual(
      await profileMetrics(new HarborEnv({ runtime: docker, profiles: { pi: 1, opencode: 0 } }), { task_dir: COUNT }),
      [["metric/profile/opencode", 0], ["metric/profile/pi", 1], ["metric/profile/pi/reward", 0]],
    );
  },
);
