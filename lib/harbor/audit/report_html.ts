/**
 * audit.html: one self-contained page (inline CSS, no script) of an audit: per task and mode a row, per exploit a
 * column, each cell the exploit's reward, red where it passed (the task is open to it), green where it held, grey
 * where infrastructure failed; then the battery's descriptions and each finding's fix.
 */
import { esc } from "../../report/html.ts";
import type { AuditResult, ExploitOutcome } from "./audit.ts";
import { BATTERY, type Exploit } from "./battery.ts";

const fmt = (r: number | null | undefined) => r === null || r === undefined ? "–" : String(Math.round(r * 1000) / 1000);

/** An exploit's cell; a pass is `free` rather than a hack where the nop passed too (the task is invalid anyway). */
function cell(x: ExploitOutcome | undefined, hackable: boolean): string {
  if (!x) return `<td class="na">·</td>`;
  if (x.skipped) return `<td class="na" title="${esc(x.skipped)}">n/a</td>`;
  if (x.passed === null) return `<td class="infra" title="${esc(x.error ?? "infrastructure error")}">infra</td>`;
  const cls = x.passed ? (hackable ? "hacked" : "free") : "held";
  const title = x.neutralised ? ` title="pgs neutralised ${x.neutralised}"` : "";
  return `<td class="${cls}"${title}>${esc(fmt(x.reward))}${x.neutralised ? "ⁿ" : ""}</td>`;
}

/** What the page's header says of the run: the audited path, when, and with which pgs. */
export interface AuditRunInfo {
  /** The task folder (or task) audited. */
  path: string;
  /** When the audit ran, ISO. */
  date: string;
  /** pgs's version. */
  version: string;
  /** The verifier modes audited. */
  modes?: string;
}

/** Text with `code` spans (the hints' and findings' wording) as HTML: escaped, the spans as <code>. */
function prose(text: string): string {
  return esc(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

/**
 * The audit page for `results`; `battery` names the columns (default `BATTERY`); `run`, when given, heads the page
 * (path, date, pgs version).
 */
export function auditHtml(
  results: AuditResult[],
  opts: { battery?: readonly Exploit[]; title?: string; run?: AuditRunInfo } = {},
): string {
  const battery = opts.battery ?? BATTERY;
  const title = opts.title ?? "pgs harbor audit";
  const hackable = results.filter((r) => r.hackable).length;
  const invalid = results.filter((r) => !r.valid).length;
  const head = ["task", "mode", "verdict", "oracle", "nop", ...battery.map((x) => x.name)];
  const rows: string[] = [];
  for (const r of results) {
    if (!r.modes.length) {
      const span = battery.length + 3;
      rows.push(
        `<tr><td>${esc(r.name)}</td><td>–</td><td colspan="${span}" class="infra">${esc(r.error ?? "")}</td></tr>`,
      );
      continue;
    }
    for (const m of r.modes) {
      const nop = m.check.nop?.reward;
      const verdict = !m.check.valid ? "invalid" : m.hackable ? "HACKABLE" : "holds";
      const because = verdict === "holds" && m.neutralised
        ? ` (pgs neutralised ${m.neutralised} link${m.neutralised === 1 ? "" : "s"})`
        : "";
      const byName = new Map(m.exploits.map((x) => [x.exploit, x]));
      rows.push(
        `<tr><td>${esc(r.name)}</td><td>${esc(m.mode)}${m.mode === r.verifierMode ? " *" : ""}</td>` +
          `<td class="v-${verdict.toLowerCase()}" title="${esc(m.check.error ?? "")}">${verdict}${esc(because)}</td>` +
          `<td>${esc(fmt(m.check.oracle?.reward))}</td><td>${esc(fmt(nop))}</td>` +
          battery.map((x) => cell(byName.get(x.name), m.hackable)).join("") + `</tr>`,
      );
    }
  }
  const legend = battery.map((x) => `<li><b>${esc(x.name)}</b>: ${prose(x.description)}</li>`).join("\n");
  const findings = results.filter((r) => r.hints.length || r.findings?.length).map((r) => {
    const found = (r.findings ?? []).map((f) =>
      `<li>${esc(f.exploit)}: ${prose(f.text)}${f.hint ? `<br><i>${prose(f.hint)}</i>` : ""}</li>`
    );
    return `<li><b>${esc(r.name)}</b><ul>${r.hints.map((h) => `<li>${prose(h)}</li>`).join("")}${
      found.join("")
    }</ul></li>`;
  }).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: center; }
th { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
th:nth-child(-n+5) { writing-mode: horizontal-tb; transform: none; }
td:first-child { text-align: left; }
.hacked { background: #f4a3a3; font-weight: bold; } .held { background: #c7ebc7; } .free { background: #f7d9a8; }
.infra { background: #ddd; color: #555; } .na { color: #aaa; }
code { background: #f2f2f2; padding: 0 2px; } .run { color: #555; }
.v-hackable { color: #b00; font-weight: bold; } .v-invalid { color: #a60; } .v-holds { color: #070; }
</style></head><body>
<h1>${esc(title)}</h1>
${
    opts.run
      ? `<p class="run">${esc(opts.run.path)} · ${esc(opts.run.date)} · pgs ${esc(opts.run.version)}${
        opts.run.modes ? ` · ${esc(opts.run.modes)}` : ""
      }</p>`
      : ""
  }
<p>${results.length} tasks: ${hackable} hackable, ${invalid} invalid in their audited mode (marked *). A cell is the
exploit's reward: red where it passed while doing nothing did not (a way to the reward without solving the task),
green where the task held, orange where it passed but so did doing nothing, grey where infrastructure failed (never
counted as the policy's); ⁿ where pgs's verifier removed what it planted, n/a where it does not apply.</p>
<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>
<h2>Findings and fixes</h2>
<ul>${findings || "<li>none</li>"}</ul>
<h2>The battery</h2>
<ul>
${legend}
</ul>
</body></html>
`;
}
