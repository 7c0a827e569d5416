/**
 * Harbor's multi-step tasks, whole (`tests/fixtures/harbor-steps/`, written for pgs): a separate verifier per step
 * (inherited, overridden to shared, a step's own environment, mixed with shared steps), steps without a solution,
 * a step whose tests give no reward ending the task, and `${VAR}` left unset. Each fixture is valid under
 * `pgs harbor check` exactly when it is under Harbor's multi-step trial
 * (wrongbutworks/harbor@39b85872597ea710077d8c93095059bca3ca4ed2:src/harbor/trial/multi_step.py).
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { checkTask, checkTasks } from "../lib/harbor/check.ts";
import { findTasks, loadTask } from "../lib/task/task.ts";
import { resolveStepVerifierMode } from "../lib/task/verifier_mode.ts";
import { TaskError } from "../lib/base/errors.ts";
import { harborFixtureImages, makeTask, removeTask } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const FIXTURES = path.join(import.meta.dirname!, "fixtures", "harbor-steps");

/** Each fixture's steps and the mode each is verified in, as Harbor resolves it. */
const MODES: Record<string, string[]> = {
  "steps-separate": ["separate", "separate"],
  "steps-override": ["shared", "separate"],
  "steps-mixed": ["shared", "separate"],
  "steps-no-solution": ["shared", "shared", "shared"],
};

Deno.test("multi-step fixtures: each step's verifier mode as Harbor resolves it, and the oracle's missing files", async () => {
  const dirs = await findTasks(FIXTURES);
  assert.deepEqual(dirs.map((d) => path.basename(d)).sort(), Object.keys(MODES).sort());
  for (const dir of dirs) {
    const task = await loadTask(dir);
    const modes = task.steps!.map((s) => resolveStepVerifierMode(task, s));
    assert.deepEqual(modes, MODES[path.basename(dir)], path.basename(dir));
    // The run's --verifier-mode decides every step.
    assert.deepEqual(task.steps!.map((s) => resolveStepVerifierMode(task, s, "isolated")), modes.map(() => "isolated"));
  }
  const none = await loadTask(path.join(FIXTURES, "steps-no-solution"));
  assert.deepEqual(none.steps!.map((s) => s.solveMissing?.replace(none.dir, "TASK")), [
    "Solution script not found: TASK/solution/solve.sh",
    "No OS-compatible solution script found for step 'think': expected TASK/steps/think/solution/solve.sh",
    undefined,
  ]);
});

