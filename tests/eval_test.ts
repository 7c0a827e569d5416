/**
 * `pgs eval` end to end against the real engine: the oracle under every registered profile, the stub as a
 * vLLM-style endpoint with token ids, re-tokenisation drift, infrastructure errors, and a library run with a
 * function engine. The summary's numbers are recounted from trajectories.jsonl.
 */
import { loadTask } from "../lib/task/task.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { rowIds, runEpisodes } from "../lib/eval/run_episodes.ts";
import { loadRows } from "../lib/eval/load_rows.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { getProfile, profileNames, resolveProfileName } from "../lib/harness/registry.ts";
import { startStub } from "../stub/server.ts";
import { dockerTest, makeTask, removeTask } from "./docker_helpers.ts";
import { trackedContainers } from "../lib/runtime/hygiene.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { assertSummaryMatches, pgsEval } from "./eval_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const FIX = join(EXAMPLE_TASKS, "fix-word-count");

dockerTest("eval --policy oracle: every registered profile solves a file task and answers a reply task", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_" });
  const names = profileNames().map(resolveProfileName);
  const rows = names.flatMap((p) => [COUNT, FIX].map((t) => JSON.stringify({ task_dir: t, harness_profile: p })));
  await Deno.writeTextFile(join(dir, "rows.jsonl"), rows.join("\n") + "\n");
  const out = join(dir, "out");
  const r = await pgsEval(["--tasks", join(dir, "rows.jsonl"), "--policy", "oracle", "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  const { summary, ts } = await assertSummaryMatches(out);
  assert.equal(ts.length, names.length * 2);
  assert.deepEqual(Object.keys(summary.profiles).sort(), [...names].sort());
  for (const t of ts) {
    assert.equal(t.exit_status, "stop_rule", t.profile);
    assert.equal(t.verifier_mode, "isolated", "the examples are in pgs's own layout");
    assert.equal(t.policy, "oracle");
    const replyTask = t.task.endsWith("count-error-lines");
    // swe-agent answers with its patch and terminus-2 sends no final message: a reply task scores 0 under them.
    const expected = replyTask && getProfile(t.profile).answerChannel === false ? 0 : 1;
    assert.equal(t.reward, expected, `${t.profile} on ${t.task}: ${t.answer.slice(0, 200)}`);
    if (replyTask && expected) assert.match(t.answer, /Answer: 35/, t.profile);
  }
  await Deno.remove(dir, { recursive: true });
});

dockerTest(
  "eval through pgs harness serve: token ids, k samples, per-profile pass@1, summary = trajectories",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_eval_" });
    const turns = [
      { tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }] },
      { content: "There are 35 of them.\n\nAnswer: 35" },
    ];
    const stub = await startStub({
      turns,
      out: join(dir, "requests.jsonl"),
      model: "stub-model",
      hostname: "127.0.0.1",
      advance: "history",
    });
    // The draw hashes the absolute task_dir, so the seed that mixes both profiles depends on where the checkout is.
    const seed = await seedDrawingBoth(["opencode", "pi"]);
    try {
      const r = await pgsEval([
        "--tasks",
        EXAMPLE_TASKS,
        "--seed",
        String(seed),
        "--endpoint",
        `http://127.0.0.1:${stub.port}`,
        "--profiles",
        "opencode=1,pi=1",
        "-k",
        "2",
        "--token-ids",
        "--temperature",
        "0.7",
        "--chat-template-kwargs",
        '{"enable_thinking": false}',
        "--profile-chat-template-kwargs",
        '{"pi": {"enable_thinking": true, "pi_only": 1}}',
        "--out",
        join(dir, "out"),
      ]);
      assert.equal(r.code, 0, r.stderr);
      const { summary, ts } = await assertSummaryMatches(join(dir, "out"));
      assert.equal(ts.length, 8);
      assert.equal(summary.complete, true);
      // Only count-error-lines is solved by this script; its two samples share one drawn profile.
      const count = summary.tasks.find((t) => t.task.endsWith("count-error-lines"))!;
      assert.deepEqual([count.passes, count.episodes, count["pass@k"], count.profiles.length], [2, 2, 1, 1]);
      assert.equal(summary.overall.passes, 2);
      assert.equal(summary["pass@k"], 0.25);
      const piEpisodes = ts.filter((t) => t.profile.startsWith("pi@")).length;
      assert.ok(piEpisodes > 0 && piEpisodes < 8, `the draw (seed ${seed}) gives both profiles`);
      for (const t of ts) {
        // Model-level kwargs, overridden per profile.
        const pi = t.profile.startsWith("pi@");
        assert.deepEqual(
          t.chat_template_kwargs,
          pi ? { enable_thinking: true, pi_only: 1 } : { enable_thinking: false },
        );
        assert.equal(t.model, "stub-model");
        assert.equal(t.turns, 2);
        const rd = t.rollout_details![0];
        assert.equal(rd.prompt_token_ids.length, 2);
        assert.equal(rd.completion_token_ids[1].length, rd.logprobs[1].length);
        // The second prompt extends the first prompt plus its completion: no drift under an unchanged echo.
        assert.deepEqual(rd.prompt_token_ids[1].slice(0, rd.prompt_token_ids[0].length), rd.prompt_token_ids[0]);
        assert.deepEqual(t.drift_turns, []);
      }
      assert.deepEqual(summary.drift, { turns: 0, episodes: 0, episodes_with_tokens: 8 });
      const bodies = (await Deno.readTextFile(join(dir, "requests.jsonl"))).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.equal(bodies.length, 16);
      for (const b of bodies) {
        assert.equal(b.model, "stub-model");
        assert.equal(b.return_token_ids, true);
        assert.equal(b.logprobs, true);
        assert.equal(b.temperature, 0.7);
        assert.ok(b.tools.length >= 4);
      }
      const piBodies = bodies.filter((b) => b.chat_template_kwargs.pi_only === 1);
      assert.equal(piBodies.length, piEpisodes * 2);
      assert.ok(piBodies.every((b) => b.chat_template_kwargs.enable_thinking === true));
      assert.equal(bodies.filter((b) => b.chat_template_kwargs.enable_thinking === false).length, 16 - piEpisodes * 2);
    } finally {
      await stub.stop();
    }
    await Deno.remove(dir, { recursive: true });
  },
);

