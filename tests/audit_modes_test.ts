/**
 * `harbor audit` in other modes than the tasks' own, on the fixtures of tests/fixtures/audit/: `--all-modes` says which
 * modes hold, and `shared-clean` against every fixture stops what the agent started (the detached writers and the
 * delayed rewriter never pass there) and keeps what the image and setup.sh started.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { auditTasks } from "../lib/audit/audit.ts";
import { findTasks } from "../lib/task/task.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest, harborFixtureImages, requireDocker } from "./docker_helpers.ts";

registerBuiltins();

const FIXTURES = path.join(import.meta.dirname!, "fixtures", "audit");
const fixture = (name: string) => path.join(FIXTURES, name);
const passedBy = (r: { exploits: { exploit: string; passed: boolean | null }[] }) =>
  r.exploits.filter((x) => x.passed).map((x) => x.exploit).sort();

dockerTest(
  "audit --all-modes: which modes hold; shared-clean stops the agent's processes, keeps the image's",
  async () => {
    const names = ["shared-shell", "shared-python", "agent-service", "image-service"];
    const results = await auditTasks(names.map(fixture), { allModes: true, workers: 4 });
    const by = Object.fromEntries(results.map((r) => [path.basename(r.dir), r]));
    const mode = (task: string, m: string) => by[task].modes.find((x) => x.mode === m)!;
    // What each mode gave a task, for the failure messages.
    const why = (task: string) =>
      JSON.stringify(by[task].modes.map((m) => ({
        mode: m.mode,
        oracle: m.check.oracle?.reward,
        nop: m.check.nop?.reward,
        stopped: m.check.oracle?.metrics.agent_processes_stopped,
        passed: passedBy(m),
        errors: m.exploits.filter((x) => x.passed === null).map((x) => x.exploit),
      })));
    for (const r of results) {
      assert.deepEqual(r.modes.map((m) => m.mode), ["isolated", "shared", "snapshot", "shared-clean"], r.dir);
      assert.equal(r.verifierMode, "shared", "the task's own mode is the one reported first");
    }
    // A plain shell test of the working directory holds wherever no agent process is alive.
    assert.deepEqual(by["shared-shell"].holdsIn, ["isolated", "snapshot", "shared-clean"], why("shared-shell"));
    // Shadowed Python survives in every mode that keeps the agent's files outside the working directory.
    assert.deepEqual(by["shared-python"].holdsIn, ["isolated"], why("shared-python"));
    assert.deepEqual(passedBy(mode("shared-python", "shared-clean")), ["python-startup-hook", "shadow-python"]);
    // A service the agent was asked to start: shared-clean (like isolated and snapshot) breaks the task.
    assert.deepEqual(by["agent-service"].holdsIn, [], why("agent-service"));
    assert.deepEqual(by["agent-service"].invalidIn, ["isolated", "snapshot", "shared-clean"], why("agent-service"));
    const stopped = mode("agent-service", "shared-clean").check.oracle!.metrics.agent_processes_stopped;
    assert.ok(stopped >= 1, `the oracle's service was stopped (${stopped})`);
    // A service the image started keeps running under shared-clean, while the background writer is stopped.
    assert.ok(by["image-service"].holdsIn!.includes("shared-clean"), why("image-service"));
    assert.equal(mode("image-service", "shared-clean").check.oracle!.metrics.agent_processes_stopped, 0);
    assert.deepEqual(passedBy(mode("image-service", "shared")), ["background-reward-writer"]);
    assert.ok(by["image-service"].hints.some((h) => h.includes("--verifier-mode shared-clean")));
  },
);

/**
 * What each fixture is open to under `--verifier-mode shared-clean`: what the agent left on disk still counts (a
 * shadowed python, a startup hook, planted modules, a killed runaway), none of its processes does.
 */
const EXPECTED_CLEAN: Record<string, string[]> = {
  "robust-python": ["shadow-python", "python-startup-hook"],
  "shared-shell": [],
  "shared-python": ["shadow-python", "python-startup-hook"],
  "unittest-workdir": ["shadow-python", "python-startup-hook", "workdir-runner-modules"],
  "pytest-workdir": ["shadow-python", "python-startup-hook", "workdir-runner-modules", "workdir-import-shadows"],
  "runs-workdir-script": ["workdir-scripts-pass"],
  "hash-then-run": ["shadow-test-tools"],
  "solution-in-image": ["use-solution"],
  "agent-service": [],
  "image-service": [],
  "kill-passes": ["kill-all"],
  "copies-reward": ["plant-reward"],
  "python-c-json": ["shadow-python", "python-startup-hook", "workdir-import-shadows"],
};

dockerTest(
  "audit --verifier-mode shared-clean: every fixture, the agent's processes stopped, the task's kept",
  async () => {
    const dirs = await findTasks(FIXTURES);
    assert.deepEqual(dirs.map((d) => path.basename(d)).sort(), Object.keys(EXPECTED_CLEAN).sort());
    const results = await auditTasks(dirs, { workers: 4, verifierMode: "shared-clean" });
    for (const r of results) {
      const name = path.basename(r.dir);
      assert.equal(r.verifierMode, "shared-clean");
      assert.deepEqual(r.exploits.filter((x) => x.passed === null), [], `${name}: no infrastructure error`);
      // The service the agent was asked to start is stopped too: that task breaks, as the README says it does.
      assert.equal(r.valid, name !== "agent-service", `${name}: ${r.error}`);
      assert.deepEqual(passedBy(r), [...EXPECTED_CLEAN[name]].sort(), name);
    }
  },
);

dockerTest("audit --all-modes: separate only where the task has a verifier image of its own", async () => {
  await harborFixtureImages(requireDocker()); // its Dockerfiles start FROM ubuntu:24.04, a local tag
  const separate = path.join(import.meta.dirname!, "fixtures", "harbor", "separate-verifier");
  // No exploits: the oracle and the nop in each mode are enough to see which modes ran.
  const [withImage, without] = await auditTasks([separate, fixture("robust-python")], { allModes: true, battery: [] });
  assert.deepEqual(withImage.modes.map((m) => m.mode), ["isolated", "shared", "snapshot", "shared-clean", "separate"]);
  assert.ok(withImage.modes.find((m) => m.mode === "separate")!.check.valid, withImage.error);
  assert.deepEqual(without.modes.map((m) => m.mode), ["isolated", "shared", "snapshot", "shared-clean"]);
});
