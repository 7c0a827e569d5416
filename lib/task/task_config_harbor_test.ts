/**
 * task.toml as Harbor's task model reads it: networks per phase, env templates, value coercions, refused fields,
 * `[[steps]]`, and Harbor's validators.
 */
import assert from "node:assert/strict";
import { parseTaskConfig } from "./task_config.ts";
import { captured, noEnv, throwsTask } from "../../tests/task_config_helpers.ts";

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
  // A sidecar's artifact is read in its own container: its source must be absolute (the loader checks the service).
  bad(
    `artifacts = [{ source = "x", service = "db" }]`,
    `t.toml:1: artifacts[0]: Artifact source "x" collected from service "db" must be an absolute path`,
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
