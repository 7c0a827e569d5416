/**
 * `harbor audit` in other modes than the tasks' own, on the fixtures of tests/fixtures/audit/: `--all-modes` says which
 * modes hold, and `shared-clean` against every fixture stops what the agent started (the detached writers and the
 * delayed rewriter never pass there) and keeps what the image and setup.sh started.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { auditTasks } from "../lib/harbor/audit/audit.ts";
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
  "link-tests": ["shadow-test-tools"],
  "image-answer-key": ["copy-answer-key"],
  "git-history": ["git-history-fix"],
  "calls-tool": ["shadow-test-tools"],
  "robust-answer-key": [],
};

dockerTest(
  "audit --verifier-mode shared-clean: every fixture, the agent's processes stopped, the task's kept",
  async () => {
    const dirs = await findTasks(FIXTURES);
    assert.deepEqual(dirs.map((d) => path.basename(d)).sort(), Object.keys(EXPECTED_CLEAN).sort());
    const results = await auditTasks(dirs, { workers: 4, verifierMode: "shared-clean", diskFillCapMb: 0 });
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

/**
 * The answer-key fixtures in every mode. pgs's verifier removes links into /tests and FIFOs in the working directory
 * before the tests, so the link exploit holds everywhere with the links counted as neutralised; what the agent's box
 * holds (a copy of the solution's output, a git history holding the fix) passes in every mode; a tool the tests call
 * is replaced wherever the tests run in the agent's state.
 */
dockerTest(
  "audit --all-modes: links to the answer key neutralised in every mode, copies and history open in all, tools where shared",
  async () => {
    const names = ["link-tests", "image-answer-key", "git-history", "calls-tool", "robust-answer-key"];
    const results = await auditTasks(names.map(fixture), { allModes: true, workers: 4, diskFillCapMb: 0 });
    const by = Object.fromEntries(results.map((r) => [path.basename(r.dir), r]));
    const all = ["isolated", "shared", "snapshot", "shared-clean"];
    const why = (task: string) =>
      JSON.stringify(by[task].modes.map((m) => ({
        mode: m.mode,
        oracle: m.check.oracle?.reward,
        nop: m.check.nop?.reward,
        passed: passedBy(m),
        neutralised: m.neutralised,
        errors: m.exploits.filter((x) => x.passed === null).map((x) => `${x.exploit}: ${x.error}`),
      })));
    for (const r of results) {
      assert.deepEqual(r.modes.map((m) => m.mode), all, r.dir);
      assert.deepEqual(r.invalidIn, [], why(path.basename(r.dir)));
    }
    // The link scores 0 in every mode, because pgs removed it; cmp, replaced, passes wherever the agent's disk is.
    assert.deepEqual(by["link-tests"].holdsIn, ["isolated"], why("link-tests"));
    for (const m of by["link-tests"].modes) {
      const link = m.exploits.find((x) => x.exploit === "link-answer-key")!;
      assert.equal(link.passed, false, `${m.mode}: ${link.testOutput}`);
      assert.ok((link.neutralised ?? 0) >= 1, `${m.mode}: pgs neutralised the link: ${JSON.stringify(link)}`);
      assert.ok(m.neutralised >= 1, m.mode);
    }
    // Shared modes: background writers pass; what is on disk passes in every mode.
    const live = ["background-reward-writer"];
    const only = (task: string, mode: string) => passedBy(by[task].modes.find((m) => m.mode === mode)!);
    for (const mode of all) {
      const shared = mode === "shared" ? live : [];
      assert.deepEqual(only("image-answer-key", mode), [...shared, "copy-answer-key"].sort(), mode);
      assert.deepEqual(only("git-history", mode), [...shared, "git-history-fix"].sort(), mode);
      const tool = mode === "isolated" ? [] : ["shadow-test-tools"];
      assert.deepEqual(
        only("calls-tool", mode),
        [...shared, ...tool].sort(),
        `calls-tool ${mode}: ${why("calls-tool")}`,
      );
      assert.deepEqual(only("link-tests", mode), [...shared, ...tool].sort(), `link-tests ${mode}`);
      assert.deepEqual(only("robust-answer-key", mode), shared, mode);
    }
    assert.deepEqual(by["calls-tool"].holdsIn, ["isolated"]);
    assert.deepEqual(by["robust-answer-key"].holdsIn, ["isolated", "snapshot", "shared-clean"]);
    // The FIFO at answer.txt is removed before the tests in every mode: no verifier's time spent.
    for (const name of ["link-tests", "image-answer-key", "git-history", "robust-answer-key"]) {
      const texts = by[name].findings.filter((f) => f.exploit === "fifo-inputs").map((f) => f.text);
      assert.deepEqual(
        texts,
        [`pgs removed a FIFO at /workdir/answer.txt before the tests in ${all.join(", ")}`],
        name,
      );
    }
  },
);
