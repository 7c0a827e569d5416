/**
 * task.toml: defaults, the fields Harbor knows, unknown keys, and errors that name the file, line and field; then
 * task.toml as Harbor reads it: network modes, env templates, value coercions, refused fields, [[steps]], validators.
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
    verifier: { timeoutSec: 120, allowInternet: false, captureTimeoutSec: 60, env: {} },
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
    "verifier.collect",
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

Deno.test("network_mode maps to allowInternet, per phase", () => {
  const net = (text: string) => {
    const c = captured(() => parseTaskConfig(text, `net-${text}.toml`, noEnv)).result;
    return [c.environment.allowInternet, c.verifier.allowInternet];
  };
  assert.deepEqual(net(`[environment]\nnetwork_mode = "public"`), [true, true]);
  assert.deepEqual(net(`[environment]\nnetwork_mode = "no-network"`), [false, false]);
  assert.deepEqual(net(`[environment]\nnetwork_mode = "public"\n[verifier]\nnetwork_mode = "no-network"`), [
    true,
    false,
  ]);
  assert.deepEqual(net(`[environment]\nallow_internet = true\nnetwork_mode = "public"`), [true, true]);
  assert.deepEqual(net(`[verifier]\nallow_internet = true`), [false, true]);
});

Deno.test("network_mode allowlist runs with no network and warns", () => {
  const text = `[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]`;
  const { result: c, warned } = captured(() => parseTaskConfig(text, "allow/task.toml", noEnv));
  assert.equal(c.environment.allowInternet, false);
  assert.equal(warned.length, 1);
  assert.match(warned[0], /^allow\/task\.toml: environment\.network_mode = "allowlist" is not enforced/);
  assert.deepEqual(c.warnings, warned);
});

Deno.test("network_mode decides over allow_internet, as in Harbor; a bad mode is an error", () => {
  const { result: c, warned } = captured(() =>
    parseTaskConfig(`[environment]\nallow_internet = false\nnetwork_mode = "public"`, "nm/task.toml", noEnv)
  );
  assert.deepEqual(c.environment.network, { mode: "public", allowedHosts: [] });
  assert.equal(c.environment.allowInternet, true);
  assert.deepEqual(warned, [
    'nm/task.toml: environment.allow_internet = false is ignored: environment.network_mode = "public" decides, as in Harbor',
  ]);
  throwsTask(
    () => parseTaskConfig(`[verifier]\nnetwork_mode = "open"`, "task.toml", noEnv),
    'task.toml:2: verifier.network_mode must be "public", "no-network" or "allowlist", got "open"',
  );
});

Deno.test("env tables read host variables as Harbor does: a whole ${VAR} or ${VAR:-default}, else as written", () => {
  const host: Record<string, string> = { KEY: "secret", EMPTY: "" };
  const text = `
[environment]
env = { A = "\${KEY}", B = "\${KEY}-x", C = "\${EMPTY:-dflt}", D = "\${NOPE:-d2}", E = "cost $$5", F = "$KEY", G = "\${EMPTY}" }
`;
  const c = parseTaskConfig(text, "envtest/task.toml", (n) => host[n]);
  // Set but empty is "", even with a default (Harbor checks `name in os.environ`); inline `$` is not a template.
  assert.deepEqual(c.environment.env, { A: "secret", B: "${KEY}-x", C: "", D: "d2", E: "cost $$5", F: "$KEY", G: "" });
  assert.deepEqual(c.warnings, []);
});

Deno.test("an unset ${VAR} without a default is an error naming the file, the field and the variable", () => {
  for (const table of ["environment.env", "verifier.env", "solution.env"]) {
    throwsTask(
      () => parseTaskConfig(`[${table}]\nTOKEN = "\${OPENROUTER_API_KEY}"\n`, "t/task.toml", () => undefined),
      `t/task.toml:2: ${table}.TOKEN = "\${OPENROUTER_API_KEY}": the host variable OPENROUTER_API_KEY is not set ` +
        `(Harbor refuses to start the task until it is; export it, even empty, or write ` +
        `"\${OPENROUTER_API_KEY:-default}")`,
    );
  }
  const steps = `[[steps]]\nname = "a"\n[steps.verifier.env]\nK = "\${GONE}"\n`;
  throwsTask(
    () => parseTaskConfig(steps, "t/task.toml", () => undefined),
    /steps\.0\.verifier\.env\.K .*GONE is not set/,
  );
});

Deno.test("an env value that is not a scalar is an error", () => {
  throwsTask(
    () => parseTaskConfig(`[solution]\nenv = { A = "x", B = [1] }`, "task.toml", noEnv),
    "task.toml:2: solution.env.B must be a string, got [1]",
  );
});

Deno.test("Harbor's value coercions: numeric strings, integral floats, pydantic's boolean strings", () => {
  const c = parseTaskConfig(
    `[environment]\ncpus = "2"\nmemory_mb = 1024.0\nallow_internet = "true"\nbuild_timeout_sec = " 300.5 "\n` +
      `[verifier]\ntimeout_sec = "600"\nallow_internet = "off"\n[agent]\ntimeout_sec = "1e2"\nuser = 1000\n` +
      `[environment.healthcheck]\ncommand = "true"\nretries = "3"`,
    "t.toml",
    noEnv,
  );
  assert.equal(c.environment.cpus, 2);
  assert.equal(c.environment.memoryMb, 1024);
  assert.equal(c.environment.allowInternet, true);
  assert.equal(c.environment.buildTimeoutSec, 300.5);
  assert.equal(c.verifier.timeoutSec, 600);
  assert.equal(c.verifier.allowInternet, false);
  assert.equal(c.agent.timeoutSec, 100);
  assert.equal(c.agent.user, "1000");
  assert.equal(c.environment.healthcheck?.retries, 3);
  for (const [v, b] of [["yes", true], ["1", true], ["ON", true], ["n", false], ["0", false], [1, true], [0, false]]) {
    const t = `[environment]\nallow_internet = ${JSON.stringify(v)}`;
    assert.equal(parseTaskConfig(t, "t.toml", noEnv).environment.allowInternet, b, `allow_internet = ${v}`);
  }
  // What Harbor rejects stays rejected, with the same one-line error.
  const bad = (toml: string, message: string) => throwsTask(() => parseTaskConfig(toml, "t.toml", noEnv), message);
  bad(`[environment]\nmemory_mb = "1.5"`, 't.toml:2: environment.memory_mb must be a positive integer, got "1.5"');
  bad(`[environment]\ncpus = "2 cores"`, 't.toml:2: environment.cpus must be a positive number, got "2 cores"');
  bad(`[environment]\nallow_internet = 2`, "t.toml:2: environment.allow_internet must be a boolean, got 2");
  bad(`[agent]\nuser = ""`, 't.toml:2: agent.user must be a user name or a non-negative integer id, got ""');
  bad(`[agent]\nuser = -1`, "t.toml:2: agent.user must be a user name or a non-negative integer id, got -1");
});

Deno.test("fields that change scoring and cannot be applied are refused with one line", () => {
  const bad = (toml: string, message: string) => throwsTask(() => parseTaskConfig(toml, "t.toml", noEnv), message);
  bad(
    `[environment]\nos = "Windows"`,
    't.toml:2: environment.os = "Windows" is not supported: pgs runs Linux containers only',
  );
  bad(`[environment]\nos = "mac"`, 't.toml:2: environment.os must be "linux" or "windows", got "mac"');
  bad(
    `[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ndocker_image = "j"`,
    "t.toml:2: [verifier].environment_mode='shared' is incompatible with [verifier.environment]; either omit the " +
      "environment or set environment_mode='separate'.",
  );
  bad(
    `[verifier]\nenvironment_mode = "clean"`,
    't.toml:2: verifier.environment_mode must be "shared" or "separate", got "clean"',
  );
  bad(
    `artifacts = [{ source = "/x", service = "db" }]`,
    't.toml:1: artifacts[0].service = "db": pgs runs no sidecar services',
  );
  // A relative source is Harbor's too: resolved in the agent's working directory when copied.
  assert.deepEqual(parseTaskConfig(`artifacts = ["rel/x"]`, "t.toml", noEnv).artifacts, [{
    source: "rel/x",
    exclude: [],
  }]);
  assert.equal(parseTaskConfig(`[environment]\nos = "LINUX"\ngpus = 2`, "t.toml", noEnv).environment.gpus, 2);
  // A [verifier.environment] alone means separate, as in Harbor.
  const sep = parseTaskConfig(`[verifier.environment]\ndocker_image = "j"\ncpus = "2"`, "t.toml", noEnv);
  assert.equal(sep.verifier.environmentMode, "separate");
  assert.equal(sep.verifier.environment?.cpus, 2);
});

Deno.test("[[steps]] parse with Harbor's fallbacks to the task level", () => {
  const text = `multi_step_reward_strategy = "final"
[agent]
timeout_sec = 100
user = "agent"
[verifier]
timeout_sec = 50
env = { A = "1" }

[[steps]]
name = "scaffold"
min_reward = 1.0
[steps.agent]
timeout_sec = 60.0

[[steps]]
name = "implement"
min_reward = { reward = 0.5, style = 0.2 }
[steps.verifier]
env = { B = "2" }
`;
  const c = parseTaskConfig(text, "t.toml", noEnv);
  assert.equal(c.multiStepRewardStrategy, "final");
  assert.deepEqual(c.steps, [
    {
      name: "scaffold",
      agent: { timeoutSec: 60, user: "agent" },
      verifier: { timeoutSec: 600, env: { A: "1" } },
      minReward: 1,
      artifacts: [],
    },
    {
      name: "implement",
      agent: { timeoutSec: 100, user: "agent" },
      verifier: { timeoutSec: 600, env: { A: "1", B: "2" } },
      minReward: { reward: 0.5, style: 0.2 },
      artifacts: [],
    },
  ]);
  // A step's own verifier mode and environment, as Harbor's StepConfig takes them.
  const sep = parseTaskConfig(`[[steps]]\nname = "a"\n[steps.verifier]\nenvironment_mode = "separate"`, "t", noEnv);
  assert.equal(sep.steps![0].verifier.environmentMode, "separate");
  const own = parseTaskConfig(`[[steps]]\nname = "b"\n[steps.verifier.environment]\ndocker_image = "x"`, "t", noEnv);
  assert.equal(own.steps![0].verifier.environment?.dockerImage, "x");
  throwsTask(
    () =>
      parseTaskConfig(
        `[[steps]]\nname = "c"\n[steps.verifier]\nenvironment_mode = "shared"\n[steps.verifier.environment]\ncpus = 1`,
        "t.toml",
        noEnv,
      ),
    /^t\.toml:4: steps\.0\.verifier: \[verifier\]\.environment_mode='shared' is incompatible with \[verifier\.environment\]; either omit the environment or set environment_mode='separate'\.$/,
  );
  // A step's own agent user would need another exec channel: refused naming the field; the same is accepted.
  throwsTask(
    () => parseTaskConfig(`[agent]\nuser = "a"\n[[steps]]\nname = "s"\n[steps.agent]\nuser = "b"`, "t.toml", noEnv),
    /^t\.toml:\d+: steps\[0\]\.agent\.user = "b" differs from \[agent\] user "a": pgs runs every step of an episode as one user$/,
  );
  // A step's own agent or verifier network is the box's for that step's phase, as Harbor switches them.
  const agentNet = parseTaskConfig(`[[steps]]\nname = "s"\n[steps.agent]\nnetwork_mode = "public"`, "t.toml", noEnv);
  assert.deepEqual(agentNet.steps![0].agent.network, { mode: "public", allowedHosts: [] });
  // A step's tests may have a network of their own: pgs switches the box's for the tests.
  const net = parseTaskConfig(`[[steps]]\nname = "s"\n[steps.verifier]\nnetwork_mode = "public"`, "t.toml", noEnv);
  assert.deepEqual(net.steps![0].verifier.network, { mode: "public", allowedHosts: [] });
  const same = parseTaskConfig(`[[steps]]\nname = "s"\n[steps.agent]\nnetwork_mode = "no-network"`, "t.toml", noEnv);
  assert.equal(same.steps![0].name, "s");
  throwsTask(
    () => parseTaskConfig(`[[steps]]\nname = "a"\n[[steps]]\nname = "a"`, "t.toml", noEnv),
    't.toml:1: steps[1].name "a" is used twice',
  );
  throwsTask(
    () => parseTaskConfig(`multi_step_reward_strategy = "max"\n[[steps]]\nname = "a"`, "t.toml", noEnv),
    't.toml:1: multi_step_reward_strategy must be "mean" or "final", got "max"',
  );
});

Deno.test("Harbor's validators: allowed_hosts, mcp_servers, verifier.collect, task version, artifact destinations", () => {
  const bad = (toml: string, message: string | RegExp) =>
    throwsTask(() => parseTaskConfig(toml, "t.toml", noEnv), message);
  bad(
    `[environment]\nallowed_hosts = ["a.com"]`,
    "t.toml:2: environment.allowed_hosts is only valid when network_mode='allowlist'.",
  );
  bad(`[agent]\nallowed_hosts = []`, "t.toml:2: agent.allowed_hosts is only valid when network_mode='allowlist'.");
  bad(`[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["https://a.com"]`, /t\.toml:3: .*not URLs, ports/);
  const list = parseTaskConfig(
    `[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["API.Example.com.", "2001:DB8::0:1"]`,
    "t.toml",
    noEnv,
  );
  assert.deepEqual(list.environment.network, { mode: "allowlist", allowedHosts: ["api.example.com", "2001:db8::1"] });
  bad(
    `[[environment.mcp_servers]]\nname = "m"`,
    "t.toml:1: environment.mcp_servers[0]: 'url' is required for transport 'sse'",
  );
  bad(
    `[[environment.mcp_servers]]\nname = "m"\ntransport = "stdio"`,
    "t.toml:1: environment.mcp_servers[0]: 'command' is required for transport 'stdio'",
  );
  bad(`[[environment.mcp_servers]]\nname = "m"\ntransport = "ws"\nurl = "x"`, /t\.toml:3: .*transport must be/);
  bad(`[[verifier.collect]]\nservice = "db"`, /t\.toml:1: verifier\.collect\.0\.command is required/);
  bad(
    `[[verifier.collect]]\ncommand = "x"\nservice = "-db"`,
    /t\.toml:3: verifier\.collect\.0\.service must be a Docker/,
  );
  bad(`[task]\nname = "o/t"\nversion = ""`, 't.toml:3: task.version must be a non-empty string, got ""');
  bad(`artifacts = [{ source = "/x", destination = "manifest.json" }]`, /'manifest\.json' is reserved/);
  // An empty destination is none, as in Harbor; overlapping entries are warned about, as Harbor warns.
  const { result: c, warned } = captured(() =>
    parseTaskConfig(
      `artifacts = [{ source = "/x", destination = "" }, "/logs/artifacts/sub", "/x/y"]`,
      "ov/task.toml",
      noEnv,
    )
  );
  assert.deepEqual(c.artifacts[0], { source: "/x", exclude: [] });
  assert.deepEqual(warned, [
    'ov/task.toml: artifacts: artifact sources "/logs/artifacts" and "/logs/artifacts/sub" overlap; the first is kept',
    'ov/task.toml: artifacts: artifact sources "/x" and "/x/y" overlap; the first is kept',
  ]);
});
