/**
 * report.html: one self-contained page (inline CSS and SVG, no script, nothing fetched) drawn from a run's summary
 * and trajectories. It answers "under which harness does it break?": a run header (model, date, k, seed, max turns,
 * pgs version, the tasks' git revision), pass@1 and pass@k per profile and per profile × task (one definition of
 * pass@k, stated on the page), pass@k curves, exit statuses, format-error rates, turns to finish and tokens per
 * profile, and the calibration list. With `viewer`, tasks, cells and errors link into the trajectory viewer beside it.
 */
import type { RunHeader } from "../eval/records/run_dir.ts";
import type { PassStats, Summary } from "../eval/records/summary.ts";
import type { ExitStatus, Trajectory } from "../eval/records/trajectory.ts";
import { esc, pct, viewerHash } from "./html.ts";
import { PASS_AT_K_DEFINITION } from "../eval/records/pass_at_k.ts";
import { runStats } from "./run_stats.ts";
import { bars, curves, heatmap, histogram, nameColor, type Series, stacked } from "./svg.ts";

/** Options of `reportHtml`. */
export interface ReportOptions {
  /** The viewer page's path relative to the report (e.g. `viewer.html`); without it the report has no links. */
  viewer?: string;
  /** What the header shows of the run (run.json's, `readRunInfo(dir).header`); what it lacks is read off the episodes. */
  run?: RunHeader;
}

/** Each exit status's colour, the same in every report: green for the stop rule, warm for limits, grey for infra. */
const STATUS_COLORS: Record<ExitStatus, string> = {
  stop_rule: "#2ca02c",
  max_turns: "#ff7f0e",
  format_errors: "#9467bd",
  timeout: "#d62728",
  context_length: "#8c564b",
  container_dead: "#843c39",
  unfinished: "#bcbd22",
  infra_error: "#7f7f7f",
};

function statusColor(status: string): string {
  return STATUS_COLORS[status as ExitStatus] ?? nameColor(status);
}

function note(s: PassStats): string {
  return `(${s.passes}/${s.episodes}${s.infra_errors ? `, ${s.infra_errors} infra` : ""})`;
}

