import assert from "node:assert/strict";
import { summarize } from "../lib/eval/records/summary.ts";
import { traj } from "./trajectory_fixture.ts";
import { passAtK } from "../lib/eval/records/pass_at_k.ts";
import { reportHtml } from "../lib/report/report_html.ts";
import { esc } from "../lib/report/html.ts";
import { nameColor } from "../lib/report/svg.ts";
import { curve, runStats, turnsBins } from "../lib/report/run_stats.ts";
import { packViewerData, UNPACK_SCRIPT, viewerData } from "../lib/report/viewer_data.ts";
import { viewerHtml } from "../lib/report/viewer_html.ts";
import { VIEWER_SCRIPT } from "../lib/report/viewer_script.ts";

Deno.test("pass@k: the unbiased estimator, against C(n-c,k)/C(n,k) by hand", () => {
  // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10.
  assert.ok(Math.abs(passAtK(5, 2, 2) - 0.7) < 1e-12);
  assert.ok(Math.abs(passAtK(10, 3, 1) - 0.3) < 1e-12);
  assert.equal(passAtK(3, 0, 3), 0);
  assert.equal(passAtK(3, 2, 2), 1, "fewer fails than k: every draw holds a pass");
  assert.throws(() => passAtK(2, 1, 3), /1 <= k <= n/);
  // A curve stops where no task has k samples, and each point says how many tasks it averages.
  assert.deepEqual(curve([{ n: 4, c: 1 }, { n: 2, c: 2 }], 4), [
    { k: 1, value: 0.625, tasks: 2 },
    { k: 2, value: 0.75, tasks: 2 },
    { k: 3, value: 0.75, tasks: 1 },
    { k: 4, value: 1, tasks: 1 },
  ]);
});

Deno.test("run stats: per profile and task, infra errors apart, format-error rate, turns bins, tokens", () => {
  const ts = [
    traj({ row_id: "a", sample: 0, reward: 1, turns: 3 }),
    traj({
      row_id: "a",
      sample: 1,
      reward: 0,
      turns: 9,
      counters: { tool_calls: 4, format_errors: 3, unknown_tools: 1 },
    }),
    traj({
      row_id: "a",
      sample: 2,
      profile: "opencode@1.18.33",
      reward: 1,
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    }),
    traj({ row_id: "b", sample: 0, reward: null, exit_status: "infra_error", turns: 0 }),
    traj({ row_id: "b", sample: 1, reward: 0.5, turns: 1 }),
  ];
  const s = runStats(ts, { k: 3, passThreshold: 1 });
  assert.deepEqual(s.profiles, ["opencode@1.18.33", "pi@0.73.1"]);
  assert.deepEqual(s.cell("pi@0.73.1", "/tasks/a"), { episodes: 2, passes: 1, infra: 0 });
  assert.deepEqual(s.cell("pi@0.73.1", "/tasks/b"), { episodes: 1, passes: 0, infra: 1 });
  assert.equal(s.cell("opencode@1.18.33", "/tasks/b"), undefined, "not drawn");
  const pi = s.per_profile["pi@0.73.1"];
  assert.equal(pi.episodes, 3);
  assert.equal(pi.format_error_rate, Math.round((3 / 13) * 1e4) / 1e4);
  assert.equal(pi.episodes_with_format_errors, 1);
  assert.equal(pi.unknown_tools, 1);
  assert.equal(pi.tokens, null, "no usage recorded");
  assert.deepEqual(s.per_profile["opencode@1.18.33"].tokens, { prompt: 100, completion: 10, episodes: 1 });
  assert.deepEqual(pi.pass_at_k.map((p) => [p.k, p.value, p.tasks]), [[1, 0.25, 2], [2, 1, 1]]);
  // Groups are (row, profile): row a's opencode sample is a group of its own, so no group has 3 samples.
  assert.deepEqual(s.pass_at_k.map((p) => [p.k, p.tasks]), [[1, 3], [2, 1]]);
  assert.deepEqual(turnsBins([{ turns: 0, pass: true }, { turns: 50, pass: false }], 10).length, 9);
  const bins = turnsBins([{ turns: 1, pass: true }, { turns: 2, pass: false }, { turns: 2, pass: true }]);
  assert.deepEqual(bins.map((b) => [b.from, b.passes, b.fails]), [[0, 0, 0], [1, 1, 0], [2, 1, 1]]);
});

