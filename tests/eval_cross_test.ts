/**
 * `pgs eval --cross` and `runEpisodes(..., { cross: true })` against the real engine: every listed profile runs on every task (k samples each, each task ×
 * profile its own group), run.json and summary.json say so, and a re-run with the same --out skips what finished.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { assertSummaryMatches, pgsEval } from "./eval_helpers.ts";

dockerTest("eval --cross: every profile on every task, said in run.json and summary.json, resumed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cross_" });
  const out = join(dir, "out");
  const args = ["--tasks", EXAMPLE_TASKS, "--policy", "oracle", "--profiles", "opencode=1,pi=1", "--cross"];
  try {
    const r = await pgsEval([...args, "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    const { summary, ts } = await assertSummaryMatches(out);
    const tasks = [...new Set(ts.map((t) => t.task))].sort();
    assert.ok(tasks.length >= 2, `the example tasks: ${tasks}`);
    // Every (task, profile) pair ran once (k = 1), each a row (group) of its own, pinned to its profile.
    const pairs = ts.map((t) => `${t.task} × ${t.profile_key}`).sort();
    assert.deepEqual(pairs, tasks.flatMap((t) => [`${t} × opencode`, `${t} × pi`]));
    assert.equal(new Set(ts.map((t) => t.row_id)).size, ts.length);
    assert.equal(summary.cross, true);
    assert.equal(summary.expected, tasks.length * 2);
    assert.deepEqual(summary.grid.map((c) => `${c.task} × ${c.profile.split("@")[0]}`), pairs);
    const run = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
    assert.equal(run.cross, true);
    assert.equal(run.settings.cross, true);
    assert.match(run.pgs_version, /^\d+\.\d+\.\d+/);
    assert.match(run.tasks_git_revision ?? "", /^[0-9a-f]{40}$/, "the examples are in this checkout");
    const report = await Deno.readTextFile(join(out, "report.html"));
    assert.match(report, /Crossed run: every profile ran 1 sample on every task/);

    // The same --out again: every episode is already done.
    const again = await pgsEval([...args, "--out", out]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, new RegExp(`0 run now, ${ts.length} already done`));
    const run2 = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
    assert.equal(run2.started_at, run.started_at, "the first run's date is kept");
    assert.ok(run2.resumed_at);
    // Not crossed, the folder holds other settings: refused in one line.
    const drawn = await pgsEval([
      "--tasks",
      EXAMPLE_TASKS,
      "--policy",
      "oracle",
      "--profiles",
      "opencode=1,pi=1",
      "--out",
      out,
    ]);
    assert.equal(drawn.code, 2, drawn.stderr);
    assert.match(drawn.stderr, /holds a run with other settings \(cross: true → null\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest("runEpisodes (library) with cross: a group per task and profile, each pinned to its profile", async () => {
  const count = join(EXAMPLE_TASKS, "count-error-lines");
  const groups = await runEpisodes(
    () => ({ content: "Answer: 35" }),
    [{ task_dir: count }],
    { profiles: { opencode: 1, pi: 1 } },
    { k: 1, cross: true },
  );
  assert.deepEqual(groups.map((g) => g.map((t) => t.profile_key)), [["opencode"], ["pi"]]);
  assert.notEqual(groups[0][0].row_id, groups[1][0].row_id);
});
