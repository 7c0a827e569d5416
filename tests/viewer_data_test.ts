/**
 * The viewer's data, no browser: what it says about the verifier's output, why an episode ended, its tokens, which
 * metrics it shows, and two runs compared (labels, pairs, pass rates per task and profile).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { compareViewerData, profileSlots } from "../lib/report/viewer_compare.ts";
import { packViewerData, UNPACK_SCRIPT, viewerData, viewerEpisode } from "../lib/report/viewer_data.ts";
import { episodeTokens, exitReason, shownMetrics, testsRan, verifierNote } from "../lib/report/viewer_facts.ts";
import { getProfile } from "../lib/harness/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { traj } from "./trajectory_fixture.ts";

registerBuiltins();

Deno.test("viewer: 'the tests did not run' only when they did not; an empty output of tests that ran says so", () => {
  const ran = traj({ row_id: "a", sample: 0, reward: 1, metrics: { "metric/reward": 1 } });
  assert.equal(testsRan(ran), true);
  assert.equal(verifierNote(ran), "test.sh printed nothing");
  assert.equal(verifierNote({ ...ran, reward: 0 }), "test.sh printed nothing");
  assert.equal(verifierNote({ ...ran, test_output: "ok\n" }), undefined);
  // The tests ran and wrote no reward, or ran out of time: they ran, whatever they printed.
  for (
    const error of [
      "the verifier wrote neither /logs/verifier/reward.txt nor reward.json",
      "tests/test.sh timed out after 5 s",
    ]
  ) {
    const t = { ...ran, reward: 0, error, metrics: { "metric/verifier_failed": 1 } };
    assert.equal(verifierNote(t), "test.sh printed nothing", error);
  }
  // No reward at all: an infrastructure error, before or in the verifier.
  const infra = { ...ran, reward: null, exit_status: "infra_error" as const, error: "start: docker run failed" };
  assert.equal(testsRan(infra), false);
  assert.equal(verifierNote(infra), "the tests did not run (infrastructure error)");
  // The verifier failed before test.sh (the capture, a copy out of the agent's container).
  const capture = {
    ...ran,
    reward: 0,
    error: "the agent's container is not running, so it cannot be captured",
    metrics: { "metric/verifier_failed": 1, "metric/container_dead": 1 },
  };
  assert.equal(verifierNote(capture), `the tests did not run: ${capture.error}`);
  assert.equal(viewerEpisode(capture).verifier_note, verifierNote(capture));
  assert.equal(viewerEpisode(ran).verifier_note, "test.sh printed nothing");
});

Deno.test("viewer: an episode carries its profile's own truncation mark; an unknown profile, the generic one alone", () => {
  const pi = viewerEpisode(traj({ row_id: "a", sample: 0, reward: 1, profile: "pi@0.73.1" }));
  assert.equal(pi.truncation_mark, getProfile("pi@0.73.1").truncationMark);
  assert.match("[Showing lines 98002-100001 of 100001. Full output: /tmp/x.log]", new RegExp(pi.truncation_mark!, "i"));
  // A harness that cuts without a mark (terminus-2), and a profile this process did not load.
  assert.equal(
    viewerEpisode(traj({ row_id: "b", sample: 0, reward: 1, profile: "terminus-2" })).truncation_mark,
    undefined,
  );
  assert.equal(
    viewerEpisode(traj({ row_id: "c", sample: 0, reward: 1, profile: "mine@9" })).truncation_mark,
    undefined,
  );
});

Deno.test("viewer: only meaningful metrics (no profile one-hot, no repeated reward)", () => {
  const metrics = {
    "metric/reward": 1,
    "metric/accuracy": 0.5,
    "metric/profile/palingenesis-default@1": 0,
    "metric/profile/claude-code": 1,
    "metric/profile/claude-code/reward": 1,
  };
  assert.deepEqual(shownMetrics(metrics), { reward: 1, accuracy: 0.5 });
  assert.deepEqual(viewerEpisode(traj({ row_id: "a", sample: 0, metrics })).shown_metrics, {
    reward: 1,
    accuracy: 0.5,
  });
});

Deno.test("viewer: why an episode ended, for the error column (the agent timeout in seconds)", async () => {
  const t = traj({ row_id: "a", sample: 0, exit_status: "timeout", agent_timeout_sec: 5 });
  assert.equal(exitReason(t, 5), "agent timed out after 5 s");
  assert.equal(viewerEpisode(t).reason, "agent timed out after 5 s");
  assert.equal(exitReason({ ...t, exit_status: "max_turns", turns: 32 }), "turn limit (32 turns)");
  assert.equal(exitReason({ ...t, exit_status: "stop_rule" }), undefined);
  assert.equal(exitReason({ ...t, exit_status: "infra_error", infra_stage: "build" }), "infrastructure error (build)");
  assert.equal(viewerEpisode({ ...t, exit_status: "stop_rule" }).reason, undefined);
  // An older record without agent_timeout_sec: its task folder says.
  const dir = await Deno.makeTempDir({ prefix: "pgs_viewer_task_" });
  try {
    await Deno.writeTextFile(join(dir, "task.toml"), "[agent]\ntimeout_sec = 7\n");
    const { agent_timeout_sec: _, ...old } = t;
    assert.equal(viewerEpisode({ ...old, task_dir: dir }).reason, "agent timed out after 7 s");
    assert.equal(
      viewerEpisode({ ...old, task_dir: join(dir, "gone") }).reason,
      "agent timed out (the task's [agent] timeout_sec)",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("viewer: tokens per episode from usage, else summed over the recorded token ids", () => {
  const usage = traj({ row_id: "a", sample: 0, usage: { prompt_tokens: 1200, completion_tokens: 34 } });
  assert.deepEqual(episodeTokens(usage), { prompt: 1200, completion: 34, source: "usage" });
  const ids = traj({
    row_id: "a",
    sample: 1,
    rollout_details: [{
      prompt_token_ids: [[1, 2, 3], [1, 2, 3, 4, 5]],
      completion_token_ids: [[4], [6, 7]],
      logprobs: [],
    }],
  });
  assert.deepEqual(episodeTokens(ids), { prompt: 8, completion: 3, source: "token_ids" });
  assert.equal(episodeTokens(traj({ row_id: "a", sample: 2 })), undefined);
  assert.deepEqual(viewerData([usage, ids], { title: "t", passThreshold: 1 }).episodes.map((e) => e.tokens?.prompt), [
    1200,
    8,
  ]);
});

Deno.test("viewer compare: runs labelled, same task × profile × sample paired, pass rates per task and profile", () => {
  const base = "opencode@1.18.33", exact = "opencode@1.18.33+exact-edit";
  const a = [
    traj({ row_id: "r1", sample: 0, task: "t1", profile: base, reward: 1 }),
    traj({ row_id: "r1", sample: 1, task: "t1", profile: base, reward: 0 }),
    traj({ row_id: "r2", sample: 0, task: "t2", profile: base, reward: 0 }),
    traj({ row_id: "r3", sample: 0, task: "t3", profile: "pi@0.73.1", reward: 1 }),
  ];
  const b = [
    traj({ row_id: "s1", sample: 0, task: "t1", profile: exact, reward: 1 }),
    traj({ row_id: "s1", sample: 1, task: "t1", profile: exact, reward: 1 }),
    traj({ row_id: "s2", sample: 0, task: "t2", profile: exact, reward: null, exit_status: "infra_error" }),
    traj({ row_id: "s3", sample: 0, task: "t3", profile: "pi@0.73.1", reward: 0 }),
    traj({ row_id: "s3", sample: 0, task: "t3", profile: "pi@0.73.1", reward: 0.5 }), // a retry: the latest counts
  ];
  const [sa, sb] = profileSlots(a, b);
  assert.equal(sa.get(`t1\n${base}`), `${base} ⇄ ${exact}`);
  assert.equal(sb.get(`t1\n${exact}`), `${base} ⇄ ${exact}`);
  assert.equal(sa.get("t3\npi@0.73.1"), "pi@0.73.1");
  const d = compareViewerData([
    { label: "A", title: "runs/base", passThreshold: 1, k: 2, trajectories: a },
    { label: "B", title: "runs/exact", passThreshold: 0.5, k: 2, trajectories: b },
  ]);
  assert.equal(d.title, "A: runs/base · B: runs/exact");
  assert.deepEqual(d.runs.map((r) => [r.label, r.episodes, r.pass_threshold]), [["A", 4, 1], ["B", 4, 0.5]]);
  assert.deepEqual(d.episodes.map((e) => [e.id, e.run, e.pair ?? null]), [
    ["A:r1/0", "A", "B:s1/0"],
    ["B:s1/0", "B", "A:r1/0"],
    ["A:r1/1", "A", "B:s1/1"],
    ["B:s1/1", "B", "A:r1/1"],
    ["A:r2/0", "A", "B:s2/0"],
    ["B:s2/0", "B", "A:r2/0"],
    ["A:r3/0", "A", "B:s3/0"],
    ["B:s3/0", "B", "A:r3/0"],
  ]);
  assert.deepEqual(d.compare, [
    { task: "t1", profile: `${base} ⇄ ${exact}`, runs: { A: { passes: 1, scored: 2 }, B: { passes: 2, scored: 2 } } },
    { task: "t2", profile: `${base} ⇄ ${exact}`, runs: { A: { passes: 0, scored: 1 }, B: { passes: 0, scored: 0 } } },
    // B passes at 0.5: its retried 0.5 passes there.
    { task: "t3", profile: "pi@0.73.1", runs: { A: { passes: 1, scored: 1 }, B: { passes: 1, scored: 1 } } },
  ]);
  // "All" sums only the rows both runs scored (t2 has no scored episode in B): 2 of 3 rows.
  assert.deepEqual(d.compare_total, {
    shared: 2,
    rows: 3,
    runs: { A: { passes: 2, scored: 3 }, B: { passes: 3, scored: 3 } },
  });
  // The page reads the same data back.
  const unpack = new Function(`${UNPACK_SCRIPT}; return unpack;`)();
  assert.deepEqual(unpack(JSON.parse(JSON.stringify(packViewerData(d)))), JSON.parse(JSON.stringify(d)));
});

Deno.test("viewer compare: a profile both runs have pairs with itself; extra profiles stay alone", () => {
  const a = [
    traj({ row_id: "r", sample: 0, task: "t", profile: "pi@0.73.1" }),
    traj({ row_id: "q", sample: 0, task: "t", profile: "codex@1" }),
    traj({ row_id: "p", sample: 0, task: "t", profile: "goose@1" }),
  ];
  const b = [traj({ row_id: "s", sample: 0, task: "t", profile: "pi@0.73.1" })];
  const [sa] = profileSlots(a, b);
  assert.deepEqual([...sa.values()], ["pi@0.73.1", "codex@1", "goose@1"]);
  const d = compareViewerData([
    { label: "A", title: "a", passThreshold: 1, k: 1, trajectories: a },
    { label: "B", title: "b", passThreshold: 1, k: 1, trajectories: b },
  ]);
  assert.deepEqual(d.episodes.filter((e) => e.pair).map((e) => e.id), ["A:r/0", "B:s/0"]);
});
