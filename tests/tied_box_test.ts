/**
 * Boxes tied to a pipe (`BoxSpec.pipe`, `run -i --rm`) on every registered runtime: the box is its main process's,
 * closing the pipe ends it and the engine removes it, a failed start leaves nothing, a pgs killed outright leaves
 * nothing; and the isolated verifier, whose box is tied, takes its inputs and gives its results through the pipe
 * (no engine call names its box), or through copies and execs when the image lacks GNU tar.
 */
import assert from "node:assert/strict";
import { BoxStartError, type Runtime } from "../lib/runtime/runtime.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { loadTask } from "../lib/task/task.ts";
import { verify } from "../lib/verify/verifier.ts";
import { makeTask, removeTask, waitFor } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { BASE_IMAGE } from "./docker_helpers.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";

const enc = new TextEncoder();
const LIMITS = { cpus: 1, memoryMb: 256, pidsLimit: 64 };

/** Records the argv of every engine CLI call `runtime` makes while `fn` runs. */
async function recordCalls<T>(runtime: Runtime, fn: () => Promise<T>): Promise<{ result: T; calls: string[][] }> {
  const cli = runtime as unknown as {
    call: (args: string[], o?: unknown) => Promise<unknown>;
    spawn: (args: string[], o?: unknown) => unknown;
  };
  const calls: string[][] = [];
  const [call, spawn] = [cli.call, cli.spawn];
  cli.call = function (args, o) {
    calls.push(args);
    return call.call(this, args, o);
  };
  cli.spawn = function (args, o) {
    calls.push(args);
    return spawn.call(this, args, o);
  };
  try {
    return { result: await fn(), calls };
  } finally {
    [cli.call, cli.spawn] = [call, spawn];
  }
}

runtimeTest("a box tied to a pipe answers on it, and closing the pipe removes it", async (runtime) => {
  const box = await runtime.start({
    image: BASE_IMAGE,
    limits: LIMITS,
    role: "test-tied",
    task: "tied",
    workdir: "/",
    user: "0",
    command: ["/bin/sh", "-c", "echo 'PGS-T hello'; while IFS= read -r l; do echo \"got $l\"; done"],
    replaceEntrypoint: true,
    pipe: { ready: "PGS-T" },
  });
  assert.equal(box.main?.hello, "PGS-T hello");
  assert.ok(runtime.tracked().includes(box.id));
  const release = box.main!.hold(); // an idle tied box keeps nothing alive: a request does
  await box.main!.writer.write(enc.encode("ping\n"));
  assert.equal(await box.main!.reader.readLine(), "got ping");
  release();
  assert.equal((await box.state()).status, "running");
  assert.equal(await box.remove(), true);
  assert.ok(!runtime.tracked().includes(box.id));
  // The CLI exits once the engine removed the box: nothing to wait for.
  assert.equal((await runtime.box(box.id).state()).status, "unknown");
});

runtimeTest("a tied box that cannot start says why in one line and leaves nothing", async (runtime) => {
  const before = runtime.tracked().length;
  const err = await runtime.start({
    image: BASE_IMAGE,
    limits: LIMITS,
    role: "test-tied",
    task: "tied",
    workdir: "/",
    command: ["/no/such/program"],
    replaceEntrypoint: true,
    pipe: { ready: "PGS-T" },
  }).then(() => undefined, (e) => e);
  assert.ok(err instanceof BoxStartError, String(err));
  assert.match(err.message, /no\/such\/program|no such file|not found/i);
  assert.equal(runtime.tracked().length, before);
});

runtimeTest("a pgs killed outright leaves no tied box behind (the pipe closes, the engine removes it)", async (r) => {
  const mod = new URL("../lib/runtime/registry.ts", import.meta.url).href;
  const marker = `pgs-tied-${crypto.randomUUID().slice(0, 8)}`;
  const script = `import { createRuntime } from ${JSON.stringify(mod)};
const rt = createRuntime(${JSON.stringify(r.kind)});
const b = await rt.start({ image: ${JSON.stringify(BASE_IMAGE)}, limits: ${JSON.stringify(LIMITS)}, role: "test-tied",
  task: ${JSON.stringify(marker)}, workdir: "/", user: "0", replaceEntrypoint: true, pipe: { ready: "PGS-T" },
  command: ["/bin/sh", "-c", "echo PGS-T; exec cat"] });
console.log(b.id);
await new Promise(() => {});`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "inherit",
    env: r.host ? { DOCKER_HOST: r.host } : {},
  }).spawn();
  const reader = child.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value ?? new Uint8Array()).trim();
  assert.match(first, /^[0-9a-f]{64}$/, `the child started a box: ${first}`);
  assert.equal((await r.box(first).state()).status, "running");
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel();
  const gone = await waitFor(async () => (await r.box(first).state()).status === "unknown", 30_000);
  assert.ok(gone, "the engine removed the box of the killed process");
});

const TEST_SH = `#!/bin/bash
echo "answer=$(cat /app/answer.txt) msg=$(cat /logs/agent/final_message.md) env=$PGS_V"
[ "$(cat /app/answer.txt)" = 42 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
`;

/** The ids of boxes other than `own` that the recorded calls name (as an argument or in `ID:PATH`). */
function othersNamed(calls: string[][], own: string): string[][] {
  return calls.filter((c) => c.some((a) => /^[0-9a-f]{64}(:|$)/.test(a) && !a.startsWith(own)));
}

