/**
 * The eval runner's pieces without Docker (its configuration: lib/eval/config_test.ts): run.json, stop turns, rows, the
 * trajectory file, summaries, the report, progress, the endpoint's requests, usage errors.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { normalizeBaseUrl, parseCompletion, requestBody } from "../lib/policies/endpoint_policy.ts";
import { nopPolicy, stopTurn } from "../lib/policies/policy.ts";
import { ProfileEpisode } from "../lib/harness/profile_episode.ts";
import { parseTerminusJson } from "../lib/harness/protocols/terminus_json.ts";
import { getProfile, profileNames } from "../lib/harness/registry.ts";
import { LocalExecEnv } from "../lib/runtime/local_env.ts";
import { parseRows } from "../lib/eval/load_rows.ts";
import { Progress } from "../lib/eval/progress.ts";
import { reportHtml } from "../lib/report/report_html.ts";
import { traj } from "./trajectory_fixture.ts";
import { rowIds } from "../lib/eval/run_episodes.ts";
import { runHeader } from "../lib/eval/records/run_dir.ts";
import { gitRevision, PGS_VERSION } from "../lib/eval/run_record.ts";
import { summarize } from "../lib/eval/records/summary.ts";
import { readTrajectories, TrajectoryWriter } from "../lib/eval/records/trajectory.ts";
import type { HarborEpisode } from "../lib/env/harbor_env.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

Deno.test("run.json: the header's fields; the tasks' git revision when they are in a checkout", async () => {
  const h = runHeader({
    format: "pgs.run/1",
    settings: { tasks: "/t", policy: "endpoint", model: null, profiles: { opencode: 1, pi: 1 }, seed: 3, maxTurns: 8 },
    k: 4,
    cross: true,
    model: "m",
    pgs_version: "9.9.9",
    tasks_git_revision: "abc",
    started_at: "2026-01-01T00:00:00.000Z",
  });
  assert.deepEqual(h, {
    model: "m",
    started_at: "2026-01-01T00:00:00.000Z",
    k: 4,
    seed: 3,
    max_turns: 8,
    pgs_version: "9.9.9",
    tasks: "/t",
    tasks_git_revision: "abc",
    policy: "endpoint",
    profiles: "opencode=1, pi=1",
    cross: true,
  });
  assert.deepEqual(runHeader(undefined), {});
  assert.equal(PGS_VERSION, JSON.parse(await Deno.readTextFile(join(import.meta.dirname!, "..", "deno.json"))).version);

  const dir = await Deno.makeTempDir({ prefix: "pgs_git_" });
  try {
    assert.equal(await gitRevision(dir), undefined, "not a checkout");
    assert.equal(await gitRevision(join(dir, "missing")), undefined);
    const git = (...args: string[]) =>
      new Deno.Command("git", {
        args: ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args],
        stdout: "piped",
        stderr: "null",
      }).output();
    await git("init", "-q");
    await Deno.writeTextFile(join(dir, "rows.jsonl"), "{}\n");
    await git("add", ".");
    await git("commit", "-q", "-m", "x");
    const head = new TextDecoder().decode((await git("rev-parse", "HEAD")).stdout).trim();
    assert.match(head, /^[0-9a-f]{40}$/);
    assert.equal(await gitRevision(dir), head);
    assert.equal(await gitRevision(join(dir, "rows.jsonl")), head, "a rows file: its folder's checkout");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stop turns: under every profile the nop's turn ends the episode, with the answer where the rule carries one", async () => {
  for (const name of profileNames()) {
    const profile = getProfile(name);
    if (profile.protocol.kind === "terminus_json") {
      // Keystrokes need a terminal: the turn is a well-formed completion (the flag stop takes it twice).
      const parsed = parseTerminusJson(stopTurn(profile, "", 0).content ?? "");
      assert.deepEqual([parsed.error, parsed.taskComplete, parsed.commands], ["", true, []], name);
      continue;
    }
    const box = await LocalExecEnv.create();
    try {
      const ep = new ProfileEpisode(profile, box);
      await ep.begin("Say hi.");
      for (let turn = 0; turn < 3 && !ep.done; turn++) await ep.step(stopTurn(profile, "the answer", turn));
      assert.ok(ep.done, `${name}: the stop turn ended the episode`);
      assert.equal(ep.counters.formatErrors, 0, name);
      // A submit tool that makes its own answer (swe-agent's: the patch) keeps it.
      const own = profile.stop.kind === "submit" && profile.answer.kind === "stop_answer";
      if (!own) assert.equal(ep.answer(), "the answer", name);
    } finally {
      await box.remove();
    }
  }
  assert.equal(nopPolicy().name, "nop");
});

Deno.test("rows: relative task_dir from the file's folder; errors name file and line", () => {
  const rows = parseRows(
    '{"task_dir": "t1", "max_turns": 3}\n\n{"task_dir": "/abs/t2", "extra": 1}\n',
    "/data/rows.jsonl",
  );
  assert.deepEqual(rows, [{ task_dir: "/data/t1", max_turns: 3 }, { task_dir: "/abs/t2" }]);
  assert.throws(
    () => parseRows('{"task_dir": "a"}\n{"max_turns": 2}\n', "r.jsonl"),
    /^UsageError: r.jsonl:2: task_dir/,
  );
  assert.throws(() => parseRows('{"task_dir": "a", "max_turns": 0}', "r.jsonl"), /r.jsonl:1: max_turns/);
  assert.throws(() => parseRows("{nope", "r.jsonl"), /r.jsonl:1: not JSON/);
  assert.throws(
    () => parseRows('{"task_dir": "a", "harness_profile": "nope"}', "r.jsonl"),
    /r.jsonl:1: harness_profile: .*nope/,
  );
  const ids = rowIds([{ task_dir: "/a" }, { task_dir: "/b" }, { task_dir: "/a" }]);
  assert.equal(ids[2], `${ids[0]}.2`);
  assert.notEqual(ids[0], ids[1]);
});

Deno.test("trajectories: appended whole; a torn last line is cut off on read", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "trajectories.jsonl");
  const w = new TrajectoryWriter(path);
  w.append(traj({ row_id: "a", sample: 0 }));
  w.append(traj({ row_id: "a", sample: 1 }));
  const good = (await Deno.stat(path)).size;
  await Deno.writeTextFile(path, '{"format":"pgs.trajectory/1","id":"a/2","row', { append: true });
  const ts = readTrajectories(path);
  assert.deepEqual(ts.map((t) => t.id), ["a/0", "a/1"]);
  assert.equal((await Deno.stat(path)).size, good);
  await Deno.writeTextFile(path, "garbage\n" + await Deno.readTextFile(path));
  assert.throws(() => readTrajectories(path), /trajectories.jsonl:1: not a pgs.trajectory\/1 record/);
  assert.deepEqual(readTrajectories(join(dir, "none.jsonl")), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("summary: pass@1 per profile, pass@k per task, calibration, infra errors apart, retries replace", () => {
  const ts = [
    traj({ row_id: "a", sample: 0, reward: 1 }),
    traj({ row_id: "a", sample: 1, reward: 0, exit_status: "max_turns" }),
    traj({ row_id: "b", sample: 0, reward: 1, profile: "opencode@1.18.33" }),
    traj({ row_id: "b", sample: 1, reward: 1, profile: "opencode@1.18.33" }),
    traj({ row_id: "c", sample: 0, reward: 0 }),
    traj({ row_id: "c", sample: 1, reward: null, exit_status: "infra_error", error: "start: boom" }),
    traj({ row_id: "d", sample: 0, reward: null, exit_status: "infra_error", error: "x" }),
    traj({ row_id: "d", sample: 0, reward: 0.5 }), // a retried infrastructure error
  ];
  const s = summarize(ts, { k: 2, expected: 8 });
  // pass@1 is the mean over groups of passes/scored: (1/2 + 2/2 + 0/1 + 0/1) / 4, not the pooled 3/6.
  assert.deepEqual(s.overall, { episodes: 6, passes: 3, "pass@1": 0.375, mean_reward: 0.5833, infra_errors: 1 });
  assert.equal(s.profiles["pi@0.73.1"]["pass@1"], 0.1667);
  assert.equal(s.profiles["opencode@1.18.33"]["pass@1"], 1);
  assert.deepEqual(s.profiles["pi@0.73.1"].exit_status, { stop_rule: 3, max_turns: 1, infra_error: 1 });
  // pass@2 is defined for the groups with 2 scored samples: c and d (an infra error, a missing sample) are left out.
  assert.deepEqual(s.tasks.map((t) => [t.task, t.passes, t.episodes, t["pass@k"]]), [
    ["task-a", 1, 2, 1],
    ["task-b", 2, 2, 1],
    ["task-c", 0, 1, null],
    ["task-d", 0, 1, null],
  ]);
  assert.equal(s["pass@k"], 1);
  assert.deepEqual(s.pass_at_k_groups, { scored: 4, with_k: 2 });
  assert.deepEqual([s.profiles["pi@0.73.1"]["pass@k"], s.profiles["pi@0.73.1"].groups], [1, { scored: 3, with_k: 1 }]);
  assert.equal(s.cross, false);
  assert.deepEqual(s.grid.map((c) => [c.task, c.profile, c.passes, c.episodes, c["pass@k"]]), [
    ["task-a", "pi@0.73.1", 1, 2, 1],
    ["task-b", "opencode@1.18.33", 2, 2, 1],
    ["task-c", "pi@0.73.1", 0, 1, null],
    ["task-d", "pi@0.73.1", 0, 1, null],
  ]);
  assert.deepEqual(s.calibration, ["task-a"]);
  assert.deepEqual(s.infra, [{ id: "c/1", task: "task-c", profile: "pi@0.73.1", error: "start: boom" }]);
  assert.equal(s.complete, false);
});

Deno.test("report.html: self-contained (no script, no external reference), escapes names", () => {
  const ts = [traj({ row_id: "a", sample: 0, task: "<b>evil</b>" })];
  const s = summarize(ts, { k: 1 });
  const html = reportHtml(s, "run & co", ts, { viewer: "viewer.html" });
  assert.match(html, /&lt;b&gt;evil&lt;\/b&gt;/);
  assert.doesNotMatch(html, /<b>evil/);
  assert.match(html, /run &amp; co/);
  assert.match(html, /<svg/);
  assert.doesNotMatch(html, /<script|<link|src=|@import|url\(/i);
  // Its only links go into the viewer beside it.
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
  assert.ok(hrefs.length > 0);
  for (const h of hrefs) assert.match(h, /^viewer\.html(#|$)/, h);
  assert.doesNotMatch(reportHtml(s, "t", ts), /href=/, "without a viewer, no links");
});

Deno.test("progress: one line per episode off a terminal", () => {
  const lines: string[] = [];
  const p = new Progress(4, 1, 1, (s) => lines.push(s), false);
  p.episode(traj({ row_id: "a", sample: 0, task: "t1" }));
  const infra = { reward: null, exit_status: "infra_error" as const, error: "start: boom\nmore", infra_stage: "setup" };
  p.episode(traj({ row_id: "a", sample: 1, task: "t1", ...infra }));
  assert.match(lines[0], /^2\/4 t1 pi@0.73.1 #0 reward=1 stop_rule 2 turns 1.0s\n$/);
  assert.equal(lines[1], "3/4 t1 pi@0.73.1 #1 infra_error [setup] 1.0s  start: boom\n");
});

Deno.test("endpoint: request body as the harness sends it, vLLM extensions, completion parsing", () => {
  assert.equal(normalizeBaseUrl("http://127.0.0.1:8000"), "http://127.0.0.1:8000/v1");
  assert.equal(normalizeBaseUrl("http://h:1/v1/"), "http://h:1/v1");
  assert.equal(normalizeBaseUrl("http://h:1/openai/v1"), "http://h:1/openai/v1");
  const req = {
    messages: [{ role: "user" as const, content: "hi" }],
    tools: [],
    chatTemplateKwargs: { enable_thinking: false },
    episode: {} as HarborEpisode,
    turn: 0,
    sample: 0,
  };
  const body = requestBody("m", req, { baseUrl: "x", tokenIds: true, sampling: { temperature: 0.7, topK: 20 } });
  assert.deepEqual(body, {
    model: "m",
    messages: req.messages,
    temperature: 0.7,
    top_k: 20,
    chat_template_kwargs: { enable_thinking: false },
    logprobs: true,
    return_token_ids: true,
  });
  const turn = parseCompletion({
    prompt_token_ids: [1, 2],
    choices: [{
      message: {
        content: null,
        reasoning: "think",
        tool_calls: [{ id: "c1", function: { name: "bash", arguments: { a: 1 } } }],
      },
      finish_reason: "tool_calls",
      token_ids: [3],
      logprobs: { content: [{ logprob: -0.5 }] },
    }],
    usage: { prompt_tokens: 2, completion_tokens: 1 },
  }, true);
  assert.deepEqual(turn, {
    content: null,
    reasoning_content: "think",
    tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"a":1}' } }],
    finish_reason: "tool_calls",
    usage: { prompt_tokens: 2, completion_tokens: 1 },
    tokens: { prompt_token_ids: [1, 2], completion_token_ids: [3], logprobs: [-0.5] },
  });
});

Deno.test("pgs eval: usage errors are one line naming the flag, exit 2", async () => {
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(import.meta.dirname!, "..", "main.ts"), "eval", ...args],
      cwd: join(import.meta.dirname!, ".."),
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, err: new TextDecoder().decode(out.stderr).trim() };
  };
  const broken = await Deno.makeTempDir({ prefix: "pgs_broken_" });
  await Deno.mkdir(join(broken, "tests"));
  await Deno.writeTextFile(join(broken, "task.toml"), '[environment]\ncpus = "two"\n');
  await Deno.writeTextFile(join(broken, "instruction.md"), "x\n");
  await Deno.writeTextFile(join(broken, "tests", "test.sh"), "#!/bin/sh\n");
  const cases: [string[], RegExp][] = [
    [[], /^pgs: eval: give --tasks PATH/],
    [["--tasks", "x", "-k", "0", "--policy", "oracle"], /^pgs: -k must be ≥ 1$/],
    [["--tasks", "x", "--policy", "oracle", "--profiles", "nope=1"], /^pgs: --profiles: .*nope/],
    [["--tasks", "x", "--bogus"], /^pgs: eval: Unknown option '--bogus'/],
    [["--tasks", "no/such/dir", "--policy", "oracle"], /^pgs: no\/such\/dir: /],
    [["--tasks", broken, "--policy", "oracle"], /^pgs: .*task\.toml:2: environment\.cpus must be a positive number/],
    [
      ["--tasks", "examples/tasks", "--endpoint", "http://127.0.0.1:9", "--api-key-env", "PGS_NOT_SET_ANYWHERE"],
      /PGS_NOT_SET_ANYWHERE is not set/,
    ],
  ];
  const down = await run("--tasks", "examples/tasks", "--endpoint", "http://127.0.0.1:9/v1");
  assert.equal(down.code, 1);
  assert.match(
    down.err,
    /^pgs: --endpoint http:\/\/127.0.0.1:9\/v1 does not answer: GET http:\/\/127.0.0.1:9\/v1\/models: /,
  );
  for (const [args, re] of cases) {
    const r = await run(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.err.split("\n").length, 1, r.err);
    assert.match(r.err, re);
  }
  await Deno.remove(broken, { recursive: true });
});

Deno.test("summary and report: a profile of the mix drawn for no task is named, not left out", () => {
  const ts = [traj({ row_id: "a", sample: 0, profile: "opencode@1.18.33", profile_key: "opencode" })];
  const s = summarize(ts, { k: 1, mix: ["opencode", "pi", "mini-swe-agent"] });
  assert.deepEqual(s.undrawn_profiles, ["pi", "mini-swe-agent"]);
  assert.match(reportHtml(s, "t", ts), /Drawn for no task \(no episode\): pi, mini-swe-agent\./);
  assert.equal(summarize(ts, { k: 1 }).undrawn_profiles, undefined, "no mix, nothing to say");
});
