/**
 * task.toml: defaults, the fields Harbor knows, unknown keys, and errors that name the file, line and field (Harbor's
 * own reading of its fields: `task_config_harbor_test.ts`).
 */
import assert from "node:assert/strict";
import { parseTaskConfig } from "./task_config.ts";
import { captured, noEnv, throwsTask } from "../../tests/task_config_helpers.ts";

Deno.test("an empty task.toml gets every default", () => {
  const c = parseTaskConfig("", "task.toml", noEnv);
  assert.deepEqual(c, {
    description: "",
    environment: {
      cpus: 1,
      memoryMb: 2048,
      pidsLimit: 512,
      allowInternet: false,
      buildTimeoutSec: 600,
      env: {},
      network: { mode: "no-network", allowedHosts: [] },
      networkUnset: true,
    },
    verifier: { timeoutSec: 120, allowInternet: false, captureTimeoutSec: 60, env: {}, collect: [] },
    agent: { timeoutSec: 900 },
    solution: { env: {} },
    metadata: {},
    artifacts: [],
    multiStepRewardStrategy: "mean",
    warnings: [],
  });
});

Deno.test("the seed's full task.toml", () => {
  const text = `
[task]
name = "org/hello"
description = "Write ciao"

[environment]
docker_image = "my-base:1"
cpus = 1.5
memory_mb = 4096
pids_limit = 256
allow_internet = true
workdir = "/app"
build_timeout_sec = 300
env = { APP_ENV = "test", N = 3, B = true }

[environment.healthcheck]
command = "pg_isready"
retries = 0
interval_sec = 0.5
timeout_sec = 5
start_period_sec = 0

[verifier]
timeout_sec = 30
capture = "python3 -I /opt/h3/capture.py /workdir"
capture_timeout_sec = 10
env = { EXPECTED = "ciao" }

[agent]
timeout_sec = 60

[metadata]
difficulty = "easy"
tags = ["a", { b = 1 }]
`;
  const c = parseTaskConfig(text, "task.toml", noEnv);
  assert.equal(c.name, "org/hello");
  assert.equal(c.description, "Write ciao");
  assert.deepEqual(c.environment, {
    dockerImage: "my-base:1",
    cpus: 1.5,
    memoryMb: 4096,
    pidsLimit: 256,
    allowInternet: true,
    workdir: "/app",
    buildTimeoutSec: 300,
    env: { APP_ENV: "test", N: "3", B: "true" },
    healthcheck: { command: "pg_isready", retries: 0, intervalSec: 0.5, timeoutSec: 5, startPeriodSec: 0 },
    network: { mode: "public", allowedHosts: [] },
    networkUnset: false,
  });
  // The verifier inherits the environment's network unless it says otherwise.
  assert.deepEqual(c.verifier, {
    timeoutSec: 30,
    allowInternet: true,
    capture: "python3 -I /opt/h3/capture.py /workdir",
    captureTimeoutSec: 10,
    env: { EXPECTED: "ciao" },
    collect: [],
  });
  assert.deepEqual(c.agent, { timeoutSec: 60 });
  assert.deepEqual(c.metadata, { difficulty: "easy", tags: ["a", { b: 1 }] });
  assert.deepEqual(c.warnings, []);
});

