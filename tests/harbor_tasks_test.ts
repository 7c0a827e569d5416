/**
 * Harbor-style tasks (modelled on the layouts of Harbor's own examples) are valid under `harbor check` exactly when
 * Harbor's flow makes them valid: in each task's own verifier mode. Forced into `isolated`, the ones whose tests read
 * state outside the working directory lose it, which is the difference the mode makes.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { type CheckResult, checkTasks } from "../lib/harbor/check.ts";
import { harborRows } from "../lib/harbor/rows.ts";
import { findTasks } from "../lib/task/task.ts";
import type { VerifierMode } from "../lib/task/verifier_mode.ts";
import { dockerTest, HARBOR_FIXTURES, harborFixtureImages, makeTask, removeTask } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

/** Per fixture: its own mode, and whether it stays valid when forced into isolated, and into snapshot. */
const EXPECTED: Record<string, { mode: VerifierMode; isolated: boolean; snapshot: boolean }> = {
  "workdir-app": { mode: "shared", isolated: true, snapshot: true }, // WORKDIR /app, relative writes and reads
  "inherited-workdir": { mode: "shared", isolated: true, snapshot: true }, // WORKDIR from the base image
  "agent-user": { mode: "shared", isolated: false, snapshot: true }, // /logs/agent stays in the agent's container
  "shared-state": { mode: "shared", isolated: false, snapshot: true }, // /tmp and /logs/artifacts
  "separate-verifier": { mode: "separate", isolated: false, snapshot: false }, // the grader is in tests/Dockerfile
  "outbox-state": { mode: "shared", isolated: true, snapshot: true }, // only a misbehaving agent tells them apart
  "multi-step": { mode: "shared", isolated: true, snapshot: true }, // [[steps]]: verified per step, gated, mean
  "service-running": { mode: "shared", isolated: false, snapshot: false }, // a live server: only shared keeps it
};

function explain(r: CheckResult): string {
  const o = r.oracle, n = r.nop;
  return JSON.stringify({
    error: r.error,
    oracle: o && { reward: o.reward, err: o.error ?? o.verifierError, out: o.testOutput },
    nop: n && { reward: n.reward, err: n.error ?? n.verifierError },
  });
}

async function check(mode?: VerifierMode): Promise<Map<string, CheckResult>> {
  const dirs = await findTasks(HARBOR_FIXTURES);
  assert.deepEqual(dirs.map((d) => path.basename(d)).sort(), Object.keys(EXPECTED).sort());
  const results = await checkTasks(dirs, { workers: 6, verifierMode: mode });
  return new Map(results.map((r) => [path.basename(r.dir), r]));
}

dockerTest("harbor tasks: every fixture is valid in its own verifier mode", async (docker) => {
  await harborFixtureImages(docker);
  for (const [name, r] of await check()) {
    assert.equal(r.verifierMode, EXPECTED[name].mode, name);
    assert.ok(r.valid, `${name}: ${explain(r)}`);
    assert.equal(r.oracle?.verifierMode, EXPECTED[name].mode);
  }
});

for (const forced of ["isolated", "snapshot"] as const) {
  dockerTest(
    `harbor tasks: forced into ${forced}, the tasks that need what it drops fail on their reward`,
    async (docker) => {
      await harborFixtureImages(docker);
      for (const [name, r] of await check(forced)) {
        assert.equal(r.verifierMode, forced, name);
        assert.equal(r.valid, EXPECTED[name][forced], `${name}: ${explain(r)}`);
        if (!r.valid) {
          assert.equal(r.oracle?.error, undefined, `${name} fails on its reward, not on infrastructure`);
          assert.ok(r.oracle!.reward! < 1, name);
        }
      }
    },
  );
}

dockerTest(
  "harbor rows: the system prompt names each task's working directory, from the image when need be",
  async (docker) => {
    await harborFixtureImages(docker);
    const rows = await harborRows(HARBOR_FIXTURES, { runtime: docker });
    const wd = Object.fromEntries(rows.map((r) => [
      path.basename(r.task_dir),
      /the working directory is (\S+) /.exec(r.messages[0].content)?.[1],
    ]));
    assert.deepEqual(wd, {
      "agent-user": "/app",
      "inherited-workdir": "/srv/project", // only the base image knows it
      "multi-step": "/app",
      "service-running": "/srv/www",
      "outbox-state": "/app",
      "separate-verifier": "/app",
      "shared-state": "/app",
      "workdir-app": "/app",
    });
  },
);

dockerTest(
  "harbor check: solve.sh and test.sh run by their shebang (Python), and bash reads one without any",
  async () => {
    const dir = await makeTask({
      "task.toml": `[environment]\ndocker_image = "pgs-base:1"\n`,
      "solution/solve.sh": "#!/usr/bin/env python3\nopen('out.txt', 'w').write('py')\nprint('solved')\n",
      // No shebang, and bash syntax: Harbor's `bash -c` reads it as bash, where /bin/sh would not.
      "tests/test.sh":
        "if [[ $(cat /workdir/out.txt) == py ]]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n",
    });
    try {
      const [r] = await checkTasks([dir]);
      assert.ok(r.valid, explain(r));
      assert.equal(r.oracle?.agentExitCode, 0);
    } finally {
      await removeTask(dir);
    }
  },
);
