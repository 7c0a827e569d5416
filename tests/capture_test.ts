/** `pgs harness capture`: Harbor command construction, the local recipes, the missing-binary message, a real pi run. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { harborCommand, STUB_API_KEY } from "../lib/capture/harbor_command.ts";
import { redact } from "../lib/capture/command_json.ts";
import { harborWiring } from "../lib/capture/recipes.ts";
import type { LocalRecipe } from "../lib/harness/capture_recipe.ts";
import { defaultVersion, getProfile, profileNames } from "../lib/harness/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { ciTest, TIER } from "./tier.ts";

registerBuiltins();

/** The local recipes the built-in profiles carry, by profile name. */
const LOCAL_RECIPES: Record<string, LocalRecipe> = Object.fromEntries(
  profileNames().map((n) => getProfile(n)).filter((p) => defaultVersion(p.name) === p.version && p.capture?.local)
    .map((p) => [p.name, p.capture!.local!]),
);
/** The Harbor wiring the built-in profiles give a Harbor agent name. */
const wiring = (agent: string) => harborWiring(agent, profileNames().map((n) => getProfile(n)));

const ROOT = resolve(import.meta.dirname!, "..");
const TASK = join(ROOT, "examples", "tasks", "count-error-lines");
// Real harness installs live in a recordings folder outside the repository, named by PGS_RECORDINGS (unset: none).
const RECORDINGS = Deno.env.get("PGS_RECORDINGS") ?? "";
const PI_BIN = join(RECORDINGS, "pi/node_modules/.bin/pi");
const CODEX_BIN = join(RECORDINGS, "codex/node_modules/.bin/codex");
const CLAUDE_BIN = join(RECORDINGS, "claude-code/node_modules/.bin/claude");
const URL = "http://172.17.0.1:9999/v1";

