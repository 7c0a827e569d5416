/**
 * The run-wide pod budget without an engine: `--pod-cpus` and `--pod-memory-mb` on every command that starts boxes,
 * `pod_cpus:` and `pod_memory_mb:` in the eval YAML, `HarborEnvOptions.podBudget`, with their bad values, and how the
 * budget reaches the boxes' start options and run.json.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildConfig, readConfigFile } from "../lib/eval/config.ts";
import { fingerprint, podBudget } from "../lib/eval/run_setup.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import type { StartOptions } from "../lib/env/warm_pool.ts";
import { podBudgetFlags } from "../cli/args.ts";
import { COUNT, NO_ENGINE, oneLine } from "./cli_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const BASE = { tasks: "x", policy: "oracle" };

Deno.test("eval: pod_cpus and pod_memory_mb from the YAML or the flags (flags win), default not set", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "c.yaml");
    await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\npod_cpus: 2.5\npod-memory-mb: 4096\n");
    const cfg = buildConfig(await readConfigFile(file), {}, file);
    assert.equal(cfg.podCpus, 2.5);
    assert.equal(cfg.podMemoryMb, 4096);
    assert.deepEqual(podBudget(cfg), { cpus: 2.5, memoryMb: 4096 });
    const flagged = buildConfig(await readConfigFile(file), { podCpus: "0.5", podMemoryMb: "512" }, file);
    assert.deepEqual(podBudget(flagged), { cpus: 0.5, memoryMb: 512 });
    await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\npodCpus: 3\n");
    assert.deepEqual(podBudget(buildConfig(await readConfigFile(file), {}, file)), { cpus: 3 });
    const none = buildConfig(BASE, {}, file);
    assert.equal("podCpus" in none, false);
    assert.equal("podMemoryMb" in none, false);
    assert.equal(podBudget(none), undefined);
    assert.deepEqual(podBudget(buildConfig(BASE, { podMemoryMb: "256" }, file)), { memoryMb: 256 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval: bad pod_cpus and pod_memory_mb name the file key or the flag", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "c.yaml");
    await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\npod-cpus: 0\n");
    const raw = await readConfigFile(file);
    assert.throws(() => buildConfig(raw, {}, file), /^UsageError: .*c\.yaml: podCpus must be > 0, got 0$/);
    await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\npod_memory_mb: 1.5\n");
    const mem = await readConfigFile(file);
    assert.throws(() => buildConfig(mem, {}, file), /c\.yaml: podMemoryMb must be an integer, got 1\.5$/);
    assert.throws(() => buildConfig(BASE, { podCpus: "-1" }, file), /^UsageError: --pod-cpus must be > 0, got -1$/);
    assert.throws(() => buildConfig(BASE, { podCpus: "two" }, file), /--pod-cpus must be a number, got "two"/);
    assert.throws(() => buildConfig(BASE, { podMemoryMb: "0" }, file), /--pod-memory-mb must be > 0, got 0$/);
    assert.throws(() => buildConfig(BASE, { podMemoryMb: "1G" }, file), /--pod-memory-mb must be an integer/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval: run.json records the pod budget only when set, so older runs resume", () => {
  const none = fingerprint(buildConfig(BASE, {}), []);
  assert.equal("podCpus" in none, false);
  assert.equal("podMemoryMb" in none, false);
  const set = fingerprint(buildConfig(BASE, { podCpus: "1.5", podMemoryMb: "2048" }), []);
  assert.equal(set.podCpus, 1.5);
  assert.equal(set.podMemoryMb, 2048);
});

Deno.test("podBudgetFlags: a positive number of CPUs, a positive integer of MB, undefined when neither is given", () => {
  assert.equal(podBudgetFlags("x", {}), undefined);
  assert.deepEqual(podBudgetFlags("x", { "pod-cpus": "0.25" }), { cpus: 0.25 });
  assert.deepEqual(podBudgetFlags("x", { "pod-memory-mb": "1024" }), { memoryMb: 1024 });
  assert.deepEqual(podBudgetFlags("x", { "pod-cpus": "4", "pod-memory-mb": "8192" }), { cpus: 4, memoryMb: 8192 });
  for (const bad of ["0", "-2", "", " ", "x", "Infinity"]) {
    assert.throws(
      () => podBudgetFlags("x", { "pod-cpus": bad }),
      (e: Error) => e.message === `x: --pod-cpus must be a positive number, got ${JSON.stringify(bad)}`,
    );
  }
  for (const bad of ["0", "-1", "1.5", "", "1G"]) {
    assert.throws(
      () => podBudgetFlags("x", { "pod-memory-mb": bad }),
      /^UsageError: x: --pod-memory-mb must be a positive integer/,
    );
  }
});

Deno.test("HarborEnv: podBudget must be positive (memoryMb an integer), and reaches the boxes' start options", async () => {
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new HarborEnv({ podBudget: { cpus: bad } }), /HarborEnv: podBudget\.cpus must be a positive/);
  }
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => new HarborEnv({ podBudget: { memoryMb: bad } }),
      /HarborEnv: podBudget\.memoryMb must be a positive integer/,
    );
  }
  const seen: StartOptions[] = [];
  const capture = (env: HarborEnv) => {
    env.pool.fill = (_task, opts) => (seen.push(opts), 0);
    return env;
  };
  await capture(new HarborEnv({ podBudget: { cpus: 1.5, memoryMb: 2048 } })).warm({ task_dir: COUNT });
  await capture(new HarborEnv({})).warm({ task_dir: COUNT });
  assert.deepEqual(seen[0].podBudget, { cpus: 1.5, memoryMb: 2048 });
  assert.equal(seen[1].podBudget, undefined);
});

Deno.test("--pod-cpus, --pod-memory-mb: a bad value is one line naming the flag, exit 2, on every command", async () => {
  const env = { DOCKER_HOST: NO_ENGINE };
  const cpus = (cmd: string, v: string) =>
    new RegExp(`^pgs: ${cmd}: --pod-cpus must be a positive number, got "${v}"$`);
  const mem = (cmd: string, v: string) =>
    new RegExp(`^pgs: ${cmd}: --pod-memory-mb must be a positive integer, got "${v}"$`);
  await oneLine(["harbor", "check", COUNT, "--pod-cpus", "0"], 2, cpus("harbor check", "0"), env);
  await oneLine(["harbor", "audit", COUNT, "--pod-memory-mb", "1.5"], 2, mem("harbor audit", "1.5"), env);
  await oneLine(["env", "serve", "--pod-cpus", "-1"], 2, cpus("env serve", "-1"), env);
  await oneLine(["env", "serve", "--pod-memory-mb", "2G"], 2, mem("env serve", "2G"), env);
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--pod-cpus", "0"],
    2,
    /^pgs: --pod-cpus must be > 0, got 0$/,
    env,
  );
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--pod-memory-mb", "x"],
    2,
    /--pod-memory-mb must be an integer, got "x"/,
    env,
  );
});
