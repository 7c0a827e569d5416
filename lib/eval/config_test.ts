/** The eval runner's configuration without Docker: flags over the file, bad values, the policy kinds, --cross. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildConfig, DEFAULT_OUT, DEFAULT_SEED, parseWeights, readConfigFile } from "./config.ts";
import { DEFAULT_REQUEST_TIMEOUT_SEC } from "../policies/endpoint_policy.ts";
import { DEFAULT_MAX_TURNS } from "./episode_runner.ts";
import { crossRows, DEFAULT_K, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_STARTING, rowIds } from "./run_episodes.ts";
import { UsageError } from "../base/errors.ts";
import { registerBuiltins } from "../../profiles/mod.ts";

registerBuiltins();

Deno.test("config: flags win over the file, YAML keys take kebab or snake case", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "eval.yaml");
  await Deno.writeTextFile(
    file,
    "tasks: examples/tasks\nendpoint: http://127.0.0.1:8000/v1\nmax-turns: 8\nmax_concurrent: 3\nk: 4\n" +
      "profiles: {opencode: 1, pi: 2}\nchat_template_kwargs: {enable_thinking: false}\n" +
      "hosts: [unix:///a.sock, {host: unix:///b.sock, max_concurrent: 2}]\n",
  );
  const cfg = buildConfig(await readConfigFile(file), { k: "2", temperature: "0.7" }, file);
  assert.equal(cfg.k, 2);
  assert.equal(cfg.maxTurns, 8);
  assert.equal(cfg.maxConcurrent, 3);
  assert.ok(cfg.policy.kind === "endpoint");
  assert.equal(cfg.policy.url, "http://127.0.0.1:8000/v1");
  assert.equal(cfg.policy.sampling.temperature, 0.7);
  assert.equal(cfg.policy.sampling.topP, undefined);
  assert.equal(cfg.policy.tokenIds, false);
  assert.equal(cfg.policy.requestTimeoutSec, DEFAULT_REQUEST_TIMEOUT_SEC);
  assert.deepEqual(cfg.profiles, { opencode: 1, pi: 2 });
  assert.deepEqual(cfg.chatTemplateKwargs, { enable_thinking: false });
  assert.deepEqual(cfg.hosts, [{ host: "unix:///a.sock" }, { host: "unix:///b.sock", maxConcurrent: 2 }]);
  assert.equal(cfg.out, "pgs-eval");
  assert.equal(cfg.maxStarting, 4);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("config: bad values are one-line errors naming the flag or the file key", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "eval.yaml");
  await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\nmax_turn: 3\n");
  await assert.rejects(readConfigFile(file), (e: Error) => e instanceof UsageError && /max_turn/.test(e.message));
  await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\nk: two\n");
  assert.throws(() => buildConfig({ tasks: "x", policy: "oracle", k: "two" }, {}, file), /config|k must be an integer/);
  assert.throws(() => buildConfig({}, { tasks: "x", policy: "oracle", maxTurns: "0" }), /--max-turns must be ≥ 1/);
  assert.throws(() => buildConfig({}, { tasks: "x" }), /--endpoint URL, --policy oracle/);
  assert.throws(() => buildConfig({}, { tasks: "x", policy: "random" }), /--policy must be endpoint, oracle/);
  assert.throws(
    () => buildConfig({}, { tasks: "x", policy: "oracle", chatTemplateKwargs: "{no" }),
    /--chat-template-kwargs is not JSON/,
  );
  assert.throws(() => buildConfig({}, { tasks: "x", policy: "oracle", profile: "a", profiles: "b" }), /exclude/);
  assert.throws(() => parseWeights("--profiles", "a=x"), /weight of a must be a number/);
  assert.deepEqual(parseWeights("--profiles", "opencode, pi=2"), { opencode: 1, pi: 2 });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("config: the policy is parsed once into its kind; defaults are the named constants", () => {
  const oracle = buildConfig({}, { tasks: "x", policy: "oracle" });
  assert.deepEqual(oracle.policy, { kind: "oracle" });
  assert.deepEqual(
    [oracle.k, oracle.maxTurns, oracle.maxConcurrent, oracle.maxStarting, oracle.seed, oracle.out],
    [DEFAULT_K, DEFAULT_MAX_TURNS, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_STARTING, DEFAULT_SEED, DEFAULT_OUT],
  );
  assert.deepEqual(buildConfig({ tasks: "x", policy: "script:t.json" }, {}).policy, { kind: "script", path: "t.json" });
  // A flag's policy wins over the file's endpoint policy, and the file's endpoint then has no use.
  assert.throws(
    () => buildConfig({ tasks: "x", endpoint: "http://h/v1" }, { policy: "oracle" }, "e.yaml"),
    /^UsageError: eval: e.yaml: endpoint is only used with --policy endpoint \(policy is oracle\)$/,
  );
  assert.throws(
    () => buildConfig({}, { tasks: "x", policy: "script:" }),
    /--policy must be endpoint, oracle or script/,
  );
  assert.throws(() => buildConfig({}, { tasks: "x", policy: "endpoint" }), /--policy endpoint needs --endpoint URL/);
  const ep = buildConfig({}, { tasks: "x", endpoint: "http://h/v1", topK: "5", tokenIds: true, apiKeyEnv: "K" });
  assert.deepEqual(ep.policy, {
    kind: "endpoint",
    url: "http://h/v1",
    apiKeyEnv: "K",
    sampling: { temperature: undefined, topP: undefined, topK: 5, maxTokens: undefined },
    tokenIds: true,
    requestTimeoutSec: DEFAULT_REQUEST_TIMEOUT_SEC,
  });
  // Errors name the flag the user typed, and each field is checked for its own type.
  assert.throws(
    () => buildConfig({}, { tasks: "x", endpoint: "u", requestTimeoutSec: "0" }),
    /^UsageError: --request-timeout must be ≥ 1$/,
  );
  assert.throws(
    () => buildConfig({}, { tasks: "x", policy: "oracle", hosts: [7] }),
    /--docker-host\[0\] must be a DOCKER_HOST/,
  );
  assert.throws(
    () => buildConfig({ tasks: "x", policy: "oracle", images: { a: 1 } }, {}, "e.yaml"),
    /e.yaml: images: a must map to a name/,
  );
  assert.throws(
    () => buildConfig({ tasks: "x", policy: "oracle", redo: "yes" }, {}, "e.yaml"),
    /e.yaml: redo must be true or false/,
  );
  assert.throws(
    () => buildConfig({}, { tasks: "x", policy: "oracle", verifierMode: "nowhere" }),
    /--verifier-mode must be one of/,
  );
});

Deno.test("config: cross from --cross or the file's cross: true, and only with a profile mix", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "eval.yaml");
  await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\nprofiles: opencode=1,pi=1\ncross: true\n");
  assert.equal(buildConfig(await readConfigFile(file), {}, file).cross, true);
  assert.equal(buildConfig({}, { tasks: "x", policy: "oracle", profiles: "pi,opencode", cross: true }).cross, true);
  assert.equal(buildConfig({}, { tasks: "x", policy: "oracle", profiles: "pi,opencode" }).cross, false);
  assert.throws(
    () => buildConfig({}, { tasks: "x", policy: "oracle", profile: "pi", cross: true }),
    /^UsageError: eval: --cross needs --profiles/,
  );
  assert.throws(
    () => buildConfig({ tasks: "x", policy: "oracle", profiles: "pi", cross: "yes" }, {}, "e.yaml"),
    /e.yaml: cross must be true or false/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("crossRows: every row once per profile of the mix, pinned to it, each its own group; stable ids", () => {
  const rows = [{ task_dir: "/t/a" }, { task_dir: "/t/b", max_turns: 3 }, { task_dir: "/t/c", harness_profile: "pi" }];
  const crossed = crossRows(rows, { opencode: 1, pi: 2, "claude-code": 0 });
  assert.deepEqual(crossed, [
    { task_dir: "/t/a", harness_profile: "opencode" },
    { task_dir: "/t/a", harness_profile: "pi" },
    { task_dir: "/t/b", max_turns: 3, harness_profile: "opencode" },
    { task_dir: "/t/b", max_turns: 3, harness_profile: "pi" },
    { task_dir: "/t/c", harness_profile: "pi" },
  ]);
  assert.deepEqual(crossRows(crossed, { opencode: 1, pi: 2 }), crossed, "crossing twice changes nothing");
  const ids = rowIds(crossed);
  assert.equal(new Set(ids).size, crossed.length, "a group per task and profile");
  // Resume matches episodes by these ids: the same rows and mix give the same ids on the next run.
  assert.deepEqual(rowIds(crossRows(rows, { opencode: 1, pi: 2 })), ids);
});

Deno.test("config: slurm is true or {nodes, partition, time}, checked; absent by default", () => {
  const base = { tasks: "x", policy: "oracle" };
  assert.equal(buildConfig(base, {}).slurm, undefined);
  assert.deepEqual(buildConfig({ ...base, slurm: true }, {}).slurm, {});
  assert.deepEqual(
    buildConfig({ ...base, slurm: { nodes: 2, partition: "gpu", time: "1:00:00" } }, {}, "e.yaml").slurm,
    { nodes: 2, partition: "gpu", time: "1:00:00" },
  );
  assert.deepEqual(buildConfig(base, { slurm: { nodes: "3" } }).slurm, { nodes: 3 });
  assert.throws(() => buildConfig({ ...base, slurm: { nodes: 0 } }, {}, "e.yaml"), /e.yaml: slurm: nodes must be/);
  assert.throws(() => buildConfig({ ...base, slurm: { node: 2 } }, {}, "e.yaml"), /unknown key "node"/);
  assert.throws(() => buildConfig(base, { slurm: { time: "1; rm" } }), /--slurm: time must be a name/);
});
