/**
 * The viewer in Chromium on two small runs written as `pgs eval` would (no engine): sortable columns, tokens per
 * episode, why episodes ended, the files an episode changed, what the verifier's output section says, and two runs
 * compared (`pgs view RUN_A RUN_B`), as a file and served.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveView } from "../lib/report/view_server.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import { Browser, countText, ignoreBrowser, shot, shots } from "./browser.ts";
import { pgs } from "./eval_helpers.ts";
import { ciTest } from "./tier.ts";
import { traj } from "./trajectory_fixture.ts";

/** Two small runs written as `pgs eval` would, with no engine: the +exact-edit study in miniature. */
async function fixtureRuns(dir: string): Promise<{ a: string; b: string; ta: Trajectory[]; tb: Trajectory[] }> {
  const base = "opencode@1.18.33", exact = "opencode@1.18.33+exact-edit";
  const diff = {
    patch: "diff --git a/wc.py b/wc.py\n--- a/wc.py\n+++ b/wc.py\n@@ -1,2 +1,2 @@\n-old line\n+new line\n same\n",
    files: [{ path: "wc.py", change: "modified" as const, added: 1, removed: 1 }, {
      path: "img.png",
      change: "added" as const,
      added: 0,
      removed: 0,
      binary: true,
    }],
  };
  const ta = [
    traj({
      row_id: "r1",
      sample: 0,
      task: "fix",
      profile: base,
      turns: 3,
      usage: { prompt_tokens: 5000, completion_tokens: 120 },
      metrics: { "metric/reward": 1, "metric/profile/palingenesis-default@1": 0, [`metric/profile/${base}`]: 1 },
      workdir_diff: diff,
    }),
    traj({
      row_id: "r1",
      sample: 1,
      task: "fix",
      profile: base,
      turns: 9,
      reward: 0,
      exit_status: "timeout",
      agent_timeout_sec: 5,
      usage: { prompt_tokens: 900, completion_tokens: 30 },
      test_output: "FAILED test_top\n",
      agent_stderr: "solve.sh: line 3: boom\n",
    }),
    traj({
      row_id: "r2",
      sample: 0,
      task: "count",
      profile: base,
      turns: 1,
      reward: null,
      exit_status: "infra_error",
      infra_stage: "start",
      error: "start: docker run failed",
    }),
  ];
  const tb = [
    traj({ row_id: "s1", sample: 0, task: "fix", profile: exact, turns: 4, reward: 1 }),
    traj({ row_id: "s1", sample: 1, task: "fix", profile: exact, turns: 5, reward: 1 }),
    traj({ row_id: "s2", sample: 0, task: "count", profile: exact, turns: 2, reward: 0 }),
  ];
  const write = async (name: string, ts: Trajectory[]) => {
    const run = join(dir, name);
    await Deno.mkdir(run);
    await Deno.writeTextFile(join(run, "trajectories.jsonl"), ts.map((t) => JSON.stringify(t) + "\n").join(""));
    return run;
  };
  return { a: await write("base", ta), b: await write("exact", tb), ta, tb };
}