dockerTest("eval: a turn whose echoed arguments were re-serialised is flagged as drift", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_" });
  // Spaces in the raw arguments: opencode echoes the parsed object re-serialised, mini-swe-agent the raw text.
  const turns = [{ tool_calls: [{ name: "bash", arguments: '{"command": "wc -l app.log"}' }] }, {
    content: "Answer: 1",
  }];
  const stub = await startStub({
    turns,
    out: join(dir, "r.jsonl"),
    model: "m",
    hostname: "127.0.0.1",
    advance: "history",
  });
  try {
    for (const profile of ["opencode", "mini-swe-agent"]) {
      const out = join(dir, profile);
      const r = await pgsEval([
        "--tasks",
        COUNT,
        "--endpoint",
        `http://127.0.0.1:${stub.port}/v1`,
        "--profile",
        profile,
        "--token-ids",
        "--max-turns",
        "3",
        "--out",
        out,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const { summary, ts } = await assertSummaryMatches(out);
      const drift = profile === "opencode" ? [1] : [];
      assert.deepEqual(ts[0].drift_turns, drift, profile);
      assert.equal(summary.drift.turns, drift.length);
    }
  } finally {
    await stub.stop();
  }
  await Deno.remove(dir, { recursive: true });
});

dockerTest("eval: an infrastructure error is reported apart, never a reward of 0, and retried on resume", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_" });
  const task = await makeTask({ "environment/setup.sh": "#!/bin/sh\n[ -e /tmp/ok ] || exit 3\n" });
  try {
    const out = join(dir, "out");
    const r = await pgsEval(["--tasks", task, "--policy", "oracle", "-k", "2", "--out", out]);
    assert.equal(r.code, 1, r.stderr);
    const { summary, ts } = await assertSummaryMatches(out);
    assert.equal(ts.length, 2);
    const name = (await loadTask(task)).name;
    for (const t of ts) {
      assert.equal(t.reward, null);
      assert.equal(t.exit_status, "infra_error");
      assert.match(t.error!, /setup/);
      assert.equal(t.task, name, "the task's name, not its folder's");
    }
    assert.match(r.stderr, new RegExp(`^2/2 ${name} \\S+ #\\d infra_error \\[setup\\] [\\d.]+s  start: `, "m"));
    assert.equal(summary.overall.episodes, 0);
    assert.equal(summary.overall["pass@1"], null);
    assert.equal(summary.infra.length, 2);
    // Fixed setup: the re-run retries both (the oracle has no solve.sh here, but a pass test scores it).
    await Deno.writeTextFile(join(task, "environment", "setup.sh"), "#!/bin/sh\nexit 0\n");
    await Deno.mkdir(join(task, "solution"), { recursive: true });
    await Deno.writeTextFile(join(task, "solution", "solve.sh"), "#!/bin/bash\necho done\n");
    const again = await pgsEval(["--tasks", task, "--policy", "oracle", "-k", "2", "--out", out]);
    assert.equal(again.code, 0, again.stderr);
    const s2 = (await assertSummaryMatches(out)).summary;
    assert.deepEqual([s2.overall.episodes, s2.overall.passes, s2.overall.infra_errors], [2, 2, 0]);
    assert.match(again.stderr, /2 run now, 0 already done/);
  } finally {
    await removeTask(task);
  }
  await Deno.remove(dir, { recursive: true });
});