function table(head: string[], rows: (string | number)[][], raw = false): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const cell = (c: string | number) => raw ? String(c) : esc(String(c));
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${cell(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/** The run header's fields, run.json's first and the episodes' where it is silent (model, date, k). */
function headerFields(run: RunHeader, summary: Summary, ts: Trajectory[]): [string, string][] {
  const models = [...new Set(ts.map((t) => t.model).filter((m): m is string => !!m))].sort();
  const starts = ts.map((t) => t.started_at).filter(Boolean).sort();
  const date = (iso: string | undefined) => iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC") : undefined;
  const started = date(run.started_at ?? starts[0]);
  const fields: [string, string | number | undefined][] = [
    ["model", run.model ?? (models.length ? models.join(", ") : undefined)],
    ["started", started && run.resumed_at ? `${started} (resumed ${date(run.resumed_at)})` : started],
    ["k", run.k ?? summary.k],
    ["seed", run.seed],
    ["max turns", run.max_turns],
    ["policy", run.policy],
    [
      "profiles",
      run.profiles && (summary.cross ? `${run.profiles} (crossed: every profile on every task)` : run.profiles),
    ],
    ["tasks", run.tasks],
    ["tasks' git revision", run.tasks_git_revision],
    ["pgs", run.pgs_version],
  ];
  return fields.filter((f): f is [string, string | number] => f[1] !== undefined).map(([k, v]) => [k, String(v)]);
}

/** The page for `summary` and the run's `trajectories`; `title` names the run. */
export function reportHtml(
  summary: Summary,
  title: string,
  trajectories: Trajectory[],
  opts: ReportOptions = {},
): string {
  const profiles = Object.entries(summary.profiles);
  const o = summary.overall;
  const k = summary.k;
  const stats = runStats(trajectories, { k, passThreshold: summary.pass_threshold });
  const view = (f: Record<string, string>) => opts.viewer ? opts.viewer + viewerHash(f) : undefined;
  const a = (href: string | undefined, text: string) => href ? `<a href="${esc(href)}">${esc(text)}</a>` : esc(text);
  // Task names label the columns; a name two task folders share gets its folder, so no column hides another.
  const names = new Map<string, number>();
  for (const t of stats.tasks) names.set(t.task, (names.get(t.task) ?? 0) + 1);
  const colName = (t: { task: string; task_dir: string }) => names.get(t.task)! > 1 ? t.task_dir : t.task;
  const statusKeys = Object.keys(summary.exit_status).sort();
  const groups = summary.pass_at_k_groups;

  const heat = stats.profiles.length && stats.tasks.length
    ? heatmap(stats.profiles, stats.tasks.map(colName), (i, j) => {
      const p = stats.profiles[i], t = stats.tasks[j];
      const c = stats.cell(p, t.task_dir);
      if (!c) return { rate: null, text: "", title: `${p} × ${t.task}: not drawn` };
      const rate = c.episodes ? c.passes / c.episodes : null;
      return {
        rate,
        text: c.episodes ? `${c.passes}/${c.episodes}` : "infra",
        title: `${p} × ${t.task}: ${c.passes}/${c.episodes} passed${c.infra ? `, ${c.infra} infra errors` : ""}`,
        href: view({ profile: p, task: t.task }),
      };
    }, "pass@1 per profile and task")
    : "<p>No episodes.</p>";

  const series: Series[] = [
    ...stats.profiles.map((p) => ({
      name: p,
      points: stats.per_profile[p].pass_at_k.map((x) => [x.k, x.value] as [number, number]),
    })),
    ...(stats.profiles.length > 1
      ? [{
        name: "all profiles",
        color: "#222",
        points: stats.pass_at_k.map((x) => [x.k, x.value] as [number, number]),
      }]
      : []),
  ].filter((s) => s.points.length);

  const perProfileRows = stats.profiles.map((p) => {
    const f = stats.per_profile[p], s = summary.profiles[p];
    return [
      a(view({ profile: p }), p),
      s.episodes,
      esc(pct(s["pass@1"])),
      s["pass@k"] === null ? "–" : `${esc(pct(s["pass@k"]))} (${s.groups.with_k} of ${s.groups.scored} groups)`,
      s.mean_reward ?? "–",
      s.infra_errors,
      esc(pct(f.format_error_rate)),
      f.episodes_with_format_errors,
      f.unknown_tools,
      f.mean_turns ?? "–",
      f.tokens ? `${f.tokens.prompt} / ${f.tokens.completion} (${f.tokens.episodes})` : "–",
    ];
  });

  const hist = stats.profiles.map((p) => {
    const bins = stats.per_profile[p].turns;
    if (!bins.length) return "";
    const svg = histogram(
      bins.map((b) => ({ label: b.from === b.to ? `${b.from}` : `${b.from}–${b.to}`, low: b.passes, high: b.fails })),
      { low: "passed", high: "failed" },
      `turns to finish under ${p}`,
    );
    return `<figure>${svg}<figcaption>${esc(p)}</figcaption></figure>`;
  }).join("");

  const calibration = summary.tasks.filter((t) => t.passes > 0 && t.passes < t.episodes).map((t) => {
    const p = t.profiles.join(", ");
    return `<li>${a(view({ task: t.task, ...(t.profiles.length === 1 ? { profile: p } : {}) }), t.task)} · ${esc(p)} ${
      esc(`(${t.passes}/${t.episodes})`)
    }</li>`;
  }).join("");

  const statusTable = table(
    ["status", ...stats.profiles, "all"],
    statusKeys.map((st) => [
      esc(st),
      ...stats.profiles.map((p) => summary.profiles[p].exit_status[st] ?? 0),
      summary.exit_status[st],
    ]),
    true,
  );

  const header = headerFields(opts.run ?? {}, summary, trajectories);

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}
th{background:#f4f4f4}.big{font-size:20px}dl.run{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:13px}
dl.run dt{color:#555}dl.run dd{margin:0;font-family:monospace}.warn{color:#c62828}.scroll{overflow-x:auto}
figure{display:inline-block;margin:0 1.5em 1em 0}figcaption{font-size:12px;text-align:center}
.legend{font-size:12px;color:#555}a{color:#1a5fb4}
</style></head><body>
<h1>${esc(title)}</h1>
<dl class="run">${header.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>
<p class="big">pass@1 ${pct(o["pass@1"])} ${esc(note(o))}${
    k > 1
      ? ` · <span id="headline-pass-at-k">pass@${k} ${pct(summary["pass@k"])}</span> over ${groups.with_k} of`
      : " over"
  } ${groups.scored} groups (task × profile) · mean reward ${o.mean_reward ?? "–"}${
    opts.viewer ? ` · <a href="${esc(opts.viewer)}">open the trajectory viewer</a>` : ""
  }</p>
<p class="legend" id="pass-at-k-definition">${esc(PASS_AT_K_DEFINITION)}</p>
${summary.complete ? "" : `<p class="warn">Incomplete run: ${o.episodes} of ${summary.expected} episodes scored.</p>`}
${o.infra_errors ? `<p class="warn">${o.infra_errors} infrastructure errors (not counted as reward 0).</p>` : ""}
${
    summary.undrawn_profiles?.length
      ? `<p class="warn" id="undrawn">Drawn for no task (no episode): ${
        esc(summary.undrawn_profiles.join(", "))
      }. Each task draws one profile of the mix for its samples; --cross runs every profile on every task.</p>`
      : ""
  }
<h2>pass@1 per profile</h2>
${
    bars(
      profiles.map(([p, s]) => ({
        label: p,
        rate: s["pass@1"],
        note: `${note(s)}${k > 1 ? ` · pass@${k} ${pct(s["pass@k"])}` : ""}`,
        href: view({ profile: p }),
      })),
      "pass@1 per profile",
    )
  }
<h2>pass@1 per profile and task</h2>
<p class="legend">${
    summary.cross
      ? `Crossed run: every profile ran ${k} sample${
        k > 1 ? "s" : ""
      } on every task, each (task, profile) its own group. `
      : ""
  }Each cell is passes / scored samples of that profile on that task (grey: the profile was not drawn for it).</p>
<div class="scroll">${heat}</div>
<h2>pass@k per profile</h2>
<p class="legend">pass@k as defined above: a profile's curve averages over its groups, "all profiles" over every group, so its point at k = ${k} is the headline's pass@${k}. A curve stops where no group has k scored samples. Profiles with the same figures are drawn shifted and dashed, and their legend entry names the profile they equal.</p>
${series.length ? curves(series, k, { x: "k", y: "pass@k" }, "pass@k per profile") : "<p>No scored episodes.</p>"}
<h2>Per profile</h2>
${
    table(
      [
        "profile",
        "episodes",
        "pass@1",
        `pass@${k}`,
        "mean reward",
        "infra errors",
        "format errors / turn",
        "episodes with format errors",
        "unknown tools",
        "mean turns",
        "mean tokens prompt / completion (episodes with usage)",
      ],
      perProfileRows,
      true,
    )
  }
<h3>Exit statuses</h3>
${
    stats.profiles.length
      ? stacked(
        stats.profiles.map((p) => ({ label: p, parts: summary.profiles[p].exit_status })),
        statusKeys,
        "exit statuses per profile",
        statusColor,
      )
      : ""
  }
${statusKeys.length ? statusTable : ""}
<h3>Turns to finish</h3>
<p class="legend">Scored episodes by assistant turns: passes green (below), fails red (above).</p>
<div>${hist}</div>
<h2>Pass rate per task and profile</h2>
${
    bars(
      summary.grid.map((c) => ({
        label: `${colName(c)} · ${c.profile}`,
        rate: c["pass@1"],
        note: `${note(c)}${k > 1 ? ` · pass@${k} ${pct(c["pass@k"])}` : ""}`,
        href: view({ task: c.task, profile: c.profile }),
      })),
      "pass rate per task and profile",
    )
  }
<h2>Calibration (0 &lt; passes &lt; k)</h2>
${calibration ? `<ul>${calibration}</ul>` : "<p>none</p>"}
<h2>Tasks</h2>
${
    table(
      ["task", "profile", "samples", "passes", "pass@1", `pass@${k}`, "mean reward", "infra errors"],
      summary.tasks.map((t) => [
        a(view({ task: t.task }), t.task),
        esc(t.profiles.join(", ")),
        t.episodes,
        t.passes,
        esc(pct(t["pass@1"])),
        esc(pct(t["pass@k"])),
        t.mean_reward ?? "–",
        t.infra_errors,
      ]),
      true,
    )
  }
${
    summary.drift.episodes_with_tokens
      ? `<p>Re-tokenisation drift: ${summary.drift.turns} turns in ${summary.drift.episodes} of ${summary.drift.episodes_with_tokens} episodes with token ids.</p>`
      : ""
  }
${
    summary.template_rewrite?.episodes_in_token_mode
      ? `<p>Token mode: ${summary.template_rewrite.turns} template_rewrite turns in ${summary.template_rewrite.episodes} of ${summary.template_rewrite.episodes_in_token_mode} episodes (a chat endpoint would have re-rendered these prompts; the sampled tokens were kept).</p>`
      : ""
  }
${
    summary.infra.length
      ? `<h2>Infrastructure errors</h2>${
        table(
          ["episode", "task", "profile", "error"],
          summary.infra.map((x) => [a(view({ ep: x.id }), x.id), esc(x.task), esc(x.profile), esc(x.error)]),
          true,
        )
      }`
      : ""
  }
<p>Mean per scored episode: ${Object.entries(summary.mean_timings_ms).map(([k, v]) => `${k} ${v} ms`).join(" · ")}</p>
</body></html>
`;
}