ciTest({
  name: "viewer in Chromium: sortable columns, tokens, why episodes ended, the diff, and two runs compared",
  ignore: ignoreBrowser,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_viewer_cmp_" });
  const { a, b: bRun, ta, tb } = await fixtureRuns(dir);
  const one = join(dir, "one.html"), two = join(dir, "two.html");
  for (const [args, file] of [[[a], one], [[a, bRun], two]] as const) {
    const w = await pgs(["view", ...args, "--out", file]);
    assert.equal(w.code, 0, w.stderr);
  }
  const out = await shots();
  const b = await Browser.launch();
  const column = (n: number) =>
    b.eval<string[]>(`[...document.querySelectorAll('#list tr.ep td:nth-child(${n})')].map((td) => td.textContent)`);
  const headers = () =>
    b.eval<string[]>("[...document.querySelectorAll('#list table.episodes thead th')].map((th) => th.textContent)");
  try {
    await b.goto(`file://${one}`);
    await b.waitFor("document.getElementById('count')");
    const head = await headers();
    const col = (name: string) => head.findIndex((h) => h === name) + 1;
    assert.ok(col("prompt tokens") > 0 && col("completion tokens") > 0 && col("files changed") > 0, head.join("|"));
    assert.deepEqual(await column(col("prompt tokens")), ["5,000", "900", "–"]);
    assert.deepEqual(await column(col("completion tokens")), ["120", "30", "–"]);
    assert.deepEqual(await column(col("files changed")), ["2", "–", "–"]);
    // The error column says why an episode ended: a timeout in seconds, an infrastructure error with its stage.
    assert.deepEqual(await column(col("error")), [
      "",
      "agent timed out after 5 s",
      "infrastructure error (start): start: docker run failed",
    ]);

    // A click on a header sorts by it, into the URL; a second click reverses it; the URL alone restores it.
    await b.click("#list th[data-sort=turns]");
    await b.waitFor("location.hash === '#sort=turns' && document.querySelector('th.asc[data-sort=turns]')");
    assert.deepEqual(await column(col("turns")), ["1", "3", "9"]);
    await b.click("#list th[data-sort=turns]");
    await b.waitFor("location.hash === '#sort=-turns' && document.querySelector('th.desc[data-sort=turns]')");
    assert.deepEqual(await column(col("turns")), ["9", "3", "1"]);
    await b.click("#list th[data-sort=prompt]");
    await b.waitFor("location.hash === '#sort=prompt' && document.querySelector('th.asc[data-sort=prompt]')");
    assert.deepEqual(await column(col("prompt tokens")), ["900", "5,000", "–"], "no count sorts last");
    await b.goto(`file://${one}#sort=-prompt&profile=opencode%401.18.33`);
    await b.waitFor("document.getElementById('count')");
    assert.deepEqual(await column(col("prompt tokens")), ["5,000", "900", "–"]);
    assert.equal(await b.eval<string>("document.querySelector('th.desc').dataset.sort"), "prompt");
    await shot(b, out, "8-sorted");

    // An episode whose tests printed nothing but passed: they ran. Its diff, its metrics without the profile one-hot.
    await b.goto(`file://${one}#ep=${encodeURIComponent(ta[0].id)}`);
    await b.waitFor("document.querySelector('.pane')");
    const pane = await b.eval<{ note: string; metrics: string[]; files: string[]; add: string[]; del: string[] }>(`({
      note: document.querySelector('.pane .verifier-note')?.textContent ?? '',
      metrics: [...document.querySelectorAll('.pane table.kv')].at(-1).querySelectorAll('th').length
        ? [...[...document.querySelectorAll('.pane table.kv')].at(-1).querySelectorAll('th')].map((th) => th.textContent) : [],
      files: [...document.querySelectorAll('.pane .wdiff table.files tr')].map((tr) => tr.textContent),
      add: [...document.querySelectorAll('.pane pre.diff span.add')].map((s) => s.textContent),
      del: [...document.querySelectorAll('.pane pre.diff span.del')].map((s) => s.textContent),
    })`);
    assert.equal(pane.note, "test.sh printed nothing");
    assert.deepEqual(pane.metrics, ["reward"]);
    assert.deepEqual(pane.files, ["modifiedwc.py+1 −1", "addedimg.pngbinary"]);
    assert.deepEqual(pane.add, ["+new line\n"]);
    assert.deepEqual(pane.del, ["-old line\n"]);
    await shot(b, out, "9-diff");
    await b.goto(`file://${one}#ep=${encodeURIComponent(ta[2].id)}`);
    await b.waitFor("document.querySelector('.pane')");
    assert.equal(
      await b.eval<string>("document.querySelector('.pane .verifier-note').textContent"),
      "the tests did not run (infrastructure error)",
    );
    await b.goto(`file://${one}#ep=${encodeURIComponent(ta[1].id)}`);
    await b.waitFor("document.querySelector('.pane')");
    assert.equal(await b.eval<string>("document.querySelector('.pane pre.test').textContent"), "FAILED test_top\n");
    assert.equal(
      await b.eval<string>("document.querySelector('.pane pre.stderr').textContent"),
      "solve.sh: line 3: boom\n",
    );
    assert.match(
      await b.eval<string>("document.querySelector('.pane pre.reason').textContent"),
      /agent timed out after 5 s/,
    );

    // Two runs: labelled, paired, and their pass rates per task and profile.
    await b.goto(`file://${two}`);
    await b.waitFor("document.getElementById('compare')");
    assert.equal(await countText(b), "6 of 6 episodes");
    const pair = "opencode@1.18.33 ⇄ opencode@1.18.33+exact-edit";
    assert.deepEqual(
      await b.eval<string[][]>(
        "[...document.querySelectorAll('#compare tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent))",
      ),
      [
        ["count", pair, "–", "0/1 (0%)", ""],
        ["fix", pair, "1/2 (50%)", "2/2 (100%)", "+50 pts"],
        // Only the rows both runs scored are summed (count has no scored episode in A): not 1/2 against 2/3.
        ["all both ran", "1 of 2 task × profile rows", "1/2 (50%)", "2/2 (100%)", "+50 pts"],
      ],
    );
    const runCol = (await headers()).indexOf("run") + 1;
    assert.deepEqual(await column(runCol), ["A", "B", "A", "B", "A", "B"]);
    await b.select("select[data-filter=run]", "B");
    await b.waitFor("document.getElementById('count')?.textContent === '3 of 6 episodes'");
    await shot(b, out, "10-compare");
    // The pair of fix #1 side by side: the timed-out A next to the passing B.
    await b.goto(`file://${two}`);
    await b.waitFor("document.getElementById('compare')");
    await b.click(`#list tr.ep[data-id="A:${ta[1].id}"] button.pair`);
    await b.waitFor("document.querySelectorAll('.side .pane').length === 2");
    assert.deepEqual(
      await b.eval<string[]>("[...document.querySelectorAll('.pane')].map((p) => p.dataset.episode)"),
      [`A:${ta[1].id}`, `B:${tb[1].id}`],
    );
    assert.deepEqual(
      await b.eval<string[]>("[...document.querySelectorAll('.pane h2 .badge.run')].map((x) => x.textContent)"),
      [
        "A",
        "B",
      ],
    );
    await shot(b, out, "11-compare-pair");
    assert.deepEqual(b.errors, [], "no error in the page");
  } finally {
    await b.close();
  }

  // Served, the two runs' reports are one link each; one or two folders only.
  const server = serveView([a, bRun], { port: 0 });
  try {
    const page = await (await fetch(server.url)).text();
    assert.match(page, /data-report="report"/);
    const report = await fetch(`${server.url}report/B`);
    assert.equal(report.status, 200);
    assert.match(await report.text(), /exact/);
    assert.equal((await fetch(`${server.url}report`)).status, 404);
    await (await fetch(`${server.url}report/A`)).body?.cancel();
  } finally {
    await server.shutdown();
  }
  const e = await pgs(["view", a, bRun, a]);
  assert.equal(e.code, 2);
  assert.match(e.stderr, /expected RUN_DIR, or RUN_A RUN_B/);
  await Deno.remove(dir, { recursive: true });
});