async function pgs(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { PATH: "/nonexistent" },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function scriptFile(dir: string): Promise<string> {
  const p = join(dir, "turns.json");
  await Deno.writeTextFile(
    p,
    JSON.stringify([{ tool_calls: [{ name: "bash", arguments: { command: "grep -c ' ERROR ' app.log" } }] }, {
      content: "There are 3 ERROR lines.",
    }]),
  );
  return p;
}

const base = { task: "/t/task", model: "m1", harbor: "0.24.0", baseUrl: URL };

Deno.test("harbor command: generic agents get OPENAI_BASE_URL/OPENAI_API_KEY and -m openai/<model>", () => {
  const c = harborCommand({ ...base, agent: "claude-code", ak: ["max_turns=5"], ae: ["FOO=bar"] });
  assert.deepEqual(c.argv, [
    "uv",
    "run",
    "--with",
    "harbor==0.24.0",
    "harbor",
    "run",
    "-p",
    "/t/task",
    "-a",
    "claude-code",
    "-m",
    "openai/m1",
    "--ak",
    "max_turns=5",
    "--ae",
    `OPENAI_BASE_URL=${URL}`,
    "--ae",
    `OPENAI_API_KEY=${STUB_API_KEY}`,
    "--ae",
    "FOO=bar",
  ]);
  assert.deepEqual(c.agentKwargs, { max_turns: "5" });
});

Deno.test("local recipes: the six npm harnesses carry one, each at its profile's version", () => {
  assert.deepEqual(Object.keys(LOCAL_RECIPES).sort(), [
    "claude-code",
    "codex",
    "gemini-cli",
    "opencode",
    "pi",
    "qwen-code",
  ]);
  for (const [name, r] of Object.entries(LOCAL_RECIPES)) assert.equal(r.version, getProfile(name).version, name);
});

Deno.test("harbor command: pi uses model_api=openai-completions", () => {
  const c = harborCommand({ ...base, agent: "pi", wiring: wiring("pi") });
  assert.equal(c.argv[c.argv.indexOf("-m") + 1], "openai/m1");
  assert.equal(c.agentKwargs.model_api, "openai-completions");
  assert.equal(c.agentEnv.OPENAI_BASE_URL, URL);
});

Deno.test("harbor command: OpenHands uses LLM_MODEL/LLM_BASE_URL/LLM_API_KEY", () => {
  const c = harborCommand({ ...base, agent: "openhands", wiring: wiring("openhands") });
  assert.deepEqual(c.agentEnv, { LLM_MODEL: "openai/m1", LLM_BASE_URL: URL, LLM_API_KEY: STUB_API_KEY });
  assert.equal(c.argv[c.argv.indexOf("-m") + 1], "openai/m1");
});

Deno.test("harbor command: opencode gets an @ai-sdk/openai-compatible provider config", () => {
  const c = harborCommand({ ...base, agent: "opencode", wiring: wiring("opencode") });
  assert.equal(c.argv[c.argv.indexOf("-m") + 1], "stub/m1");
  const cfg = JSON.parse(c.agentEnv.OPENCODE_CONFIG_CONTENT);
  assert.equal(cfg.provider.stub.npm, "@ai-sdk/openai-compatible");
  assert.equal(cfg.provider.stub.options.baseURL, URL);
  assert.equal(cfg.model, "stub/m1");
});

Deno.test("command.json redacts secret-looking values but keeps the stub's dummy key", () => {
  const r = redact(["--ae", "OPENAI_API_KEY=pgs-stub", "--ae", "GITHUB_TOKEN=ghp_abc", "--ae", "FOO=1"], {
    MY_SECRET: "s",
    HOME: "/h",
  });
  assert.deepEqual(r.argv, ["--ae", "OPENAI_API_KEY=pgs-stub", "--ae", "GITHUB_TOKEN=<redacted>", "--ae", "FOO=1"]);
  assert.deepEqual(r.env, { MY_SECRET: "<redacted>", HOME: "/h" });
});

Deno.test("local recipes: pi, opencode and qwen-code point at the stub", () => {
  const pi = JSON.parse(LOCAL_RECIPES.pi.files(URL, "m1")[0].text);
  assert.deepEqual(pi.providers.stub, { baseUrl: URL, api: "openai-completions", apiKey: "x", models: [{ id: "m1" }] });
  assert.deepEqual(LOCAL_RECIPES.pi.args("P", "m1"), ["-p", "--provider", "stub", "--model", "m1", "P"]);
  assert.deepEqual(LOCAL_RECIPES.opencode.args("P", "m1"), ["run", "--auto", "-m", "stub/m1", "P"]);
  assert.equal(LOCAL_RECIPES.opencode.env(URL, "m1").OPENCODE_DISABLE_AUTOUPDATE, "1");
  assert.equal(LOCAL_RECIPES["qwen-code"].env(URL, "m1").OPENAI_BASE_URL, URL);
  assert.deepEqual(LOCAL_RECIPES["qwen-code"].args("P", "m1"), ["--yolo", "-p", "P"]);
});

Deno.test("local recipes: codex gets the /v1 URL in config.toml, claude-code the bare origin", () => {
  const [cfg] = LOCAL_RECIPES.codex.files(URL, "m1");
  assert.equal(cfg.path, ".codex/config.toml");
  assert.match(cfg.text, /^model_provider = "stub"$/m);
  assert.match(cfg.text, new RegExp(`^base_url = "${URL}"$`, "m"));
  assert.match(cfg.text, /^wire_api = "responses"$/m);
  // A retry would take the next scripted turn; update checks and plugins would reach out to remote hosts.
  assert.match(cfg.text, /^request_max_retries = 0$/m);
  assert.match(cfg.text, /^stream_max_retries = 0$/m);
  assert.match(cfg.text, /^check_for_update_on_startup = false$/m);
  assert.match(cfg.text, /^\[features\]\nplugins = false$/m);
  assert.equal(LOCAL_RECIPES.codex.env(URL, "m1").STUB_API_KEY, "x");
  assert.equal(LOCAL_RECIPES["claude-code"].env(URL, "m1").ANTHROPIC_BASE_URL, "http://172.17.0.1:9999");
  assert.deepEqual(LOCAL_RECIPES["claude-code"].args("P", "m1"), [
    "-p",
    "--dangerously-skip-permissions",
    "--model",
    "m1",
    "P",
  ]);
});

Deno.test("local recipes: gemini-cli gets the bare origin, an API key, no sandbox, -m and --skip-trust", () => {
  const g = LOCAL_RECIPES["gemini-cli"];
  const [f] = g.files(URL, "m1");
  assert.equal(f.path, ".gemini/settings.json");
  const settings = JSON.parse(f.text);
  assert.equal(settings.security.auth.selectedType, "gemini-api-key");
  assert.equal(settings.tools.sandbox, false);
  assert.equal(settings.telemetry.enabled, false);
  assert.equal(settings.privacy.usageStatisticsEnabled, false);
  assert.deepEqual(g.env(URL, "m1"), {
    GOOGLE_GEMINI_BASE_URL: "http://172.17.0.1:9999",
    GEMINI_API_KEY: "dummy",
    GEMINI_SANDBOX: "false",
  });
  assert.deepEqual(g.args("P", "m1"), ["--yolo", "--skip-trust", "-m", "m1", "-p", "P"]);
});

Deno.test("capture --local with a missing binary names the npm package and version; exit 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (
      const [agent, pkg] of [["pi", "@mariozechner/pi-coding-agent@0.73.1"], ["opencode", "opencode-ai@1.18.33"], [
        "qwen-code",
        "@qwen-code/qwen-code@0.24.4",
      ]]
    ) {
      const r = await pgs([
        "harness",
        "capture",
        agent,
        "--local",
        "--task",
        TASK,
        "--script",
        await scriptFile(dir),
        "--out",
        join(dir, "out"),
      ]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`npm install ${pkg.replace(/[.@/]/g, "\\$&")}`));
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("capture through Harbor without uv: one-line error naming uv, command.json written first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "out");
    const r = await pgs([
      "harness",
      "capture",
      "terminus-2",
      "--task",
      TASK,
      "--script",
      await scriptFile(dir),
      "--out",
      out,
      "--ae",
      "SOME_TOKEN=hunter2",
      // This machine has no docker bridge; the stub listens only on the address given.
      "--host-ip",
      "127.0.0.1",
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /uv.*not found; install uv/);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    const cmd = JSON.parse(await Deno.readTextFile(join(out, "command.json")));
    assert.deepEqual(cmd.argv.slice(0, 6), ["uv", "run", "--with", "harbor==0.24.0", "harbor", "run"]);
    assert.ok(cmd.argv.includes("SOME_TOKEN=<redacted>"));
    assert.ok(!JSON.stringify(cmd).includes("hunter2"));
    const bad = await pgs([
      "harness",
      "capture",
      "terminus-2",
      "--task",
      TASK,
      "--script",
      await scriptFile(dir),
      "--out",
      out,
      "--host-ip",
      "10.255.255.1",
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /cannot listen on --host-ip 10\.255\.255\.1/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("capture usage errors exit 2", async () => {
  assert.equal((await pgs(["harness", "capture", "pi", "--task", TASK])).code, 2);
  assert.equal((await pgs(["harness", "capture", "pi", "--bogus"])).code, 2);
});

/**
 * Whether a harness binary is installed. They live under $PGS_RECORDINGS, outside the repository, and CI never has
 * them, so the real captures are ignored without their binary, in CI as well (the test names say so).
 */
function installed(bin: string, agent: string): boolean {
  if (TIER !== "ci") return false; // not registered in this tier: nothing to note
  if (!RECORDINGS) {
    console.error(`note: the REAL local capture with ${agent} is ignored: PGS_RECORDINGS names no recordings folder`);
    return false;
  }
  try {
    Deno.statSync(bin);
    return true;
  } catch {
    console.error(`note: the REAL local capture with ${agent} is ignored: ${bin} is not installed`);
    return false;
  }
}

const realName = (agent: string) =>
  `REAL local capture with ${agent} on count-error-lines (needs a local ${agent} install: ignored without one, CI too)`;

ciTest({ name: realName("pi"), ignore: !installed(PI_BIN, "pi") }, async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "out");
    const cmd = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), "harness", "capture", "pi", "--local", "--bin", PI_BIN]
        .concat(["--task", TASK, "--script", await scriptFile(dir), "--out", out, "--timeout", "120"]),
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    });
    const r = await cmd.output();
    const stderr = new TextDecoder().decode(r.stderr);
    const log = await Deno.readTextFile(join(out, "harness.log")).catch(() => "");
    assert.equal(r.code, 0, stderr + log);
    const lines = (await Deno.readTextFile(join(out, "requests.jsonl"))).trim().split("\n").map((l) => JSON.parse(l));
    const withBash = lines.filter((b) =>
      (b.tools ?? []).some((t: { function?: { name?: string } }) => t.function?.name === "bash")
    );
    assert.ok(withBash.length >= 2, `requests with a bash tool: ${withBash.length} of ${lines.length}`);
    assert.match(log, /3 ERROR lines/);
    const command = JSON.parse(await Deno.readTextFile(join(out, "command.json")));
    assert.equal(command.argv[0], PI_BIN);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A real local capture of `agent` with one shell tool call then a text (run by the tests below). */
async function realCapture(agent: string, bin: string, toolCall: Record<string, unknown>) {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "out"), script = join(dir, "turns.json");
    await Deno.writeTextFile(
      script,
      JSON.stringify([{ tool_calls: [toolCall] }, { content: "There are 35 ERROR lines." }]),
    );
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), "harness", "capture", agent, "--local", "--bin", bin]
        .concat(["--task", TASK, "--script", script, "--out", out, "--timeout", "120"]),
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(r.stderr);
    const log = await Deno.readTextFile(join(out, "harness.log")).catch(() => "");
    assert.equal(r.code, 0, stderr + log);
    const lines = (await Deno.readTextFile(join(out, "requests.jsonl"))).trim().split("\n");
    assert.ok(lines.length >= 2, `recorded requests: ${lines.length}`);
    assert.match(log, /There are 35 ERROR lines\./);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

ciTest({ name: realName("codex"), ignore: !installed(CODEX_BIN, "codex") }, async () => {
  await realCapture("codex", CODEX_BIN, { name: "exec_command", arguments: { cmd: "grep -c ' ERROR ' app.log" } });
});

ciTest({ name: realName("claude-code"), ignore: !installed(CLAUDE_BIN, "claude-code") }, async () => {
  await realCapture("claude-code", CLAUDE_BIN, { name: "Bash", arguments: { command: "grep -c ' ERROR ' app.log" } });
});