async function isolatedEpisode(runtime: Runtime, dockerfile?: string): Promise<string[][]> {
  const toml = `[environment]\n${dockerfile ? "" : `docker_image = "${BASE_IMAGE}"\n`}workdir = "/app"\n` +
    `[verifier]\nenv = { PGS_V = "v1" }\n`;
  const files: Record<string, string> = { "task.toml": toml, "tests/test.sh": TEST_SH };
  if (dockerfile) files["environment/Dockerfile"] = dockerfile;
  const dir = await makeTask(files);
  try {
    const task = await loadTask(dir);
    const { box, verifier } = await startBoxes(task, new ImageStore(runtime), { verifierMode: "isolated" });
    try {
      assert.equal((await box.exec("echo 42 > answer.txt", { timeoutSec: 60 })).exitCode, 0);
      const { result: v, calls } = await recordCalls(runtime, () => verify(box, "done", { verifier }));
      assert.equal(v.error, undefined);
      assert.equal(v.testOutput, "answer=42 msg=done env=v1\n");
      assert.equal(v.reward, 1);
      return othersNamed(calls, box.id);
    } finally {
      await box.remove();
    }
  } finally {
    await removeTask(dir);
  }
}

runtimeTest("the isolated verifier's box takes its inputs and gives its results through its pipe", async (runtime) => {
  const named = await isolatedEpisode(runtime);
  // No call named the verifier's box: no copy into it, no exec, no removal through the engine's CLI.
  assert.deepEqual(named, []);
});

runtimeTest("an image without GNU tar is verified through copies and execs, with the same result", async (runtime) => {
  // Without a `tar --version` that says GNU, the stage is copied in by the engine and the tests run in an exec.
  const named = await isolatedEpisode(runtime, `FROM ${BASE_IMAGE}\nRUN rm -f /bin/tar /usr/bin/tar\n`);
  assert.ok(named.some((c) => c[0] === "exec"), `calls: ${named.map((c) => c.slice(0, 2).join(" ")).join("; ")}`);
  assert.ok(named.some((c) => c[0] === "cp"));
});

runtimeTest("a tied verifier that times out is killed, and scores the timeout", async (runtime) => {
  const dir = await makeTask({
    "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\nworkdir = "/app"\n[verifier]\ntimeout_sec = 2\n`,
    "tests/test.sh": "#!/bin/bash\nsleep 600\n",
  });
  try {
    const task = await loadTask(dir);
    const before = runtime.tracked().length;
    const { box, verifier } = await startBoxes(task, new ImageStore(runtime), { verifierMode: "isolated" });
    try {
      const v = await verify(box, "done", { verifier });
      assert.equal(v.reward, 0);
      assert.equal(v.metrics.verifier_timeout, 1);
      assert.match(v.error ?? "", /timed out after 2 s/);
      // The box's `timeout` ended the tests at their 2 s, not the host's bound (their timeout + PREPARE_SLACK_SEC).
      assert.ok(v.timings.tests < 20_000, `the tests ran ${v.timings.tests} ms`);
    } finally {
      await box.remove();
    }
    assert.equal(runtime.tracked().length, before, "both boxes are gone");
  } finally {
    await removeTask(dir);
  }
});

async function execsToStart(runtime: Runtime, dockerfile?: string): Promise<{ execs: string[][]; killed: boolean }> {
  const files: Record<string, string> = {
    "task.toml": `[environment]\n${dockerfile ? "" : `docker_image = "${BASE_IMAGE}"\n`}workdir = "/app"\n`,
    "tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
  };
  if (dockerfile) files["environment/Dockerfile"] = dockerfile;
  const dir = await makeTask(files);
  try {
    const task = await loadTask(dir);
    const store = new ImageStore(runtime);
    await store.resolve(task); // built before the calls are counted
    const { result, calls } = await recordCalls(runtime, async () => {
      const { box } = await startBoxes(task, store, { verifierMode: "shared" });
      try {
        assert.equal((await box.exec("echo hi", { timeoutSec: 30 })).exitCode, 0);
        // A command past its timeout is killed, whoever the killer is.
        const r = await box.exec("sleep 600 & sleep 600", { timeoutSec: 1 });
        return r.timedOut && r.exitCode === 137 && (await box.exec("echo still", { timeoutSec: 30 })).exitCode === 0;
      } finally {
        await box.remove();
      }
    });
    return { execs: calls.filter((c) => c[0] === "exec"), killed: result };
  } finally {
    await removeTask(dir);
  }
}

runtimeTest(
  "the agent box's main process is the channel's killer where the image runs as root without ENTRYPOINT",
  async (rt) => {
    const plain = await execsToStart(rt);
    assert.ok(plain.killed);
    assert.equal(plain.execs.length, 1, `one exec, the channel: ${plain.execs.map((c) => c.slice(0, 4).join(" "))}`);
    // An image with an ENTRYPOINT keeps its own main process: the killer is an exec of its own, as before.
    const entry = await execsToStart(rt, `FROM ${BASE_IMAGE}\nENTRYPOINT ["/usr/bin/env"]\n`);
    assert.ok(entry.killed);
    assert.equal(
      entry.execs.length,
      2,
      `the channel and the killer: ${entry.execs.map((c) => c.slice(0, 4).join(" "))}`,
    );
  },
);
