/**
 * The viewer's episode list, as page script (part of `VIEWER_SCRIPT`): the filters, the table with sortable columns
 * (`#sort=turns`, `#sort=-tokens` for descending; a click on a header sets it), and, when two runs are compared, the
 * runs' pass rates per (task, profile) and each episode's counterpart in the other run.
 */

/** The list's part of the page script; it uses the core's `h`, `set`, `go`, `outcome`, `text`, `secs`, `DATA`. */
export const LIST_SCRIPT: string = String.raw`
const searchCache = new Map();
function matchesText(e, q) {
  if (!searchCache.has(e.id)) {
    searchCache.set(e.id, [e.id, e.task, e.answer, e.error || "", e.reason || "", e.test_output || "",
      ...e.messages.map((m) => text(m.content) + JSON.stringify(m.tool_calls || []))].join("\n").toLowerCase());
  }
  return searchCache.get(e.id).includes(q.toLowerCase());
}

function filtered(s) {
  return DATA.episodes.filter((e) =>
    (!s.run || e.run === s.run) &&
    (!s.profile || e.profile === s.profile) &&
    (!s.task || e.task === s.task) &&
    (!s.reward || outcome(e) === s.reward) &&
    (!s.status || e.exit_status === s.status) &&
    (!s.infra || (s.infra === "none" ? e.reward !== null
      : s.infra === "any" ? e.reward === null : e.reward === null && (e.infra_stage || "unknown") === s.infra)) &&
    (!s.q || matchesText(e, s.q)));
}

function options(name, label, values, current) {
  const count = new Map();
  for (const v of values) count.set(v, (count.get(v) || 0) + 1);
  const keys = [...count.keys()].sort();
  return h("label", {}, label + " ",
    h("select", { name, "data-filter": name, onchange: (ev) => set({ [name]: ev.target.value, ep: "", vs: "" }) },
      h("option", { value: "" }, "all"),
      keys.map((k) => h("option", { value: k, selected: k === current }, k + " (" + count.get(k) + ")"))));
}

function filters(s) {
  const eps = DATA.episodes;
  const stages = eps.filter((e) => e.reward === null).map((e) => e.infra_stage || "unknown");
  const infra = h("select", { name: "infra", "data-filter": "infra",
    onchange: (ev) => set({ infra: ev.target.value, ep: "", vs: "" }) },
    h("option", { value: "" }, "all"),
    h("option", { value: "none", selected: s.infra === "none" }, "none (scored)"),
    h("option", { value: "any", selected: s.infra === "any" }, "any (" + stages.length + ")"),
    [...new Set(stages)].sort().map((st) => h("option", { value: st, selected: s.infra === st },
      st + " (" + stages.filter((x) => x === st).length + ")")));
  const q = h("input", { type: "search", name: "q", placeholder: "text in the episode", value: s.q || "",
    onchange: (ev) => set({ q: ev.target.value, ep: "", vs: "" }) });
  return h("form", { class: "filters", onsubmit: (ev) => ev.preventDefault() },
    DATA.runs ? options("run", "run", eps.map((e) => e.run), s.run) : null,
    options("profile", "profile", eps.map((e) => e.profile), s.profile),
    options("task", "task", eps.map((e) => e.task), s.task),
    options("reward", "reward", eps.map(outcome), s.reward),
    options("status", "exit status", eps.map((e) => e.exit_status), s.status),
    h("label", {}, "infra error ", infra),
    h("label", {}, "search ", q),
    h("button", { type: "button", onclick: () => go({}) }, "clear"));
}

// The sortable columns: the header, the key in the URL, and the value sorted on (null sorts last either way).
const COLUMNS = [
  ["task", "task", (e) => e.task],
  ["#", "sample", (e) => e.sample],
  ["run", "run", (e) => e.run, () => !!DATA.runs],
  ["profile", "profile", (e) => e.profile],
  ["reward", "reward", (e) => e.reward],
  ["exit status", "status", (e) => e.exit_status],
  ["turns", "turns", (e) => e.turns],
  ["calls", "calls", (e) => e.counters.tool_calls],
  ["format errors", "format", (e) => e.counters.format_errors],
  ["unknown tools", "unknown", (e) => e.counters.unknown_tools],
  ["prompt tokens", "prompt", (e) => e.tokens ? e.tokens.prompt : null],
  ["completion tokens", "completion", (e) => e.tokens ? e.tokens.completion : null],
  ["files changed", "files", (e) => e.workdir_diff ? e.workdir_diff.files.length : null,
    () => DATA.episodes.some((e) => e.workdir_diff)],
  ["time", "time", (e) => e.timings.total_ms],
  ["error", "error", (e) => errorText(e) || null],
];
const shownColumns = () => COLUMNS.filter((c) => !c[3] || c[3]());

/** The error column: why the episode ended (for any status but the profile's stop), then the error itself. */
function errorText(e) {
  return [e.reason, e.error && e.error !== e.reason ? e.error : ""].filter(Boolean).join(": ");
}

function sorted(rows, sort) {
  if (!sort) return rows;
  const desc = sort.startsWith("-"), key = desc ? sort.slice(1) : sort;
  const col = COLUMNS.find((c) => c[1] === key);
  if (!col) return rows;
  const val = col[2];
  // A stable sort on the value, ties kept in the data's order; missing values always last.
  return rows.map((e, i) => [val(e), i, e]).sort((a, b) => {
    if (a[0] === null || a[0] === undefined) return b[0] === null || b[0] === undefined ? a[1] - b[1] : 1;
    if (b[0] === null || b[0] === undefined) return -1;
    const c = typeof a[0] === "number" && typeof b[0] === "number" ? a[0] - b[0] : String(a[0]).localeCompare(String(b[0]));
    return (desc ? -c : c) || a[1] - b[1];
  }).map((x) => x[2]);
}

function headerCell(col, sort) {
  const key = col[1], on = sort === key ? "asc" : sort === "-" + key ? "desc" : null;
  return h("th", { class: "sortable" + (on ? " " + on : ""), "data-sort": key, title: "sort by " + col[0],
    onclick: () => set({ sort: on === "asc" ? "-" + key : key }) },
    col[0], on ? (on === "asc" ? " ▲" : " ▼") : "");
}

function cell(key, e) {
  switch (key) {
    case "reward": return h("td", { class: "r" }, e.reward === null ? "infra" : e.reward);
    case "format": return h("td", { class: e.counters.format_errors ? "bad" : "" }, e.counters.format_errors);
    case "unknown": return h("td", { class: e.counters.unknown_tools ? "bad" : "" }, e.counters.unknown_tools);
    case "prompt": case "completion": case "files": {
      const v = COLUMNS.find((c) => c[1] === key)[2](e);
      return h("td", { class: "num " + key }, v === null ? "–" : v.toLocaleString("en-US"));
    }
    case "time": return h("td", {}, secs(e.timings.total_ms));
    case "error": { const t = errorText(e); return h("td", { class: "err" }, t.length > 120 ? t.slice(0, 120) + "…" : t); }
    default: return h("td", { class: key }, COLUMNS.find((c) => c[1] === key)[2](e));
  }
}

function list(s) {
  const rows = sorted(filtered(s), s.sort);
  const cols = shownColumns();
  return h("div", { id: "list" },
    DATA.compare ? compareTable() : null,
    h("p", { id: "count" }, rows.length + " of " + DATA.episodes.length + " episodes"),
    h("table", { class: "episodes" },
      h("thead", {}, h("tr", {}, cols.map((c) => headerCell(c, s.sort)), h("th", {}, ""))),
      h("tbody", {}, rows.map((e) => h("tr", { class: "ep " + outcome(e), "data-id": e.id,
        onclick: () => set({ ep: e.id, vs: "" }) },
        cols.map((c) => cell(c[1], e)),
        h("td", {}, sideButton(e)))))));
}

/** Beside another episode: with a counterpart in the other run, the pair (A left); else next to the one open. */
function sideButton(e) {
  if (e.pair) {
    const [l, r] = e.run === DATA.runs[0].label ? [e.id, e.pair] : [e.pair, e.id];
    return h("button", { type: "button", class: "pair", title: "this episode and its counterpart in the other run",
      onclick: (ev) => { ev.stopPropagation(); set({ ep: l, vs: r }); } },
      DATA.runs.map((x) => x.label).join(" | "));
  }
  return h("button", { type: "button", class: "cmp", title: "open beside the episode shown",
    onclick: (ev) => { ev.stopPropagation(); const c = readHash(); set(c.ep ? { vs: e.id } : { ep: e.id }); } },
    "side by side");
}

function rate(c) {
  return c.scored ? c.passes + "/" + c.scored + " (" + Math.round(100 * c.passes / c.scored) + "%)" : "–";
}

/** Per (task, profile), each run's passes; the last line sums the rows both runs scored, and says how many. */
function compareTable() {
  const labels = DATA.runs.map((r) => r.label);
  const t = DATA.compare_total;
  const delta = (r) => {
    const [a, b] = labels.map((l) => r[l]);
    if (!a.scored || !b.scored) return "";
    const d = Math.round(100 * (b.passes / b.scored - a.passes / a.scored));
    return (d > 0 ? "+" : "") + d + " pts";
  };
  const line = (task, profile, r, cls) => h("tr", { class: cls },
    h("td", {}, task), h("td", {}, profile), labels.map((l) => h("td", { class: "num" }, rate(r[l]))),
    h("td", { class: "num delta" }, delta(r)));
  return h("table", { class: "compare", id: "compare" },
    h("caption", {}, "pass rate per task and profile, " + labels.join(" vs ")),
    h("thead", {}, h("tr", {}, h("th", {}, "task"), h("th", {}, "profile"),
      DATA.runs.map((r) => h("th", { title: r.title }, r.label)), h("th", {}, labels.join("→")))),
    h("tbody", {}, DATA.compare.map((row) => line(row.task, row.profile, row.runs, "row")),
      line("all both ran", t.shared + " of " + t.rows + " task × profile rows", t.runs, "total")));
}
`;
