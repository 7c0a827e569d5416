/** report.html: one self-contained page (inline CSS and SVG, no script, nothing fetched) drawn from a summary. */
import type { PassStats, Summary } from "./summary.ts";

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]!));
}

const pct = (x: number | null) => x === null ? "–" : `${(x * 100).toFixed(1)}%`;

/** Horizontal bars, one per label, length = rate (0..1), with the count beside it. */
function bars(items: { label: string; rate: number | null; note: string }[]): string {
  const row = 22, labelW = 260, barW = 360, h = items.length * row + 8;
  const out = items.map((it, i) => {
    const y = i * row + 4;
    const w = Math.max(0, Math.min(1, it.rate ?? 0)) * barW;
    const color = it.rate === null ? "#bbb" : it.rate >= 0.75 ? "#2e7d32" : it.rate >= 0.25 ? "#f9a825" : "#c62828";
    return `<text x="${labelW - 6}" y="${y + 14}" text-anchor="end">${esc(it.label)}</text>` +
      `<rect x="${labelW}" y="${y + 2}" width="${barW}" height="${row - 6}" fill="#eee"/>` +
      `<rect x="${labelW}" y="${y + 2}" width="${w.toFixed(1)}" height="${row - 6}" fill="${color}"/>` +
      `<text x="${labelW + barW + 8}" y="${y + 14}">${esc(pct(it.rate))} ${esc(it.note)}</text>`;
  }).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + barW + 200}" height="${h}" ` +
    `font-family="sans-serif" font-size="12" role="img">${out}</svg>`;
}

function note(s: PassStats): string {
  return `(${s.passes}/${s.episodes}${s.infra_errors ? `, ${s.infra_errors} infra` : ""})`;
}

function table(head: string[], rows: (string | number)[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(String(c))}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/** The page for `summary`; `title` names the run. */
export function reportHtml(summary: Summary, title: string): string {
  const profiles = Object.entries(summary.profiles);
  const o = summary.overall;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222;max-width:1000px}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}
th{background:#f4f4f4}.big{font-size:20px}.warn{color:#c62828}
</style></head><body>
<h1>${esc(title)}</h1>
<p class="big">pass@1 ${pct(o["pass@1"])} ${esc(note(o))} · pass@${summary.k} ${
    pct(summary["pass@k"])
  } over ${summary.tasks.length} tasks · mean reward ${o.mean_reward ?? "–"}</p>
${summary.complete ? "" : `<p class="warn">Incomplete run: ${o.episodes} of ${summary.expected} episodes scored.</p>`}
${o.infra_errors ? `<p class="warn">${o.infra_errors} infrastructure errors (not counted as reward 0).</p>` : ""}
<h2>pass@1 per profile</h2>
${bars(profiles.map(([p, s]) => ({ label: p, rate: s["pass@1"], note: note(s) })))}
<h2>Pass rate per task</h2>
${bars(summary.tasks.map((t) => ({ label: t.task, rate: t["pass@1"], note: note(t) })))}
<h2>Calibration (0 &lt; passes &lt; k)</h2>
<p>${summary.calibration.length ? summary.calibration.map(esc).join(", ") : "none"}</p>
<h2>Profiles</h2>
${
    table(
      ["profile", "episodes", "passes", "pass@1", "mean reward", "infra errors", "exit statuses"],
      profiles.map(([p, s]) => [
        p,
        s.episodes,
        s.passes,
        pct(s["pass@1"]),
        s.mean_reward ?? "–",
        s.infra_errors,
        Object.entries(s.exit_status).map(([k, v]) => `${k} ${v}`).join(", "),
      ]),
    )
  }
<h2>Tasks</h2>
${
    table(
      ["task", "profiles", "samples", "passes", "pass@k", "mean reward", "infra errors"],
      summary.tasks.map((t) => [
        t.task,
        t.profiles.join(", "),
        t.episodes,
        t.passes,
        t["pass@k"] ?? "–",
        t.mean_reward ?? "–",
        t.infra_errors,
      ]),
    )
  }
<h2>Exit statuses</h2>
${table(["status", "episodes"], Object.entries(summary.exit_status))}
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
        table(["episode", "task", "profile", "error"], summary.infra.map((x) => [x.id, x.task, x.profile, x.error]))
      }`
      : ""
  }
<p>Mean per scored episode: ${Object.entries(summary.mean_timings_ms).map(([k, v]) => `${k} ${v} ms`).join(" · ")}</p>
</body></html>
`;
}
