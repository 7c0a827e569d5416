/**
 * The `ExecEnv` contract (docs/runtimes.md), one suite run against every runtime, as hono runs one router suite
 * against every router: the local subprocess runtime, and the episode `Sandbox` on every registered runtime whose
 * engine answers (`runtime_helpers.ts`; the rest of the `Runtime` contract is in runtime_contract_test.ts).
 */
import assert from "node:assert/strict";
import type { ExecEnv } from "../lib/runtime/exec_env.ts";
import { LocalExecEnv } from "../lib/runtime/local_env.ts";
import { text } from "../lib/runtime/channel.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { makeTask, removeTask } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";

/** A fresh local environment holding a.txt. */
async function withLocal(fn: (env: ExecEnv) => Promise<void>): Promise<void> {
  await using env = await LocalExecEnv.create({ files: { "a.txt": "one\n" } });
  await fn(env);
}

/** A fresh episode sandbox on `runtime` holding a.txt in its working directory. */
async function withSandbox(runtime: Runtime, fn: (env: ExecEnv) => Promise<void>): Promise<void> {
  const dir = await makeTask({ "environment/workdir/a.txt": "one\n" });
  try {
    const box = await Sandbox.start(await loadTask(dir), new ImageStore(runtime));
    try {
      await fn(box);
    } finally {
      await box.remove();
    }
  } finally {
    await removeTask(dir);
  }
}

const out = (r: { stdout: Uint8Array }) => text(r.stdout);
const err = (r: { stderr: Uint8Array }) => text(r.stderr);

/** Registers one contract case for the local runtime and for every registered runtime. */
function contract(name: string, fn: (env: ExecEnv) => Promise<void>): void {
  Deno.test(`ExecEnv [local]: ${name}`, () => withLocal(fn));
  runtimeTest(`ExecEnv: ${name}`, (runtime) => withSandbox(runtime, fn));
}

contract("exit codes, stdout and stderr apart, the working directory and cwd", async (env) => {
  const r = await env.exec("cat a.txt; echo oops >&2; exit 3");
  assert.deepEqual([r.exitCode, out(r), err(r), r.timedOut], [3, "one\n", "oops\n", false]);
  assert.equal(out(await env.exec("pwd")), `${env.workdir}\n`);
  assert.equal(out(await env.exec("pwd", { cwd: env.scratch })), `${env.scratch}\n`);
});

contract("sh and bash run as a harness's subprocess: $0 and the shell's own error wording", async (env) => {
  assert.equal(out(await env.exec('echo "$0"', { shell: "sh" })), "/bin/sh\n");
  assert.equal(out(await env.exec('echo "$0"')), "bash\n");
  const r = await env.exec("nosuchcommand-pgs");
  assert.equal(r.exitCode, 127);
  assert.match(err(r), /^bash: line 1: nosuchcommand-pgs: command not found\n$/);
});

contract("merged output keeps the writer's order; the cap keeps the first bytes and counts the rest", async (env) => {
  const m = await env.exec("echo a; echo b >&2; echo c", { mergeStderr: true });
  assert.deepEqual([out(m), err(m)], ["a\nb\nc\n", ""]);
  const big = await env.exec("head -c 5000 /dev/zero | tr '\\0' x", { maxOutputBytes: 100 });
  assert.deepEqual([big.stdout.length, big.stdoutBytes], [100, 5000]);
});

contract("a timeout kills the command's whole group (137), before the next command runs", async (env) => {
  // The background job carries a unique word in its command line; the next command finds no process with it.
  const mark = `pgs-late-${crypto.randomUUID().slice(0, 8)}`;
  const r = await env.exec(`sh -c 'sleep 30; touch ${env.scratch}/${mark}' & sleep 60`, { timeoutSec: 1 });
  assert.deepEqual([r.exitCode, r.timedOut], [137, true]);
  const left = await env.exec(`ps -eo args= | grep -c '[${mark[0]}]${mark.slice(1)}' || true`);
  assert.equal(out(left), "0\n", "the job outlived the command's timeout");
});

contract("a job that keeps the output open holds the command; one with its output elsewhere lives on", async (env) => {
  const held = await env.exec("sleep 30 & echo started", { timeoutSec: 3 });
  assert.deepEqual([held.timedOut, out(held)], [true, "started\n"]);
  // The job waits for a gate that only opens after the call returned: a call that waited for it would time out.
  const stem = `${env.scratch}/pgs-bg-${crypto.randomUUID().slice(0, 8)}`;
  const job = `while [ ! -e ${stem}.gate ]; do sleep 0.1; done; echo up > ${stem}.flag`;
  const bg = await env.exec(`nohup sh -c '${job}' >/dev/null 2>&1 &`, { timeoutSec: 20 });
  assert.deepEqual([bg.exitCode, bg.timedOut], [0, false], "the call returned without waiting for the job");
  assert.equal(out(await env.exec(`[ -e ${stem}.flag ] && echo done || echo waiting`)), "waiting\n");
  await env.exec(`touch ${stem}.gate`);
  const done = `for i in $(seq 100); do [ -e ${stem}.flag ] && break; sleep 0.1; done; cat ${stem}.flag`;
  assert.equal(out(await env.exec(done)), "up\n", "the job lived on and went through the gate");
});

contract("a script longer than one argv string (a large file written in one exec) runs whole", async (env) => {
  // 300 kB of script: more than Linux lets one argument hold (128 KiB), which a write through printf reaches.
  const line = "x".repeat(99);
  const r = await env.exec(`cat > big.txt <<'EOF'\n${`${line}\n`.repeat(3000)}EOF\nwc -c < big.txt; exit 4`);
  assert.equal(r.exitCode, 4, err(r));
  assert.equal(out(r).trim(), "300000");
});
