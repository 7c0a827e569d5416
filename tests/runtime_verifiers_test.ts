/**
 * Every verifier mode on every registered runtime whose engine answers (`runtime_helpers.ts`): one agent leaves the
 * same state (its answer in the working directory, a file in /tmp, a process still running), and each mode's tests
 * see exactly what the mode promises (`shared-clean`: the process stopped, the rest as `shared`). The modes' own cases and attacks: verifier_modes_test.ts, verifier_test.ts.
 */
import assert from "node:assert/strict";
import { ImageStore } from "../lib/runtime/images.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { loadTask } from "../lib/task/task.ts";
import type { VerifierMode } from "../lib/task/verifier_mode.ts";
import { verify } from "../lib/verify/verifier.ts";
import { makeTask, removeTask } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";

const TEST_SH = `#!/bin/bash
a=$(cat /app/answer.txt 2>/dev/null || echo none)
o=$(cat /tmp/outside 2>/dev/null || echo none)
p=$(ps -eo args | grep -c '[p]gs-agent-bg')
echo "answer=$a outside=$o alive=$p msg=$(cat /logs/agent/final_message.md)"
if [ "$a" = 42 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;

/** The agent: its answer where the tests look, state outside the working directory, and a process left running. */
const AGENT = [
  "echo 42 > answer.txt && echo here > /tmp/outside",
  "nohup sh -c 'while :; do sleep 1; done # pgs-agent-bg' >/dev/null 2>&1 &",
];

/** What each mode's tests see of that state. */
const SEEN: Record<VerifierMode, string> = {
  isolated: "answer=42 outside=none alive=0 msg=done\n",
  shared: "answer=42 outside=here alive=1 msg=done\n",
  snapshot: "answer=42 outside=here alive=0 msg=done\n",
  separate: "answer=42 outside=none alive=0 msg=done\n",
  "shared-clean": "answer=42 outside=here alive=0 msg=done\n",
};

/** The task's files in `mode`: a separate verifier builds its image from tests/Dockerfile and gets the answer. */
function taskFiles(mode: VerifierMode): Record<string, string> {
  const base = `[environment]\ndocker_image = "pgs-base:1"\nworkdir = "/app"\n`;
  if (mode !== "separate") return { "task.toml": base, "tests/test.sh": TEST_SH };
  return {
    "task.toml": `artifacts = ["/app/answer.txt"]\n[task]\nname = "pgs-test/verifiers-${crypto.randomUUID()}"\n` +
      // Its own [verifier.environment] without an image: the verifier's image is built from tests/Dockerfile.
      `${base}[verifier]\nenvironment_mode = "separate"\n[verifier.environment]\nworkdir = "/"\n`,
    "tests/test.sh": TEST_SH,
    "tests/Dockerfile": "FROM pgs-base:1\nCOPY test.sh /tests/test.sh\nRUN chmod +x /tests/test.sh\n",
  };
}

async function episodeIn(runtime: Runtime, mode: VerifierMode): Promise<void> {
  const dir = await makeTask(taskFiles(mode));
  const before = runtime.tracked().length;
  try {
    const task = await loadTask(dir);
    const { box, verifier } = await startBoxes(task, new ImageStore(runtime), { verifierMode: mode });
    try {
      await box.agentPhase(); // as an episode does when the agent's turns begin
      await verifier.agentStarts(box);
      for (const script of AGENT) assert.equal((await box.exec(script, { timeoutSec: 60 })).exitCode, 0);
      const v = await verify(box, "done", { verifier });
      assert.equal(v.mode, mode);
      assert.equal(v.testOutput, SEEN[mode]);
      assert.equal(v.error, undefined);
      assert.equal(v.reward, 1);
      // The agent's loop and (most of the time) its sleep.
      if (mode === "shared-clean") assert.ok(v.metrics.agent_processes_stopped >= 1, JSON.stringify(v.metrics));
    } finally {
      await box.remove();
    }
    assert.equal(runtime.tracked().length, before, "the episode's and the verifier's boxes are gone");
  } finally {
    await removeTask(dir);
  }
}

for (const mode of ["isolated", "shared", "snapshot", "separate", "shared-clean"] as const) {
  runtimeTest(`verifier mode ${mode}: the tests see what the mode promises`, (runtime) => episodeIn(runtime, mode));
}

/**
 * `shared-clean` keeps what the image's entrypoint started however late it forked: here the entrypoint daemonizes its
 * heartbeat 1.5 s in (after the agent's turns began, reparented to pid 1, so neither in the process table taken then
 * nor a descendant of it), while the agent's own detached writer, in a session of its own, is stopped.
 */
async function lateEntrypointService(runtime: Runtime): Promise<void> {
  const dir = await makeTask({
    "task.toml": `[environment]\nworkdir = "/app"\n`,
    "environment/Dockerfile": `FROM pgs-base:1\nWORKDIR /app\n` +
      `ENTRYPOINT ["/bin/sh", "-c", "(sleep 1.5; (while :; do date +%s%N > /tmp/hb; sleep 0.1; done) &) & exec \\"$@\\"", "--"]\n` +
      `CMD ["sleep", "infinity"]\n`,
    "tests/test.sh": `#!/bin/bash\na=$(cat /tmp/hb); sleep 0.5; b=$(cat /tmp/hb)\n` +
      `w=$(ps -eo args | grep -c '[p]gs-agent-bg')\necho "beating=$([ "$a" != "$b" ] && echo 1 || echo 0) agent=$w"\n` +
      `echo 1 > /logs/verifier/reward.txt\n`,
  });
  const before = runtime.tracked().length;
  try {
    const { box, verifier } = await startBoxes(await loadTask(dir), new ImageStore(runtime), {
      verifierMode: "shared-clean",
    });
    try {
      await box.agentPhase();
      await verifier.agentStarts(box);
      const agent = "setsid sh -c 'while :; do sleep 1; done # pgs-agent-bg' >/dev/null 2>&1 < /dev/null & sleep 2.5";
      assert.equal((await box.exec(agent, { timeoutSec: 60 })).exitCode, 0);
      const v = await verify(box, "done", { verifier });
      assert.equal(v.error, undefined);
      assert.equal(v.testOutput, "beating=1 agent=0\n");
      assert.ok(v.metrics.agent_processes_stopped >= 1, JSON.stringify(v.metrics));
    } finally {
      await box.remove();
    }
    assert.equal(runtime.tracked().length, before);
  } finally {
    await removeTask(dir);
  }
}

runtimeTest(
  "verifier mode shared-clean: an entrypoint service forked after the agent began keeps running",
  (runtime) => lateEntrypointService(runtime),
);