Deno.test("report.html: heatmap cells, pass@k curves, histograms and calibration links", () => {
  const ts = [
    traj({ row_id: "a", sample: 0, reward: 1 }),
    traj({ row_id: "a", sample: 1, reward: 0 }),
    traj({ row_id: "a", sample: 2, profile: "opencode@1.18.33+exact-edit", reward: 0 }),
    traj({ row_id: "b", sample: 0, reward: 1, task: "t b" }),
  ];
  const s = summarize(ts, { k: 3 });
  const html = reportHtml(s, "run", ts, { viewer: "viewer.html" });
  assert.match(html, /aria-label="pass@1 per profile and task"/);
  assert.match(html, /<title>pi@0\.73\.1 × task-a: 1\/2 passed<\/title>/);
  assert.match(html, /opencode@1\.18\.33\+exact-edit × t b: not drawn/);
  assert.match(html, /href="viewer\.html#profile=pi%400\.73\.1&amp;task=task-a"/);
  assert.match(html, /aria-label="pass@k per profile"/);
  assert.match(html, /aria-label="turns to finish under pi@0\.73\.1"/);
  assert.match(html, /aria-label="exit statuses per profile"/);
  // Calibration: task-a has 1 pass in 3, linked into the viewer filtered to it, with the profiles it ran under.
  assert.match(
    html,
    /<li><a href="viewer\.html#task=task-a">task-a<\/a> · pi@0\.73\.1, opencode@1\.18\.33\+exact-edit \(1\/3\)<\/li>/,
  );
});

