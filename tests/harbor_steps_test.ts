/**
 * Harbor's multi-step tasks, whole (`tests/fixtures/harbor-steps/`, written for pgs): a separate verifier per step
 * (inherited, overridden to shared, a step's own environment, mixed with shared steps), steps without a solution,
 * a step whose tests give no reward ending the task, and `${VAR}` left unset. Each fixture is valid under
 * `pgs harbor check` exactly when it is under Harbor's multi-step trial
 * (wrongbutworks/harbor@39b85872597ea710077d8c93095059bca3ca4ed2:src/harbor/trial/multi_step.py).
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { checkTask, checkTasks } from "../lib/eval/check.ts";
import { findTasks, loadTask } from "../lib/task/task.ts";
import { resolveStepVerifierMode } from "../lib/task/verifier_mode.ts";
import { TaskError } from "../lib/base/errors.ts";
import { harborFixtureImages, makeTask, removeTask } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { Docker } from "../lib/runtime/docker/mod.ts";
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
