/**
 * Multi-step (`[[steps]]`) tasks: one episode in which each step's instruction is the next user turn, each step
 * verified and gated, the rewards combined by the task's strategy; and the combination rules themselves.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { oraclePolicy } from "../lib/policies/policy.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import type { ToolCall } from "../lib/harness/types.ts";
import { combineSteps, passesGate, type StepOutcome } from "../lib/verify/steps.ts";
import type { Task, TaskStep } from "../lib/task/task.ts";
import type { VerifyResult } from "../lib/verify/verifier.ts";
import { containersWith, dockerTest, HARBOR_FIXTURES, harborFixtureImages } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const call = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

const result = (rewards?: Record<string, number>): VerifyResult => ({
  reward: rewards ? rewards.reward ?? Object.values(rewards)[0] : 0,
  rewards,
  metrics: rewards ?? { verifier_failed: 1 },
  error: rewards ? undefined : "the verifier wrote neither /logs/verifier/reward.txt nor reward.json",
  testOutput: "",
  mode: "shared",
  timings: { capture: 0, copy: 0, tests: 0, total: 0 },
});
const task = (strategy: "mean" | "final") => ({ config: { multiStepRewardStrategy: strategy } }) as unknown as Task;
const step = (minReward?: number | Record<string, number>) => ({ config: { name: "s", minReward } }) as TaskStep;

Deno.test("steps: mean over the steps whose tests gave a reward, missing keys as 0; final takes the last", () => {
  const outcomes: StepOutcome[] = [
    { name: "a", result: result({ reward: 1, style: 0.5 }) },
    { name: "b", result: result() }, // no reward file: left out of the mean, as Harbor leaves it out
    { name: "c", result: result({ reward: 0 }) },
  ];
  const mean = combineSteps(task("mean"), outcomes);
  assert.deepEqual(mean, { reward: 0.5, metrics: { reward: 0.5, style: 0.25, "step/a": 1, "step/b": 0, "step/c": 0 } });
  const final = combineSteps(task("final"), outcomes);
  assert.equal(final.reward, 0);
  // "final" is the last step that ran, even when its tests gave nothing.
  const finalNone = combineSteps(task("final"), outcomes.slice(0, 2));
  assert.equal(finalNone.reward, 0);
  assert.equal(finalNone.metrics.verifier_failed, 1);
  assert.match(finalNone.error!, /wrote neither/);
  assert.deepEqual(combineSteps(task("mean"), [{ name: "x", result: result({ acc: 0.3 }) }]).reward, 0.3);
});

Deno.test("steps: min_reward gates the reward value, or every listed key; missing counts as -inf", () => {
  assert.equal(passesGate(step(), result()), true);
  assert.equal(passesGate(step(1), result({ reward: 1 })), true);
  assert.equal(passesGate(step(1), result({ reward: 0.9 })), false);
  assert.equal(passesGate(step(0), result()), false, "no reward at all is -inf");
  assert.equal(passesGate(step({ reward: 0.5, style: 0.2 }), result({ reward: 0.6, style: 0.2 })), true);
  assert.equal(passesGate(step({ reward: 0.5, style: 0.2 }), result({ reward: 0.6 })), false);
});

dockerTest("steps: one episode, each step's instruction the next user turn, verified per step", async (docker) => {
  await harborFixtureImages(docker);
  const dir = path.join(HARBOR_FIXTURES, "multi-step");
  const env = new HarborEnv({ runtime: docker });
  const ep = await env.reset({ task_dir: dir });
  try {
    const first = await Deno.readTextFile(path.join(dir, "steps", "scaffold", "instruction.md"));
    assert.equal(ep.firstMessages.at(-1)!.content, first);
    let r = await ep.step({
      content: "",
      tool_calls: [call("c1", "bash", { command: "mkdir -p calc && touch calc/__init__.py && cat .setup-ran" })],
    });
    assert.match(String(r.observations[0].content), /\/app/, "setup.sh ran in the working directory");
    r = await ep.step({ content: "Done.", tool_calls: [call("c2", "submit", {})] });
    assert.equal(r.done, false, "the second step follows");
    const second = await Deno.readTextFile(path.join(dir, "steps", "implement", "instruction.md"));
    assert.deepEqual(r.observations.at(-1), { role: "user", content: second });
    assert.equal(ep.stepIndex, 1);
    r = await ep.step({
      content: "",
      tool_calls: [
        call("c3", "write_file", { path: "calc/__init__.py", content: "def add(a, b):\n    return a + b\n" }),
      ],
    });
    r = await ep.step({ content: "Added.", tool_calls: [call("c4", "submit", {})] });
    assert.equal(r.done, true);
    const { reward, metrics } = await ep.finish();
    assert.equal(reward, 1);
    assert.equal(metrics["metric/step/scaffold"], 1);
    assert.equal(metrics["metric/step/implement"], 1);
  } finally {
    await ep.close();
  }
  assert.deepEqual(await containersWith(docker, "pgs.task=pgs-fixtures/multi-step", `pgs.pid=${Deno.pid}`), []);
});

dockerTest("steps: a failed min_reward gate ends the task at that step", async (docker) => {
  await harborFixtureImages(docker);
  const env = new HarborEnv({ runtime: docker });
  const ep = await env.reset({ task_dir: path.join(HARBOR_FIXTURES, "multi-step") });
  try {
    const r = await ep.step({ content: "Nothing to do.", tool_calls: [call("c1", "submit", {})] });
    assert.equal(r.done, true, "scaffold scored 0 < min_reward 1: the implement step never starts");
    assert.equal(ep.stepIndex, 0);
    const { reward, metrics } = await ep.finish();
    assert.equal(reward, 0);
    assert.equal(metrics["metric/step/scaffold"], 0);
    assert.equal(metrics["metric/step/implement"], undefined);
  } finally {
    await ep.close();
  }
});

dockerTest(
  "steps: the oracle policy plays each step's solve.sh through a profile's own tools (runEpisodes)",
  async (docker) => {
    await harborFixtureImages(docker);
    const rows = ["opencode", "mini-swe-agent", "palingenesis-default@1"].map((p) => ({
      task_dir: path.join(HARBOR_FIXTURES, "multi-step"),
      harness_profile: p,
    }));
    const groups = await runEpisodes(oraclePolicy(), rows, {}, { maxConcurrent: 3 });
    for (const [t] of groups) {
      assert.equal(t.exit_status, "stop_rule", t.profile);
      assert.equal(t.reward, 1, `${t.profile}: ${t.error}`);
      assert.equal(t.verifier_mode, "shared");
      assert.equal(t.metrics["metric/step/implement"], 1, t.profile);
      const users = t.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
      assert.ok(
        users.some((u) => u.includes("define add(a, b)")),
        `${t.profile}: the second instruction is a user turn`,
      );
    }
  },
);