Deno.test("viewer.html: data embedded so no episode text can end the script, token arrays reduced to counts", () => {
  const t = traj({
    row_id: "a",
    sample: 0,
    messages: [{ role: "user", content: "</script><script>alert(1)</script> <!-- \u2028" }],
    rollout_details: [{
      prompt_token_ids: [[1, 2, 3], [1, 2, 3, 4, 5]],
      completion_token_ids: [[4], [6, 7]],
      logprobs: [[0], [0, 0]],
    }],
    loss_mask: [0, 0, 0, 1, 0, 1, 1],
  });
  const data = viewerData([t], { title: "</title><b>x", passThreshold: 1, k: 1 });
  assert.deepEqual(data.episodes[0].turn_tokens, [{ prompt: 3, completion: 1 }, { prompt: 5, completion: 2 }]);
  assert.ok(!("rollout_details" in data.episodes[0]) && !("loss_mask" in data.episodes[0]));
  const html = viewerHtml(data);
  assert.equal(html.match(/<\/script>/g)?.length, 2, "only the page's own two script elements close");
  assert.match(html, /&lt;\/title&gt;&lt;b&gt;x/);
  const json = html.split('<script type="application/json" id="pgs-data">')[1].split("</script>")[0];
  const unpack = new Function(`${UNPACK_SCRIPT}; return unpack;`)();
  assert.deepEqual(unpack(JSON.parse(json)), data, "the embedded JSON reads back the same");
  assert.doesNotMatch(html, /<link|src=|@import|url\(/i);
});

Deno.test("viewer script: parses as JavaScript (the browser test runs it)", () => {
  // new Function compiles without running: a syntax error in the embedded text fails here, before any browser.
  assert.equal(typeof new Function(VIEWER_SCRIPT), "function");
});

Deno.test("viewer data: what episodes share (system prompt, tool schemas) is sent once and restored whole", () => {
  const system = "You are a coding agent. ".repeat(40);
  const tools = [{ type: "function" as const, function: { name: "bash", description: "run", parameters: {} } }];
  const ts = [0, 1, 2].map((i) =>
    traj({
      row_id: "a",
      sample: i,
      tools: i < 2 ? tools : [],
      messages: [
        { role: "system", content: system },
        { role: "user", content: "x".repeat(300 + i) },
        { role: "user", content: [{ type: "text", text: system }] },
      ],
    })
  );
  const data = viewerData(ts, { title: "t", passThreshold: 1 });
  const packed = packViewerData(data);
  assert.deepEqual(packed.strings, [system], "only the long text that repeats");
  assert.equal((packed.tool_sets as unknown[]).length, 2);
  assert.ok(JSON.stringify(packed).length < JSON.stringify(data).length - system.length);
  const unpack = new Function(`${UNPACK_SCRIPT}; return unpack;`)();
  assert.deepEqual(unpack(JSON.parse(JSON.stringify(packed))), data);
});

/** Two samples of `task` under `profile`, a row of their own (as a rows file listing the task once per profile). */
function pair(task: string, profile: string, rewards: number[]) {
  return rewards.map((reward, sample) =>
    traj({ row_id: `${task}-${profile}`, sample, task, task_dir: `/tasks/${task}`, profile, reward })
  );
}

const OC = "opencode@1.18.33", PI = "pi@0.73.1", CC = "claude-code@2.1.332";

Deno.test("pass@k: one definition; on a rows file listing each task once per profile the headline, curves and summary agree", () => {
  const ts = [
    ...pair("A", OC, [1, 0]),
    ...pair("A", PI, [0, 0]),
    ...pair("A", CC, [0, 0]),
    ...pair("B", OC, [1, 1]),
    ...pair("B", PI, [0, 1]),
    ...pair("B", CC, [0, 0]),
  ];
  const s = summarize(ts, { k: 2 });
  const html = reportHtml(s, "run", ts);
  // By hand: per (task, profile) group, pass@2 is 1 when a sample passed: A×OC, B×OC and B×PI of 6 groups. Pooling a
  // task's samples across profiles (A: 1 of 6, B: 3 of 6) would give (1/3 + 4/5) / 2 instead.
  assert.equal(s["pass@k"], 0.5);
  assert.equal(s.overall["pass@1"], 0.3333);
  const headline = Number(html.match(/<span id="headline-pass-at-k">pass@2 ([\d.]+)%<\/span>/)![1]) / 100;
  const pass1 = Number(html.match(/<p class="big">pass@1 ([\d.]+)%/)![1]) / 100;
  const point = (name: string, k: number) =>
    Number(html.match(new RegExp(`<title>${name.replace(/[.+]/g, "\\$&")}: k ${k} → ([\\d.]+)</title>`))![1]);
  assert.ok(Math.abs(headline - point("all profiles", 2)) < 5e-4, `headline ${headline} vs curve`);
  assert.ok(Math.abs(pass1 - point("all profiles", 1)) < 5e-4, `pass@1 ${pass1} vs curve`);
  const stats = runStats(ts, { k: 2, passThreshold: 1 });
  assert.equal(stats.pass_at_k.find((p) => p.k === 2)!.value, s["pass@k"]);
  assert.equal(stats.pass_at_k.find((p) => p.k === 1)!.value, s.overall["pass@1"]);
  // Per profile: summary.json, the curve's points and the bar's note say the same.
  for (const [p, want] of [[OC, 1], [PI, 0.5], [CC, 0]] as const) {
    assert.equal(s.profiles[p]["pass@k"], want, p);
    assert.equal(point(p, 2), want, p);
    assert.equal(stats.per_profile[p].pass_at_k[1].value, want, p);
    assert.equal(point(p, 1), s.profiles[p]["pass@1"], p);
  }
  assert.match(html, /<p class="legend" id="pass-at-k-definition">pass@k is computed per group/);
});

Deno.test("report.html: profiles with equal figures stay visible, each listed in the legend", () => {
  const ts = [...pair("A", OC, [1, 0]), ...pair("A", PI, [1, 0]), ...pair("B", OC, [0, 0]), ...pair("B", PI, [0, 0])];
  const html = reportHtml(summarize(ts, { k: 2 }), "run", ts);
  const line = (name: string) =>
    html.match(
      new RegExp(`<polyline class="series" data-name="${name.replace(/[.+]/g, "\\$&")}"[^>]*points="([^"]+)"`),
    );
  const [oc, pi] = [line(OC), line(PI)];
  assert.ok(oc && pi, "a line per profile");
  assert.notEqual(oc[1], pi[1], "the second of two equal curves is drawn apart from the first");
  assert.match(pi[0], /stroke-dasharray/);
  assert.match(html, new RegExp(`<text [^>]*>${OC.replace(/[.+]/g, "\\$&")}</text>`));
  assert.match(
    html,
    new RegExp(`<text [^>]*>${PI.replace(/[.+]/g, "\\$&")} \\(= ${OC.replace(/[.+]/g, "\\$&")}\\)</text>`),
  );
});

Deno.test("report.html: a profile's colour follows its name, not its place among the run's profiles", () => {
  const stroke = (html: string, name: string) =>
    html.match(new RegExp(`data-name="${name.replace(/[.+]/g, "\\$&")}" fill="none" stroke="([^"]+)"`))![1];
  const both = [...pair("A", OC, [1, 0]), ...pair("A", PI, [1, 1])];
  const alone = pair("A", PI, [1, 1]);
  const a = stroke(reportHtml(summarize(both, { k: 2 }), "r", both), PI);
  const b = stroke(reportHtml(summarize(alone, { k: 2 }), "r", alone), PI);
  assert.equal(a, b);
  assert.equal(a, nameColor(PI));
  assert.notEqual(nameColor(PI), nameColor(OC));
});

Deno.test("report.html: a run header, exit statuses once, pass rate per task and profile, the crossed grid", () => {
  const ts = [...pair("A", OC, [1, 0]), ...pair("A", PI, [0, 0]), ...pair("B", OC, [1, 1]), ...pair("B", PI, [0, 1])]
    .map((t) => ({ ...t, model: "qwen3-8b", started_at: "2026-12-04T10:00:00.000Z" }));
  const s = summarize(ts, { k: 2, cross: true });
  const run = {
    model: "Qwen/Qwen3-8B",
    started_at: "2026-12-01T09:30:00.000Z",
    k: 2,
    seed: 7,
    max_turns: 32,
    pgs_version: "0.1.0",
    tasks: "tasks/",
    tasks_git_revision: "0123456789abcdef0123456789abcdef01234567",
    policy: "endpoint",
    profiles: "opencode=1, pi=1",
    cross: true,
  };
  const html = reportHtml(s, "run", ts, { run });
  const dl = html.match(/<dl class="run">(.*?)<\/dl>/)![1];
  for (
    const [k, v] of [
      ["model", "Qwen/Qwen3-8B"],
      ["started", "2026-12-01 09:30:00 UTC"],
      ["k", "2"],
      ["seed", "7"],
      ["max turns", "32"],
      ["tasks' git revision", run.tasks_git_revision],
      ["pgs", "0.1.0"],
      ["profiles", "opencode=1, pi=1 (crossed: every profile on every task)"],
    ]
  ) assert.ok(dl.includes(`<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`), `${k}: ${dl}`);
  // Without run.json's fields, the header reads what the episodes say.
  const bare = reportHtml(s, "run", ts).match(/<dl class="run">(.*?)<\/dl>/)![1];
  assert.match(
    bare,
    /<dt>model<\/dt><dd>qwen3-8b<\/dd><dt>started<\/dt><dd>2026-12-04 10:00:00 UTC<\/dd><dt>k<\/dt><dd>2<\/dd>/,
  );
  assert.doesNotMatch(bare, /git revision/);
  assert.equal(html.match(/Exit statuses/g)?.length, 1);
  assert.match(html, /Crossed run: every profile ran 2 samples on every task/);
  for (const t of ["A", "B"]) {
    for (const p of [OC, PI]) assert.ok(html.includes(`>${t} · ${p}</text>`), `a bar for ${t} × ${p}`);
  }
  assert.deepEqual(s.grid.map((c) => [c.task, c.profile, c["pass@k"]]), [
    ["A", OC, 1],
    ["A", PI, 0],
    ["B", OC, 1],
    ["B", PI, 1],
  ]);
  assert.equal(s.cross, true);
});