Deno.test("every Harbor field is accepted; those pgs does not apply are warned about once per run, by name", () => {
  const text = `
schema_version = "1.4"
source = "terminal-bench"
multi_step_reward_strategy = "mean"
artifacts = ["/app/out.txt", { source = "/var/log/x.log", service = "main", destination = "x.log" }]

[task]
name = "org/t"
version = "1.0.0"
description = "d"
authors = [{ name = "A", email = "a@example.com" }]
keywords = ["k"]

[environment]
network_mode = "public"
allowed_hosts = []
build_timeout_sec = 600.0
docker_image = "img"
os = "linux"
cpus = 2
storage_mb = 10240
gpus = 0
gpu_types = ["H100"]
tpu = { type = "v5", topology = "2x2" }
skills_dir = "/skills"
workdir = "/app"

[[environment.mcp_servers]]
name = "m"
transport = "sse"
url = "http://localhost:1"

[environment.healthcheck]
command = "true"
interval_sec = 5.0
timeout_sec = 30.0
start_period_sec = 1.0
start_interval_sec = 5.0
retries = 3

[agent]
timeout_sec = 900.0
user = "agent"
network_mode = "no-network"
allowed_hosts = []

[verifier]
timeout_sec = 600.0
user = 0
environment_mode = "separate"
network_mode = "no-network"
allowed_hosts = []
env = { K = "v" }

[verifier.environment]
docker_image = "judge"

[[verifier.collect]]
command = "cat /x"

[solution]
env = { S = "s" }
`;
  const { result: c, warned } = captured(() => {
    parseTaskConfig(text, "harbor/task.toml", noEnv);
    return parseTaskConfig(text.replace('name = "org/t"', 'name = "org/u"'), "harbor2/task.toml", noEnv);
  });
  const notApplied = [
    "environment.mcp_servers",
    "environment.skills_dir",
    "environment.gpu_types",
    "environment.tpu",
  ];
  // Once per run per key, naming the first task that set it.
  assert.deepEqual(
    [...warned].sort(),
    notApplied.map((k) =>
      `harbor/task.toml: ${k} is accepted but not applied by pgs (further tasks that set it are not named)`
    )
      .sort(),
  );
  assert.equal(c.warnings.length, notApplied.length, "each parse still lists its own notes");
  assert.equal(c.schemaVersion, "1.4");
  // Applied (the boxes' disk bound), so not among the notes.
  assert.equal(c.environment.storageMb, 10240);
  // The agent phase's own network is applied to the agent's box.
  const none = { mode: "no-network", allowedHosts: [] };
  assert.deepEqual(c.agent, { timeoutSec: 900, user: "agent", allowInternet: false, network: none });
  assert.deepEqual(c.verifier.network, none);
  assert.equal(c.verifier.user, "0");
  assert.equal(c.verifier.environmentMode, "separate");
  assert.equal(c.verifier.environment?.dockerImage, "judge");
  // Harbor's collect hooks run (lib/verify/collect_hooks.ts): kept, not warned.
  assert.deepEqual(c.verifier.collect, [{ command: "cat /x", service: "main", timeoutSec: 60 }]);
  assert.deepEqual(c.artifacts, [
    { source: "/app/out.txt", exclude: [] },
    { source: "/var/log/x.log", destination: "x.log", exclude: [] },
  ]);
  assert.equal(c.environment.allowInternet, true);
  assert.equal(c.environment.storageMb, 10240);
  assert.equal(c.verifier.allowInternet, false);
  assert.deepEqual(c.solution, { env: { S: "s" } });
  assert.equal(c.environment.healthcheck?.startPeriodSec, 1);
});

Deno.test("Terminal-Bench 2's legacy fields", () => {
  const text =
    `version = "1.0"\n[environment]\ndocker_image = "alexgshaw/t:20251031"\nmemory = "2G"\nstorage = "10G"\n`;
  const c = parseTaskConfig(text, "task.toml", noEnv);
  assert.equal(c.schemaVersion, "1.0");
  assert.equal(c.environment.memoryMb, 2048);
  assert.equal(c.environment.storageMb, 10240);
});

Deno.test("memory strings", () => {
  const mb = (m: string) => parseTaskConfig(`[environment]\nmemory = "${m}"`, "task.toml", noEnv).environment.memoryMb;
  assert.equal(mb("2G"), 2048);
  assert.equal(mb("512M"), 512);
  assert.equal(mb("1024K"), 1);
  assert.equal(mb("1.5g"), 1536);
  assert.equal(mb("4GB"), 4096);
  throwsTask(() => mb("2T"), /^task\.toml:2: environment\.memory must be a size .* got "2T"$/);
  throwsTask(() => mb("512"), /environment\.memory must be a size/);
  // The same amount twice is no conflict.
  assert.equal(
    parseTaskConfig(`[environment]\nmemory = "1G"\nmemory_mb = 1024`, "t", noEnv).environment.memoryMb,
    1024,
  );
  throwsTask(
    () => parseTaskConfig(`[environment]\nmemory_mb = 1024\nmemory = "2G"`, "task.toml", noEnv),
    'task.toml:3: environment.memory = "2G" (2048 MB) conflicts with environment.memory_mb = 1024',
  );
});