Deno.test("a separate step without an image to build names the missing Dockerfile", async () => {
  const dir = await makeTask({
    "task.toml":
      `[environment]\ndocker_image = "x"\n[[steps]]\nname = "a"\n[steps.verifier]\nenvironment_mode = "separate"\n` +
      `[steps.verifier.environment]\ncpus = 1\n`,
    "steps/a/instruction.md": "a",
    "steps/a/tests/test.sh": "#!/bin/bash\n",
  });
  try {
    // The step's environment names no image, and steps/a/tests/ (its context) has no Dockerfile.
    await assert.rejects(loadTask(dir), (e: unknown) => {
      assert.ok(e instanceof TaskError);
      assert.match(e.message, /steps\/a\/tests\/Dockerfile: missing: step a's separate verifier needs it/);
      return true;
    });
  } finally {
    await removeTask(dir);
  }
});

runtimeTest("multi-step fixtures are valid under harbor check, as under Harbor's flow", async (runtime) => {
  if (runtime instanceof Docker) await harborFixtureImages(runtime);
  const results = await checkTasks(await findTasks(FIXTURES), { workers: 2, runtime });
  for (const r of results) {
    const name = path.basename(r.dir);
    const why = JSON.stringify({ e: r.error, o: r.oracle?.metrics, oe: r.oracle?.verifierError ?? r.oracle?.error });
    assert.ok(r.valid, `${name}: ${why}`);
    assert.equal(r.oracle?.reward, 1, name);
    assert.equal(r.nop?.reward, 0, name);
    // Every step was verified, each scoring 1 under the oracle (but the steps with nothing to solve).
    const steps = Object.keys(r.oracle!.metrics).filter((k) => k.startsWith("step/")).sort();
    assert.equal(steps.length, MODES[name].length, `${name}: ${steps}`);
  }
  const none = results.find((r) => r.dir.endsWith("steps-no-solution"))!;
  assert.deepEqual(
    [none.oracle!.metrics["step/read"], none.oracle!.metrics["step/think"], none.oracle!.metrics["step/finish"]],
    [0, 0, 1],
  );
  assert.match(none.oracle!.trajectory.agent_stderr ?? "", /solution script/i);
});

runtimeTest("a step whose tests give no reward ends the task there, as Harbor's trial does", async (runtime) => {
  if (runtime instanceof Docker) await harborFixtureImages(runtime);
  const dir = await makeTask({
    "task.toml": `[environment]\ndocker_image = "ubuntu:24.04"\n[[steps]]\nname = "a"\n[[steps]]\nname = "b"\n`,
    "steps/a/instruction.md": "a",
    "steps/a/solution/solve.sh": "#!/bin/bash\ntrue\n",
    "steps/a/tests/test.sh": "#!/bin/bash\necho 'no reward written'\n",
    "steps/b/instruction.md": "b",
    "steps/b/solution/solve.sh": "#!/bin/bash\ntrue\n",
    "steps/b/tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
  });
  try {
    const r = await checkTask(dir, { runtime });
    assert.equal(r.valid, false);
    assert.equal(r.oracle?.reward, 0);
    assert.equal(r.oracle?.metrics["step/a"], 0);
    assert.equal(r.oracle?.metrics["step/b"], undefined, "step b never ran");
    assert.equal(r.oracle?.metrics.verifier_failed, 1);
  } finally {
    await removeTask(dir);
  }
});

Deno.test("harbor check: an unset ${VAR} is an invalid task, named in one line", async () => {
  const dir = await makeTask({
    "task.toml": `[environment]\ndocker_image = "x"\n[verifier.env]\nKEY = "\${PGS_TEST_SURELY_UNSET_VAR}"\n`,
    "instruction.md": "x",
    "tests/test.sh": "#!/bin/bash\n",
  });
  try {
    const [r] = await checkTasks([dir], {});
    assert.equal(r.valid, false);
    assert.match(
      r.error ?? "",
      /task\.toml:\d+: verifier\.env\.KEY = "\$\{PGS_TEST_SURELY_UNSET_VAR\}": the host variable/,
    );
  } finally {
    await removeTask(dir);
  }
});

const REWARD_IF = (file: string) =>
  `#!/bin/bash\n[ -f ${file} ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n`;

runtimeTest(
  "each step has its own agent budget: a step that times out is verified and the next one runs",
  async (rt) => {
    if (rt instanceof Docker) await harborFixtureImages(rt);
    const dir = await makeTask({
      "task.toml": `[environment]\ndocker_image = "ubuntu:24.04"\nworkdir = "/app"\n[agent]\ntimeout_sec = 600\n` +
        `[[steps]]\nname = "slow"\n[steps.agent]\ntimeout_sec = 2\n[[steps]]\nname = "quick"\n`,
      "steps/slow/instruction.md": "slow",
      "steps/slow/solution/solve.sh": "#!/bin/bash\nsleep 60; touch /app/slow\n",
      "steps/slow/tests/test.sh": REWARD_IF("/app/slow"),
      "steps/quick/instruction.md": "quick",
      "steps/quick/solution/solve.sh": "#!/bin/bash\ntouch /app/quick\n",
      "steps/quick/tests/test.sh": REWARD_IF("/app/quick"),
    });
    try {
      const t0 = performance.now();
      const r = await checkTask(dir, { runtime: rt });
      assert.ok(performance.now() - t0 < 40_000, "the slow step was cut at its own 2 s");
      assert.deepEqual([r.oracle?.metrics["step/slow"], r.oracle?.metrics["step/quick"]], [0, 1]);
      assert.equal(r.oracle?.reward, 0.5, "mean over both steps");
      assert.equal(r.oracle?.exitStatus, "stop_rule");
    } finally {
      await removeTask(dir);
    }
  },
);

runtimeTest("a later step whose setup.sh fails ends the task there, scored on the steps before it", async (rt) => {
  if (rt instanceof Docker) await harborFixtureImages(rt);
  const dir = await makeTask({
    "task.toml":
      `[environment]\ndocker_image = "ubuntu:24.04"\nworkdir = "/app"\n[[steps]]\nname = "a"\n[[steps]]\nname = "b"\n`,
    "steps/a/instruction.md": "a",
    "steps/a/solution/solve.sh": "#!/bin/bash\ntouch /app/a\n",
    "steps/a/tests/test.sh": REWARD_IF("/app/a"),
    "steps/b/instruction.md": "b",
    "steps/b/workdir/setup.sh": "#!/bin/bash\necho 'cannot prepare b' >&2; exit 3\n",
    "steps/b/solution/solve.sh": "#!/bin/bash\ntouch /app/b\n",
    "steps/b/tests/test.sh": REWARD_IF("/app/b"),
  });
  try {
    const r = await checkTask(dir, { runtime: rt });
    assert.equal(r.oracle?.error, undefined, "not an infrastructure error");
    assert.equal(r.oracle?.reward, 1, "step a's reward");
    assert.equal(r.oracle?.metrics["step/b"], undefined);
    assert.match(r.oracle?.verifierError ?? "", /step b: .*setup\.sh exited 3: cannot prepare b/);
  } finally {
    await removeTask(dir);
  }
});

runtimeTest("HarborEnv: a step's time running out between turns moves the episode to the next step", async (rt) => {
  if (rt instanceof Docker) await harborFixtureImages(rt);
  const dir = await makeTask({
    "task.toml":
      `[environment]\ndocker_image = "ubuntu:24.04"\n[[steps]]\nname = "a"\n[steps.agent]\ntimeout_sec = 1\n` +
      `[[steps]]\nname = "b"\n`,
    "steps/a/instruction.md": "first step",
    "steps/a/tests/test.sh": "#!/bin/bash\necho 0 > /logs/verifier/reward.txt\n",
    "steps/b/instruction.md": "second step",
    "steps/b/tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
  });
  const env = new HarborEnv({ runtime: rt, profile: "pi" });
  try {
    const ep = await env.reset({ task_dir: dir });
    await new Promise((r) => setTimeout(r, 1500));
    const late = await ep.step({ content: "a reply that came too late" });
    assert.equal(late.done, false);
    assert.equal(ep.stepIndex, 1);
    assert.match(JSON.stringify(late.observations), /second step/);
    const end = await ep.step({ content: "done" });
    assert.equal(end.done, true);
    const score = await ep.finish();
    assert.equal(score.metrics["metric/step/a"], 0);
    assert.equal(score.metrics["metric/step/b"], 1);
  } finally {
    await env.close();
    await removeTask(dir);
  }
});
