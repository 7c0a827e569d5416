/**
 * report.html in Chromium, on a run that lists each task once per profile: the headline's pass@k is the curve's point,
 * profiles with equal figures are drawn apart and each is in the legend, the run header shows, "Exit statuses" is one
 * section. No engine: the trajectories are made here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reportHtml } from "../lib/report/report_html.ts";
import { summarize } from "../lib/eval/records/summary.ts";
import { Browser, ignoreBrowser } from "./browser.ts";
import { ciTest } from "./tier.ts";
import { traj } from "./trajectory_fixture.ts";

function pair(task: string, profile: string, rewards: number[]) {
  return rewards.map((reward, sample) =>
    traj({ row_id: `${task}-${profile}`, sample, task, task_dir: `/tasks/${task}`, profile, reward })
  );
}

const OC = "opencode@1.18.33", EX = "opencode@1.18.33+exact-edit", PI = "pi@0.73.1";

ciTest({
  name: "report.html in Chromium: the headline is the curve's point, equal profiles drawn apart, one status section",
  ignore: ignoreBrowser,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  // opencode and its +exact-edit variant score the same on every task: their curves coincide.
  const ts = [
    ...pair("A", OC, [1, 0, 0]),
    ...pair("A", EX, [1, 0, 0]),
    ...pair("A", PI, [0, 0, 1]),
    ...pair("B", OC, [1, 1, 0]),
    ...pair("B", EX, [1, 1, 0]),
    ...pair("B", PI, [0, 0, 0]),
  ];
  const s = summarize(ts, { k: 3, cross: true });
  const dir = await Deno.makeTempDir({ prefix: "pgs_report_" });
  const file = join(dir, "report.html");
  await Deno.writeTextFile(
    file,
    reportHtml(s, "run", ts, { run: { model: "m", k: 3, seed: 0, max_turns: 8, pgs_version: "0.1.0", cross: true } }),
  );
  const b = await Browser.launch();
  try {
    await b.goto(`file://${file}`);
    await b.waitFor("document.readyState === 'complete'");
    const page = await b.eval<{ headline: string; point: string; exits: number; header: string }>(`({
      headline: document.getElementById('headline-pass-at-k').textContent,
      point: [...document.querySelectorAll('svg[aria-label="pass@k per profile"] title')]
        .map((t) => t.textContent).find((t) => t.startsWith('all profiles: k 3 → ')),
      exits: [...document.querySelectorAll('h2, h3')].filter((h) => h.textContent === 'Exit statuses').length,
      header: document.querySelector('dl.run').innerText,
    })`);
    const headline = Number(page.headline.match(/pass@3 ([\d.]+)%/)![1]) / 100;
    const point = Number(page.point.split("→ ")[1]);
    assert.ok(Math.abs(headline - point) < 5e-4, `${page.headline} vs ${page.point}`);
    assert.ok(Math.abs(headline - s["pass@k"]!) < 5e-4, "summary.json's figure");
    assert.equal(page.exits, 1);
    assert.match(page.header, /model\s+m/);
    assert.match(page.header, /max turns\s+8/);

    // On screen: the two equal curves are not on top of each other, and every profile has a visible legend entry.
    const drawn = await b.eval<{ lines: Record<string, number[]>; legend: { text: string; w: number; h: number }[] }>(
      `({
      lines: Object.fromEntries([...document.querySelectorAll('polyline.series')].map((l) => {
        const r = l.getBoundingClientRect();
        return [l.dataset.name, [r.x, r.y, r.width, r.height]];
      })),
      legend: [...document.querySelectorAll('g.legend-entry text')].map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, w: r.width, h: r.height };
      }),
    })`,
    );
    assert.ok(drawn.lines[OC] && drawn.lines[EX], JSON.stringify(drawn.lines));
    assert.notDeepEqual(drawn.lines[OC], drawn.lines[EX], "equal curves drawn apart");
    for (const p of [OC, EX, PI, "all profiles"]) {
      const e = drawn.legend.find((l) => l.text.startsWith(p + " ") || l.text === p);
      assert.ok(e && e.w > 0 && e.h > 0, `a visible legend entry for ${p}: ${JSON.stringify(drawn.legend)}`);
    }
    assert.ok(drawn.legend.some((l) => l.text === `${EX} (= ${OC})`), "the legend says which equals which");
    assert.deepEqual(b.errors, [], "no error in the page");
  } finally {
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
