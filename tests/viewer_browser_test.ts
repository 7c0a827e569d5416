/**
 * The trajectory viewer and the report in a real headless Chromium, on real eval runs against the engine: the list
 * renders every episode, a filter narrows it, an episode opens as its transcript, two open side by side, the report's
 * heatmap links into the viewer, and `pgs view` serves a run live (a new episode shows up without a reload). Each step
 * leaves a screenshot (in PGS_SCREENSHOTS when set, else a temporary folder).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { latestById, readTrajectories, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { Browser, countText, ignoreBrowser, shot, shots } from "./browser.ts";
import { dockerAvailable, engineTest } from "./docker_helpers.ts";
import { pgs, pgsEval, ROOT, stubEval } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const FIX = join(EXAMPLE_TASKS, "fix-word-count");
const ignore = ignoreBrowser;

const rowsShown = (b: Browser) => b.eval<number>("document.querySelectorAll('#list tr.ep').length");

engineTest({
  name: "viewer in Chromium: the list renders, a filter narrows it, an episode opens, two side by side",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  assert.ok(dockerAvailable, "a Docker engine is needed");
  const dir = await Deno.makeTempDir({ prefix: "pgs_viewer_" });
  const rows = [
    ...["opencode", "claude-code", "mini-swe-agent-text", "terminus-2"].map((p) => [COUNT, p]),
    [FIX, "opencode"],
  ].map(([task_dir, harness_profile]) => JSON.stringify({ task_dir, harness_profile }));
  await Deno.writeTextFile(join(dir, "rows.jsonl"), rows.join("\n") + "\n");
  const run = join(dir, "run");
  const r = await pgsEval(["--tasks", join(dir, "rows.jsonl"), "--policy", "oracle", "--out", run]);
  assert.equal(r.code, 0, r.stderr);
  const ts = latestById(readTrajectories(join(run, "trajectories.jsonl")));
  assert.equal(ts.length, 5);
  const out = await shots();
  const b = await Browser.launch();
  try {
    // The page eval wrote beside the report.
    await b.goto(`file://${run}/viewer.html`);
    await b.waitFor("document.getElementById('count')");
    assert.equal(await b.eval<string>("document.querySelector('h1 a.report').getAttribute('href')"), "report.html");
    assert.equal(await countText(b), "5 of 5 episodes");
    assert.equal(await rowsShown(b), 5);
    await shot(b, out, "1-list");

    // A filter narrows the list: opencode ran two tasks.
    await b.select("select[data-filter=profile]", "opencode@1.18.33");
    await b.waitFor("document.getElementById('count')?.textContent === '2 of 5 episodes'");
    const profiles = await b.eval<string[]>(
      "[...document.querySelectorAll('#list tr.ep td:nth-child(3)')].map((td) => td.textContent)",
    );
    assert.deepEqual(profiles, ["opencode@1.18.33", "opencode@1.18.33"]);
    assert.match(await b.eval<string>("location.hash"), /profile=opencode%401\.18\.33/);
    await shot(b, out, "2-filtered");
    // terminus-2 cannot reply, so it fails the reply-graded task: the reward filter finds it alone.
    await b.select("select[data-filter=profile]", "");
    await b.select("select[data-filter=reward]", "fail");
    await b.waitFor("document.getElementById('count')?.textContent === '1 of 5 episodes'");

    // A click opens the episode as its transcript.
    const failing = ts.find((t) => t.reward === 0)!;
    await b.click(`#list tr.ep[data-id="${failing.id}"]`);
    await b.waitFor(`document.querySelector('.pane[data-episode="${failing.id}"]')`);
    const view = await b.eval<{ assistant: number; title: string; test: string; answer: string | null }>(`({
      assistant: document.querySelectorAll('.pane .turn.assistant').length,
      title: document.querySelector('.pane h2').textContent,
      test: document.querySelector('.pane pre.test')?.textContent ?? '',
      answer: document.querySelector('.pane pre.answer')?.textContent ?? null,
    })`);
    assert.equal(view.assistant, failing.messages.filter((m) => m.role === "assistant").length);
    assert.equal(view.title, `${failing.task} · ${failing.profile} #0`);
    assert.ok(failing.test_output && view.test.includes(failing.test_output.trim().split("\n")[0]), view.test);
    assert.equal(view.answer, failing.answer);
    await shot(b, out, "3-episode");

    // The same task under another profile, side by side: the pass next to the fail. The pass is a native-call
    // profile's, so its pane has tool turns whichever order the episodes finished in.
    const passing = ts.find((t) =>
      t.task === failing.task && t.reward === 1 && t.messages.some((m) => m.role === "tool")
    )!;
    await b.select(".pane select.compare", passing.id);
    await b.waitFor("document.querySelectorAll('.side .pane').length === 2");
    const panes = await b.eval<string[]>("[...document.querySelectorAll('.pane')].map((p) => p.dataset.episode)");
    assert.deepEqual(panes, [failing.id, passing.id]);
    // Every tool result names its tool, also where the harness's message carries no name (opencode's, pi's).
    const heads = await b.eval<string[]>(
      "[...document.querySelectorAll('.pane .turn.tool .head')].map((x) => x.textContent)",
    );
    assert.ok(heads.length > 0);
    for (const head of heads) assert.match(head, /^result · [A-Za-z_]+ · \S/, head);
    await shot(b, out, "4-side-by-side");

    // The oracle's fix of fix-word-count, recorded by eval as the working directory's diff, shows as one.
    const fixed = ts.find((t) => t.task_dir === FIX)!;
    await b.goto(`file://${run}/viewer.html#ep=${encodeURIComponent(fixed.id)}`);
    await b.waitFor("document.querySelector('.pane .wdiff')");
    const changed = await b.eval<string[]>(
      "[...document.querySelectorAll('.wdiff table.files tr td:nth-child(2)')].map((td) => td.textContent)",
    );
    assert.deepEqual(changed, fixed.workdir_diff!.files.map((f) => f.path));
    assert.ok(changed.includes("wordcount.py"), changed.join(", "));
    assert.ok(await b.eval<number>("document.querySelectorAll('.wdiff pre.diff span.add').length") > 5);

    // The report's heatmap cell links into the viewer, filtered to that profile and task.
    await b.goto(`file://${run}/report.html`);
    const href = await b.eval<string>(
      "[...document.querySelectorAll('a')].map((a) => a.getAttribute('href')).find((h) => h.includes('profile=opencode') && h.includes('task='))",
    );
    assert.match(href, /^viewer\.html#profile=opencode%401\.18\.33&task=/);
    await shot(b, out, "5-report");
    await b.goto(`file://${run}/${href}`);
    await b.waitFor("document.getElementById('count')");
    assert.equal(await countText(b), "1 of 5 episodes");
    assert.deepEqual(b.errors, [], "no error in the page");
  } finally {
    await b.close();
  }
  await Deno.remove(dir, { recursive: true });
});

engineTest({
  name: "pgs view serves a run live: format errors, unknown tools and token counts shown; new episodes appear",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  assert.ok(dockerAvailable, "a Docker engine is needed");
  const dir = await Deno.makeTempDir({ prefix: "pgs_view_live_" });
  // mini-swe-agent: a reply without a command is a format error; a call to a tool it lacks is an unknown tool.
  const turns = [
    { content: "Let me count them." },
    { tool_calls: [{ name: "python", arguments: { code: "print(35)" } }] },
    { tool_calls: [{ name: "bash", arguments: { command: "seq 1 100000" } }] },
    { tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }] },
    {
      tool_calls: [{
        name: "bash",
        arguments: { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo 'Answer: 35'" },
      }],
    },
  ];
  const run = join(dir, "run");
  await stubEval(dir, turns, ["--tasks", COUNT, "--profile", "mini-swe-agent", "--token-ids", "--out", run]);
  const [t] = latestById(readTrajectories(join(run, "trajectories.jsonl")));
  // mini-swe-agent's own validation makes a call to a tool it lacks a format error, worded by the harness.
  assert.deepEqual(t.turn_flags?.map((f) => [f.turn, f.format_error?.slice(0, 22)]), [
    [0, "no tool call"],
    [1, "Unknown tool 'python'."],
  ]);

  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "main.ts"), "view", run, "--port", "0"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!/Ctrl-C/.test(said)) {
    const { value, done } = await reader.read();
    if (done) break;
    said += value;
  }
  const url = said.match(/on (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1];
  assert.ok(url, said);
  const out = await shots();
  const b = await Browser.launch();
  try {
    await b.goto(`${url}#ep=${encodeURIComponent(t.id)}`);
    await b.waitFor("document.querySelector('.pane')");
    const turnsShown = await b.eval<{ head: string; format: string | null; unknown: boolean }[]>(
      `[...document.querySelectorAll('.turn.assistant')].map((el) => ({
        head: el.querySelector('.head').textContent,
        format: el.querySelector('.head .badge.bad')?.title ?? null,
        unknown: !!el.querySelector('.call.unknown'),
      }))`,
    );
    const rd = t.rollout_details![0];
    assert.equal(turnsShown.length, rd.prompt_token_ids.length);
    turnsShown.forEach((x, i) => {
      const tokens = `${rd.prompt_token_ids[i].length} prompt + ${rd.completion_token_ids[i].length} completion tokens`;
      assert.ok(x.head.includes(tokens), `turn ${i}: ${x.head}`);
    });
    const flags = t.turn_flags!;
    assert.deepEqual(turnsShown.map((x) => [x.format, x.unknown]), [
      [flags[0].format_error, false],
      [flags[1].format_error, true],
      [null, false],
      [null, false],
      [null, false],
    ]);
    // The long result is folded, and its preview keeps the harness's truncation mark in view.
    const fold = await b.eval<{ preview: string; marks: string[]; full: string }>(`(() => {
      const f = document.querySelector('.turn.tool .fold');
      return { preview: f.querySelector('pre.preview').textContent,
        marks: [...f.querySelectorAll('pre.preview mark.trunc')].map((m) => m.textContent),
        full: f.querySelector('details pre').textContent };
    })()`);
    const long = t.messages.find((m) => m.role === "tool" && String(m.content).length > 6000)!;
    assert.equal(fold.full, long.content, "the whole result, word for word, behind the fold");
    assert.ok(fold.preview.length < fold.full.length);
    assert.ok(fold.marks.length > 0, fold.preview.slice(0, 2000));
    for (const m of fold.marks) assert.ok(String(long.content).includes(m.trimEnd()), m);
    // The harness's own format-error message is the highlighted observation.
    const observed = await b.eval<string>("document.querySelector('.turn.format-error pre').textContent");
    const reply = t.messages[t.messages.findIndex((m) => m.role === "assistant") + 1];
    assert.equal(observed, reply.content);
    await shot(b, out, "6-live-episode");

    // While the run goes on: a new record appended to trajectories.jsonl shows up in the open list.
    await b.goto(url);
    await b.waitFor("document.getElementById('count')");
    assert.equal(await countText(b), "1 of 1 episodes");
    const next: Trajectory = { ...t, id: `${t.row_id}/1`, sample: 1, reward: 0 };
    await Deno.writeTextFile(join(run, "trajectories.jsonl"), JSON.stringify(next) + "\n", { append: true });
    await b.waitFor("document.getElementById('count')?.textContent === '2 of 2 episodes'", 10_000);
    await shot(b, out, "7-live-list");
    // The served report counts what finished so far, and its links lead back into the served viewer.
    await b.click("h1 a.report");
    await b.waitFor("location.pathname === '/report' && document.readyState === 'complete'");
    assert.match(await b.eval<string>("document.querySelector('p.big').textContent"), /pass@1 50\.0% \(1\/2\)/);
    const back = await b.eval<string>("document.querySelector('a[href^=\"./#profile=\"]').getAttribute('href')");
    assert.equal(back, "./#profile=mini-swe-agent%402.4.6");
    assert.deepEqual(b.errors, [], "no error in the page");
  } finally {
    await b.close();
    child.kill("SIGINT");
    await reader.cancel().catch(() => {});
    await child.status;
  }

  // --out writes the same page once; bad arguments are one line naming them.
  const file = join(dir, "view.html");
  const w = await pgs(["view", run, "--out", file]);
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stderr, /wrote the viewer of 2 episodes/);
  assert.match(await Deno.readTextFile(file), /<script type="application\/json" id="pgs-data">/);
  for (
    const [args, msg] of [
      [["view", dir], /no trajectories\.jsonl/],
      [["view", run, "--port", "x"], /--port must be an integer/],
      [["view", run, "--out", join(dir, "no", "f.html")], /does not exist/],
      [["view"], /expected RUN_DIR, or RUN_A RUN_B/],
    ] as const
  ) {
    const e = await pgs([...args]);
    assert.equal(e.code, 2, e.stderr);
    assert.equal(e.stderr.trim().split("\n").length, 1, e.stderr);
    assert.match(e.stderr, msg);
  }
  await Deno.remove(dir, { recursive: true });
});
