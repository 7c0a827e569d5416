/**
 * The verifier's inputs cannot be named by the agent (`lib/verify/input_guard.ts`), in every verifier mode on every
 * runtime whose engine answers: one agent plants every kind of link into the answer key (absolute, relative, through
 * a folder link, through /proc, through a link outside the working directory), a FIFO and a device node where the
 * tests read, next to honest links (one inside the working directory, one to a system file). The tests say what each
 * read found; the episode scores 1 only when every forgery held and the honest links still work.
 */
import assert from "node:assert/strict";
import { ImageStore } from "../lib/runtime/images.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { loadTask } from "../lib/task/task.ts";
import { inAgentState, type VerifierMode } from "../lib/task/verifier_mode.ts";
import { verify } from "../lib/verify/verifier.ts";
import { makeTask, removeTask } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";

/** The tests' output when every forgery held and the honest links work. */
const HELD = "abs=held\nrel=held\nchain=held\nproc=held\ndirlink=held\nfifo=held\ndev=held\nhonest=42 host=ok\n";

const TEST_SH = `#!/bin/bash
forged() { if timeout 5 cmp -s "$1" /tests/expected.txt; then echo "$2=forged"; else echo "$2=held"; fi; }
out=$(
forged /app/abs.txt abs; forged /app/rel.txt rel; forged /app/chain.txt chain; forged /app/proc.txt proc
forged /app/t/expected.txt dirlink
timeout 5 cat /app/fifo.txt >/dev/null 2>&1; [ $? = 124 ] && echo fifo=blocked || echo fifo=held
timeout 5 cat /app/dev.txt >/dev/null 2>&1; [ $? = 124 ] && echo dev=endless || echo dev=held
echo "honest=$(cat /app/answer.txt 2>&1) host=$([ -L /app/host ] && [ -s /app/host ] && echo ok)"
)
echo "$out"
if [ "$out" = '${HELD.trimEnd()}' ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;

/** The agent, as the image's user (root) in /app. A device node needs CAP_MKNOD, which podman does not give. */
const AGENT = [
  "ln -s /tests/expected.txt abs.txt && ln -s ../tests/expected.txt rel.txt",
  "ln -s /tests/expected.txt /tmp/k && ln -s /tmp/k chain.txt",
  "ln -s /proc/self/root/tests/expected.txt proc.txt && ln -s /tests t",
  "mkfifo fifo.txt && { mknod dev.txt c 1 5 2>/dev/null || true; }",
  "echo 42 > real.txt && ln -s real.txt answer.txt && ln -s /etc/hostname host",
  // A name the frames must carry whole.
  `ln -s /tests/expected.txt "$(printf 'odd\\nname')"`,
];

/** The task in `mode`; the tests score 1 when their output is HELD. */
function taskFiles(mode: VerifierMode): Record<string, string> {
  const script = TEST_SH;
  const base = `[environment]\ndocker_image = "pgs-base:1"\nworkdir = "/app"\n[verifier]\ntimeout_sec = 60\n`;
  if (mode !== "separate") {
    return { "task.toml": base, "tests/test.sh": script, "tests/expected.txt": "the answer key\n" };
  }
  return {
    "task.toml": `artifacts = ["/app"]\n[task]\nname = "pgs-test/guard-${crypto.randomUUID()}"\n` +
      `${base}environment_mode = "separate"\n[verifier.environment]\nworkdir = "/"\n`,
    "tests/test.sh": script,
    "tests/expected.txt": "the answer key\n",
    "tests/Dockerfile": "FROM pgs-base:1\nCOPY test.sh expected.txt /tests/\nRUN chmod +x /tests/test.sh\n",
  };
}

async function guarded(runtime: Runtime, mode: VerifierMode): Promise<void> {
  const dir = await makeTask(taskFiles(mode));
  const before = runtime.tracked().length;
  try {
    const task = await loadTask(dir);
    const { box, verifier } = await startBoxes(task, new ImageStore(runtime), { verifierMode: mode });
    try {
      await box.agentPhase();
      await verifier.agentStarts(box);
      for (const script of AGENT) assert.equal((await box.exec(script, { timeoutSec: 60 })).exitCode, 0, script);
      const made = await box.exec("[ -c dev.txt ] && echo yes || echo no", { timeoutSec: 30 });
      const device = new TextDecoder().decode(made.stdout).includes("yes");
      const v = await verify(box, "done", { verifier });
      assert.equal(v.testOutput, HELD, v.error);
      assert.equal(v.reward, 1, v.error);
      assert.equal(v.metrics.verifier_timeout, undefined);
      const expected = [
        "/app/abs.txt symlink /tests/expected.txt",
        "/app/rel.txt symlink ../tests/expected.txt",
        "/app/proc.txt symlink /proc/self/root/tests/expected.txt",
        "/app/t symlink /tests",
        "/app/fifo.txt fifo",
        "/app/odd\nname symlink /tests/expected.txt",
        ...device ? ["/app/dev.txt device"] : [],
        // Outside the working directory, only where the agent's state is kept.
        ...inAgentState(mode) ? ["/tmp/k symlink /tests/expected.txt"] : [],
      ].sort();
      // A link into a removed one is removed too when find hands both over in one batch; else it is left dangling.
      const seen = (v.neutralised ?? []).map((n) => `${n.path} ${n.kind}${n.target ? ` ${n.target}` : ""}`)
        .filter((n) => n !== "/app/chain.txt symlink /tmp/k").sort();
      assert.deepEqual(seen, expected);
      assert.equal(v.metrics.inputs_neutralised, v.neutralised?.length);
      assert.ok(v.neutralised!.length - expected.length <= 1);
    } finally {
      await box.remove();
    }
    assert.equal(runtime.tracked().length, before, "the episode's and the verifier's boxes are gone");
  } finally {
    await removeTask(dir);
  }
}

for (const mode of ["isolated", "shared", "snapshot", "separate", "shared-clean"] as const) {
  runtimeTest(
    `input guard (${mode}): no link, FIFO or device of the agent's forges the reward`,
    (r) => guarded(r, mode),
  );
}