Deno.test("unknown keys warn once, never fail", () => {
  const text = `colour = 1\n[environment]\nfoo = 1\n[environment.healthcheck]\ncommand = "true"\nbar = 2\n`;
  const { result: c, warned } = captured(() => {
    parseTaskConfig(text, "unknown/task.toml", noEnv);
    return parseTaskConfig(text, "unknown/task.toml", noEnv);
  });
  const expected = [
    "unknown/task.toml: unknown key colour ignored",
    "unknown/task.toml: unknown key environment.foo ignored",
    "unknown/task.toml: unknown key environment.healthcheck.bar ignored",
  ];
  assert.deepEqual(warned, expected);
  // Each parse still reports its own warnings, even those already printed.
  assert.deepEqual(c.warnings, expected);
});

Deno.test("a bad field names the file, line, field and value", () => {
  const text = `[task]
name = "org/x"
description = "d"

[environment]
docker_image = "img"
cpus = "two"
`;
  throwsTask(
    () => parseTaskConfig(text, "task.toml", noEnv),
    'task.toml:7: environment.cpus must be a positive number, got "two"',
  );
  const bad = (toml: string, message: string) => throwsTask(() => parseTaskConfig(toml, "t.toml", noEnv), message);
  bad(`[environment]\nmemory_mb = 1.5`, "t.toml:2: environment.memory_mb must be a positive integer, got 1.5");
  bad(`[environment]\npids_limit = 0`, "t.toml:2: environment.pids_limit must be a positive integer, got 0");
  bad(`[environment]\nallow_internet = "maybe"`, 't.toml:2: environment.allow_internet must be a boolean, got "maybe"');
  bad(`[environment]\nworkdir = "app"`, 't.toml:2: environment.workdir must be an absolute path, got "app"');
  bad(`[verifier]\ntimeout_sec = -1`, "t.toml:2: verifier.timeout_sec must be a positive number, got -1");
  bad(`agent.timeout_sec = 0`, "t.toml:1: agent.timeout_sec must be a positive number, got 0");
  bad(`environment = 3`, "t.toml:1: environment must be a table, got 3");
  bad(
    `[environment.healthcheck]\ncommand = "x"\nretries = -1`,
    "t.toml:3: environment.healthcheck.retries must be a non-negative integer, got -1",
  );
  bad(
    `[environment.healthcheck]\ncommand = "x"\nstart_period_sec = -1`,
    "t.toml:3: environment.healthcheck.start_period_sec must be a non-negative number, got -1",
  );
  bad(`[environment]\ndocker_image = ""`, 't.toml:2: environment.docker_image must be a non-empty string, got ""');
});

Deno.test("a TOML syntax error reports smol-toml's line", () => {
  throwsTask(
    () => parseTaskConfig(`[task]\nname = "a/b"\ncpus = = 1\n`, "x/task.toml", noEnv),
    /^x\/task\.toml:3: invalid TOML: /,
  );
  throwsTask(() => parseTaskConfig(`a = 1\na = 2\n`, "task.toml", noEnv), /^task\.toml:2: invalid TOML: [^\n]+$/);
});

Deno.test("[task] name must be org/name", () => {
  for (const name of ["hello", "org/", ".org/x", "org/x/y", "org/a..b", "o rg/x"]) {
    throwsTask(
      () => parseTaskConfig(`\n[task]\nname = ${JSON.stringify(name)}`, "task.toml", noEnv),
      new RegExp(
        `^task\\.toml:3: task\\.name must be "org/name" .*got ${JSON.stringify(name).replace(/[.]/g, "\\.")}$`,
      ),
    );
  }
  assert.equal(parseTaskConfig(`[task]\nname = "my-org.x/task_1"`, "t", noEnv).name, "my-org.x/task_1");
});

Deno.test("[environment.healthcheck] needs a command", () => {
  throwsTask(
    () => parseTaskConfig(`[environment]\ncpus = 1\n[environment.healthcheck]\nretries = 3`, "task.toml", noEnv),
    "task.toml:3: environment.healthcheck.command is required",
  );
});

// task.toml as Harbor reads it: network modes, env templates, value coercions, refused fields, [[steps]].