dockerTest(
  "runEpisodes (library): a function engine, k samples sharing a profile, the calibration list",
  async () => {
    const groups = await runEpisodes(
      // Sample 0 answers right, sample 1 wrong: count-error-lines lands in the calibration list.
      (req) => req.sample === 0 ? "Answer: 35" : "Answer: 34",
      [{ task_dir: COUNT }, { task_dir: FIX }],
      { profiles: { opencode: 1, pi: 1, "qwen-code": 1 }, profileSeed: 7 },
      { k: 2, maxConcurrent: 4 },
    );
    assert.equal(groups.length, 2);
    for (const g of groups) {
      assert.deepEqual(g.map((t) => t.sample), [0, 1]);
      assert.equal(g[0].profile, g[1].profile);
    }
    assert.deepEqual(groups[0].map((t) => t.reward), [1, 0]);
    assert.deepEqual(groups[1].map((t) => t.reward), [0, 0]);
    const { summarize } = await import("../lib/eval/records/summary.ts");
    const s = summarize(groups.flat(), { k: 2 });
    assert.deepEqual(s.calibration, ["pgs-examples/count-error-lines"]);
    // Every container the runner started (this module's isolate tracks them) was removed.
    assert.deepEqual(trackedContainers(), []);
  },
);

dockerTest(
  "runEpisodes: the task's agent timeout ends the episode (exit_status timeout), which is still scored",
  async () => {
    const task = await makeTask({
      "task.toml": '[agent]\ntimeout_sec = 2\n\n[environment]\ndocker_image = "pgs-base:1"\n',
    });
    try {
      const [[t]] = await runEpisodes(
        (req) => ({
          content: null,
          tool_calls: [{
            id: `c${req.turn}`,
            type: "function",
            function: { name: "bash", arguments: '{"command":"sleep 3"}' },
          }],
        }),
        [{ task_dir: task }],
        { profile: "pi" },
      );
      assert.equal(t.exit_status, "timeout");
      assert.equal(t.turns, 1);
      assert.equal(t.reward, 1, "the verifier still ran");
    } finally {
      await removeTask(task);
    }
  },
);

/** The first seed under which the example tasks draw every one of `names` (equal weights), as `pgs eval` draws. */
async function seedDrawingBoth(names: string[]): Promise<number> {
  const rows = await loadRows(EXAMPLE_TASKS);
  const ids = rowIds(rows);
  for (let seed = 0; seed < 100; seed++) {
    const env = new HarborEnv({ profiles: Object.fromEntries(names.map((n) => [n, 1])), profileSeed: seed });
    const drawn = new Set(rows.map((row, i) => env.pick(row, ids[i])));
    if (drawn.size === names.length) return seed;
  }
  throw new Error("no seed below 100 draws every profile");
}
