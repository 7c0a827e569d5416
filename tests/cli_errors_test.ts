/**
 * Bad input on the command line is one line on stderr naming the flag, file or address, exit 2 for usage and 1
 * otherwise, and nothing half-written: ports in use, output paths, numeric flags, scripts against profiles, unknown
 * profile names, modules, weight lists. No engine needed; the engine's side is `cli_errors_engine_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COUNT, exists, NO_ENGINE, oneLine, pgs } from "./cli_helpers.ts";

Deno.test("eval --endpoint that is not an http(s) URL: one line naming --endpoint, exit 2", async () => {
  for (const url of ["not-a-url", "ftp://127.0.0.1/v1"]) {
    await oneLine(
      ["eval", "--tasks", COUNT, "--endpoint", url],
      2,
      new RegExp(`^pgs: eval: --endpoint must be an http\\(s\\) URL .*got "${url.replace(/[/.]/g, "\\$&")}"$`),
      { DOCKER_HOST: NO_ENGINE },
    );
  }
});

Deno.test("negative and non-numeric values of numeric flags name the flag", async () => {
  const env = { DOCKER_HOST: NO_ENGINE };
  await oneLine(["eval", "--tasks", COUNT, "--policy", "oracle", "-k", "-1"], 2, /^pgs: -k must be ≥ 1$/, env);
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--max-turns", "-3"],
    2,
    /--max-turns must be ≥ 1/,
    env,
  );
  await oneLine(["eval", "--tasks", COUNT, "--policy", "oracle", "-k", "two"], 2, /-k must be an integer, got "two"/);
  await oneLine(["harbor", "check", COUNT, "--workers", "-2"], 2, /--workers must be a positive integer, got "-2"/);
  await oneLine(["env", "serve", "--port", "-1"], 2, /--port must be an integer from 0 to 65535, got "-1"/);
  await oneLine(["harness", "serve", "--script", "x", "--out", "y", "--port", "-5"], 2, /--port must be an integer/);
  await oneLine(
    ["harness", "capture", "pi", "--task", COUNT, "--script", "x", "--out", "y", "--timeout", "-1"],
    2,
    /--timeout must be a positive integer, got "-1"/,
  );
  // A value that is not a number and starts with a dash is taken for a forgotten value.
  await oneLine(
    ["eval", "--tasks", COUNT, "--model", "-x"],
    2,
    /^pgs: eval: --model needs a value \(to pass one that starts with a dash, write --model=VALUE\)$/,
  );
});

Deno.test("harness serve on a port in use: one line naming the address, exit 1, no --out left", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (busy.addr as Deno.NetAddr).port;
    const script = join(dir, "turns.json"), out = join(dir, "requests.jsonl");
    await Deno.writeTextFile(script, '[{"content": "hi"}]');
    await oneLine(
      ["harness", "serve", "--script", script, "--out", out, "--port", String(port)],
      1,
      new RegExp(`^pgs: harness serve: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`),
    );
    assert.equal(await exists(out), false, "no recording is left behind");
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an output path that is a folder, a file or in no folder: one line naming it, exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  try {
    const folder = join(dir, "folder"), file = join(dir, "file.txt"), run = join(dir, "run");
    await Deno.mkdir(folder);
    await Deno.writeTextFile(file, "kept\n");
    await Deno.mkdir(run);
    await Deno.writeTextFile(join(run, "trajectories.jsonl"), "");
    const script = join(dir, "turns.json");
    await Deno.writeTextFile(script, '[{"content": "hi"}]');
    const env = { DOCKER_HOST: NO_ENGINE };
    await oneLine(
      ["eval", "--tasks", COUNT, "--policy", "oracle", "--out", file],
      2,
      /^pgs: eval: --out .*file\.txt is a file; give a folder$/,
      env,
    );
    await oneLine(
      ["harbor", "rows", COUNT, folder],
      2,
      /^pgs: harbor rows: OUT\.jsonl .*folder is a folder; give a file$/,
    );
    await oneLine(
      ["harbor", "rows", COUNT, join(dir, "no", "rows.jsonl")],
      2,
      /^pgs: harbor rows: OUT\.jsonl .*rows\.jsonl: the folder .*no does not exist$/,
    );
    await oneLine(["export", "sft", run, folder], 2, /^pgs: export sft: OUT\.jsonl .*folder is a folder; give a file$/);
    await oneLine(["export", "atif", run, folder], 2, /^pgs: export atif: .*folder exists/);
    await oneLine(
      ["harness", "serve", "--script", script, "--out", folder],
      2,
      /^pgs: harness serve: --out .*folder is a folder; give a file$/,
    );
    await oneLine(
      ["harness", "capture", "pi", "--local", "--task", COUNT, "--script", script, "--out", file],
      2,
      /^pgs: harness capture: --out .*file\.txt is a file; give a folder$/,
    );
    // An error no check foresaw is still one line (here until view checks its --out itself).
    const view = await pgs(["view", run, "--out", folder]);
    assert.notEqual(view.code, 0);
    assert.match(view.stderr, /^pgs: view: [^\n]*folder[^\n]*$/);
    assert.equal(await Deno.readTextFile(file), "kept\n");
    assert.deepEqual([...Deno.readDirSync(folder)], [], "nothing was written into the folder");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["file.txt", "folder", "run", "turns.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--policy script: its tool calls are checked against every profile the run may draw, before Docker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  try {
    const script = join(dir, "turns.json");
    await Deno.writeTextFile(
      script,
      JSON.stringify([
        { tool_calls: [{ name: "bash", arguments: { command: "ls" } }] },
        { tool_calls: [{ name: "cat", arguments: { path: "app.log" } }] },
        { content: "Answer: 35" },
      ]),
    );
    const env = { DOCKER_HOST: NO_ENGINE };
    const run = (...args: string[]) => ["eval", "--tasks", COUNT, "--policy", `script:${script}`, ...args];
    const claude = /script:.*turns\.json: calls bash, cat, which claude-code@[\w.]+ does not have \(its tools: Bash, /;
    await oneLine(run("--profile", "claude-code"), 2, claude, env);
    await oneLine(
      run("--profile", "mini-swe-agent-text"),
      2,
      /turn 1 has tool_calls, but mini-swe-agent-text@[\w.]+ reads its actions from the reply's text \(fenced/,
      env,
    );
    // A row that pins its profile is checked under it.
    const rows = join(dir, "rows.jsonl");
    await Deno.writeTextFile(rows, JSON.stringify({ task_dir: COUNT, harness_profile: "claude-code" }) + "\n");
    await oneLine(["eval", "--tasks", rows, "--policy", `script:${script}`], 2, claude, env);
    // Every profile of a mix is checked: pi has bash, qwen-code does not.
    await Deno.writeTextFile(
      script,
      JSON.stringify([{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }] }]),
    );
    await oneLine(run("--profiles", "pi=1,qwen-code=1"), 2, /calls bash, which qwen-code@[\w.]+ does not have/, env);
    // Only tools the profile has (and a profile of weight 0 is never drawn): the run gets as far as the engine.
    await Deno.writeTextFile(
      script,
      JSON.stringify([{ tool_calls: [{ name: "Bash", arguments: { command: "ls" } }] }]),
    );
    await oneLine(
      run("--profiles", "claude-code=1,pi=0"),
      2,
      /^pgs: eval: no docker engine answers at unix:\/\/\/nonexistent/,
      env,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unknown profile name gets a did-you-mean wherever a name is given", async () => {
  const env = { DOCKER_HOST: NO_ENGINE };
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--profile", "claude"],
    2,
    /unknown harness profile "claude"; did you mean "claude-code"\?; valid: /,
    env,
  );
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--profiles", "opencod=1,pi@0.70=1"],
    2,
    /unknown harness profile "opencod"; did you mean "opencode"\?/,
    env,
  );
  await oneLine(["harness", "show", "pi@0.70", "--task", COUNT], 2, /"pi@0\.70"; did you mean "pi@[\d.]+"\?/, env);
  await oneLine(["harness", "show", "bash", "--task", COUNT], 2, /unknown harness profile "bash"; valid: /, env);
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  try {
    const rows = join(dir, "rows.jsonl");
    await Deno.writeTextFile(rows, JSON.stringify({ task_dir: COUNT, harness_profile: "qwen+exact-edits" }) + "\n");
    await oneLine(
      ["eval", "--tasks", rows, "--policy", "oracle"],
      2,
      /harness_profile: unknown harness profile "qwen\+exact-edits"; did you mean "qwen-code"\?/,
      env,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("other bad input is one line too: a module, a weight list, a script with newlines, an address", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  try {
    const env = { DOCKER_HOST: NO_ENGINE };
    const oracle = ["eval", "--tasks", COUNT, "--policy", "oracle"];
    await oneLine(
      [...oracle, "--profiles-module", join(dir, "nope.ts")],
      2,
      /^pgs: --profiles-module .*nope\.ts: Module not found/,
      env,
    );
    await oneLine(
      [...oracle, "--profiles", "=1"],
      2,
      /^pgs: --profiles: "=1" names no profile \(want name=weight\)$/,
      env,
    );
    const bad = join(dir, "bad.json");
    await Deno.writeTextFile(bad, "not json\n");
    await oneLine(["eval", "--tasks", COUNT, "--policy", `script:${bad}`], 2, /bad\.json: not JSON: /, env);
    await oneLine(["harness", "serve", "--script", bad, "--out", join(dir, "r.jsonl")], 2, /bad\.json: not JSON: /);
    const script = join(dir, "turns.json");
    await Deno.writeTextFile(script, '[{"content": "hi"}]');
    await oneLine(
      ["harness", "serve", "--script", script, "--out", join(dir, "r.jsonl"), "--host", "192.0.2.1", "--port", "0"],
      1,
      /^pgs: harness serve: cannot listen on 192\.0\.2\.1:0: no interface of this machine has that address/,
    );
    assert.equal(await exists(join(dir, "r.jsonl")), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("harness show and adopt --task: no engine is one line naming it, after the overlay is checked", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  try {
    const env = { DOCKER_HOST: NO_ENGINE };
    const engine = /^pgs: harness show: no docker engine answers at unix:\/\/\/nonexistent\/pgs-test\.sock$/;
    await oneLine(["harness", "show", "pi", "--task", COUNT], 2, engine, env);
    // Bad input is named before the engine is asked.
    const bad = join(dir, "bad.json");
    await Deno.writeTextFile(bad, "not json");
    await oneLine(
      ["harness", "show", "pi", "--task", COUNT, "--overlay", bad],
      2,
      /--overlay: .*bad\.json: not JSON/,
      env,
    );
    // adopt reads the recording, then asks the engine for the task's values.
    const rec = join(dir, "rec");
    await Deno.mkdir(rec);
    await Deno.writeTextFile(join(rec, "requests.jsonl"), "");
    await oneLine(
      ["harness", "adopt", rec, "--profile", "pi", "--task", COUNT, "--out", join(dir, "o.json")],
      2,
      /^pgs: harness adopt: no docker engine answers at /,
      env,
    );
    assert.equal(await exists(join(dir, "o.json")), false, "no overlay left behind");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
