/**
 * viewer.html: the trajectory viewer as one self-contained page (inline CSS, the data in a JSON script element, the
 * script of `viewer_script.ts`; nothing fetched when opened as a file). Served live, it also polls its server's
 * `stamp` and reloads `data.json` when the run has written more.
 */
import { esc, scriptJson } from "./html.ts";
import { packViewerData, type ViewerData } from "./viewer_data.ts";
import { VIEWER_SCRIPT } from "./viewer_script.ts";

const STYLE = `
body{font-family:sans-serif;margin:1.2em 2em;color:#222;font-size:14px}
h1{font-size:20px;margin:0}h1 a.report{font-size:14px;font-weight:normal;margin-left:1em}.sub{color:#666;margin:.2em 0 1em}
.filters{display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:center;margin-bottom:1em;padding:.6em;background:#f6f6f6}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;font-size:13px;vertical-align:top}
th{background:#f4f4f4}
table.episodes tr.ep{cursor:pointer}table.episodes tr.ep:hover{background:#eef4ff}
tr.pass td.r{color:#2e7d32;font-weight:bold}tr.fail td.r{color:#c62828;font-weight:bold}tr.infra td.r{color:#777}
td.bad{color:#c62828;font-weight:bold}.err{color:#c62828;white-space:pre-wrap}
.panes{display:grid;grid-template-columns:1fr;gap:1.2em}.side .panes{grid-template-columns:1fr 1fr}
.pane{min-width:0;border-top:4px solid #bbb;padding-top:.4em}.pane.pass{border-color:#2e7d32}.pane.fail{border-color:#c62828}
.pane h2{font-size:17px;margin:.3em 0}
.badge{display:inline-block;padding:1px 6px;border-radius:3px;font-size:12px;margin-left:4px;background:#e0e0e0}
.badge.pass{background:#2e7d32;color:#fff}.badge.fail{background:#c62828;color:#fff}.badge.infra{background:#777;color:#fff}
.badge.bad{background:#c62828;color:#fff}.badge.warn{background:#f9a825}
pre{white-space:pre-wrap;word-break:break-word;margin:.3em 0;font-size:12.5px;background:#fafafa;padding:.4em;border:1px solid #eee}
.turn{margin:.5em 0;padding:.2em .6em;border-left:4px solid #ccc}
.turn .head{font-size:12px;color:#555;font-weight:bold}.tok{font-weight:normal;margin-left:.6em;color:#777}
.turn.assistant{border-color:#4e79a7;background:#f7faff}.turn.user{border-color:#59a14f}.turn.tool{border-color:#999}
.turn.system{border-color:#b07aa1}.turn.flagged{outline:2px solid #c62828}.turn.format-error{border-color:#c62828;background:#fff5f5}
.call{margin:.3em 0}.call.unknown pre{border-color:#c62828;background:#fff5f5}.callhead .id{color:#999;font-size:11px}
mark.trunc{background:#ffe08a}.gap{color:#888;font-style:italic}
details>summary{cursor:pointer;color:#1a5fb4}details.sys,details.tools{margin:.4em 0}
.tool{margin:.4em 0 .8em}.kv th{width:11em}
th.sortable{cursor:pointer;user-select:none}th.sortable:hover{background:#e8eefc}th.asc,th.desc{background:#dde6fb}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.compare{margin:0 0 1em}table.compare caption{text-align:left;font-weight:bold;padding:.3em 0}
table.compare tr.total td{font-weight:bold;border-top:2px solid #999}
ul.runs{margin:.3em 0;padding-left:1.2em}ul.runs a.report{margin-left:.8em}.badge.run{background:#4e79a7;color:#fff}
.wdiff table.files td.change.added{color:#2e7d32}.wdiff table.files td.change.deleted{color:#c62828}
pre.diff span.add{color:#1b5e20;background:#e8f5e9}pre.diff span.del{color:#b71c1c;background:#ffebee}
pre.diff span.hunk{color:#1a5fb4}pre.diff span.file{font-weight:bold;color:#333}pre.diff span.name{color:#555}
.verifier-note{color:#555;font-style:italic}
`;

/** Options of `viewerHtml`. */
export interface LiveOptions {
  /** Served: the data's current stamp (the server's `stamp` answers it until the run writes more); the page polls. */
  stamp?: string;
  /** The run's report, relative to the page (`report.html` beside it); without it the page has no report link. */
  report?: string;
}

/** The viewer page for `data`; with a `stamp`, it polls its server for new episodes. */
export function viewerHtml(data: ViewerData, opts: LiveOptions = {}): string {
  const attrs = (opts.stamp !== undefined ? ` data-live="1" data-stamp="${esc(opts.stamp)}"` : "") +
    (opts.report ? ` data-report="${esc(opts.report)}"` : "");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(data.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head><body${attrs}>
<div id="app"><noscript>The viewer needs JavaScript; trajectories.jsonl beside it holds the same episodes.</noscript></div>
<script type="application/json" id="pgs-data">${scriptJson(packViewerData(data))}</script>
<script>${VIEWER_SCRIPT.replace(/<\/script/gi, "<\\/script")}</script>
</body></html>
`;
}
