/**
 * The viewer and the report at the size of a real eval: synthetic runs of 100, 500 and 2000 episodes (30 turns each,
 * a 2 kB tool result per turn) — the time to build viewer.html and report.html, their sizes, and, with Chromium, the
 * time until the page has rendered the list and until an episode is open. Prints; asserts nothing.
 */
import { join } from "node:path";
import { summarize } from "../lib/eval/records/summary.ts";
import { type Trajectory, TRAJECTORY_FORMAT } from "../lib/eval/records/trajectory.ts";
import { reportHtml } from "../lib/report/report_html.ts";
import { viewerData } from "../lib/report/viewer_data.ts";
import { viewerHtml } from "../lib/report/viewer_html.ts";
import { Browser, CHROMIUM } from "../tests/browser.ts";

const TURNS = 30;
const PROFILES = ["opencode@1.18.33", "pi@0.73.1", "claude-code@2.1.332", "mini-swe-agent@2.4.6"];

function episode(i: number): Trajectory {
  const task = `task-${String(i % 89).padStart(2, "0")}`;
  // Every result differs, as real ones do: only the system prompt repeats across episodes.
  const result = (t: number) =>
    Array.from({ length: 40 }, (_, j) => `2024-05-14 09:00:${j % 60},915 INFO [auth] line ${j} of ${i}.${t}`)
      .join("\n");
  const messages: Trajectory["messages"] = [
    { role: "system", content: "You are a coding agent. ".repeat(200) },
    { role: "user", content: `Fix ${task}.` },
  ];
  for (let t = 0; t < TURNS; t++) {
    messages.push({
      role: "assistant",
      content: `Step ${t}: look further.`,
      tool_calls: [{
        id: `c${t}`,
        type: "function",
        function: { name: "bash", arguments: `{"command":"sed -n ${t}p f"}` },
      }],
    });
    messages.push({ role: "tool", tool_call_id: `c${t}`, content: result(t) });
  }
  return {
    format: TRAJECTORY_FORMAT,
    id: `${task}/${Math.floor(i / 89)}`,
    row_id: task,
    task,
    task_dir: `/tasks/${task}`,
    sample: Math.floor(i / 89),
    profile: PROFILES[i % PROFILES.length],
    profile_key: "mix",
    policy: "bench",
    messages,
    tools: [],
    chat_template_kwargs: {},
    answer: "done",
    reward: i % 3 === 0 ? 1 : 0,
    metrics: {},
    exit_status: "stop_rule",
    turns: TURNS,
    counters: { tool_calls: TURNS, format_errors: i % 7 === 0 ? 1 : 0, unknown_tools: 0 },
    timings: { start_ms: 300, policy_ms: 9000, tools_ms: 2000, verify_ms: 400, total_ms: 12000 },
    usage: { prompt_tokens: 40000, completion_tokens: 2000 },
    docker_host: "default",
    started_at: "",
    ended_at: "",
  };
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
console.log(`pgs view bench: ${TURNS} turns per episode, ~${mb(JSON.stringify(episode(0)).length)} per episode`);
const dir = await Deno.makeTempDir({ prefix: "pgs_view_bench_" });
const browser = CHROMIUM ? await Browser.launch() : undefined;
if (!browser) console.log("  (no Chromium: the page's render times are not measured)");
try {
  for (const n of [100, 500, 2000]) {
    const ts = Array.from({ length: n }, (_, i) => episode(i));
    let t = performance.now();
    const page = viewerHtml(viewerData(ts, { title: "bench", passThreshold: 1, k: 23 }));
    const viewMs = performance.now() - t;
    t = performance.now();
    const report = reportHtml(summarize(ts, { k: 23 }), "bench", ts, { viewer: "viewer.html" });
    const reportMs = performance.now() - t;
    let line = `  ${String(n).padStart(5)} episodes: viewer.html ${mb(page.length)} in ${viewMs.toFixed(0)} ms, ` +
      `report.html ${mb(report.length)} in ${reportMs.toFixed(0)} ms`;
    if (browser) {
      const file = join(dir, `v${n}.html`);
      await Deno.writeTextFile(file, page);
      t = performance.now();
      await browser.goto(`file://${file}`);
      await browser.waitFor("document.querySelectorAll('#list tr.ep').length > 0", 120_000);
      const listMs = performance.now() - t;
      t = performance.now();
      await browser.click("#list tr.ep");
      await browser.waitFor("document.querySelector('.pane .transcript')", 60_000);
      const openMs = performance.now() - t;
      line += `; Chromium: list ${listMs.toFixed(0)} ms, episode open ${openMs.toFixed(0)} ms`;
    }
    console.log(line);
  }
} finally {
  await browser?.close();
  await Deno.remove(dir, { recursive: true });
}
