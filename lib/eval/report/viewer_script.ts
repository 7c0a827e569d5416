/**
 * The trajectory viewer's browser script, as text embedded in the page (no build step, no framework, nothing fetched
 * but the view server's own data while live). Every string from a run reaches the page through `textContent`, never
 * as markup. State lives in the location hash (`#profile=…&task=…&ep=ID&vs=ID2`), so links from the report and the
 * browser's back button work, and a live reload keeps the view.
 */
import { UNPACK_SCRIPT } from "./viewer_data.ts";

/**
 * A line holding a harness's truncation mark: the viewer highlights it and keeps it in a folded result's preview. The
 * shared profile suite checks that every built-in profile's own mark on a long output matches it.
 */
export const TRUNCATION_MARK: RegExp = new RegExp(
  [
    "truncated|omitted|elided|clipped|too long|exceeded|persisted-output|full output",
    String.raw`\[\.\.\.\]|\.\.\. ?\d+ (more )?(lines|chars|characters|bytes|tokens)`,
    String.raw`(lines|chars|characters|bytes|tokens) cut|showing lines \d+-\d+ of \d+`,
  ].join("|"),
  "i",
);

/** The viewer's script, as the page embeds it. */
export const VIEWER_SCRIPT: string = String.raw`(() => {
"use strict";
const FOLD_LINES = 40, FOLD_CHARS = 6000, HEAD = 15, TAIL = 10;
const TRUNC = new RegExp(${JSON.stringify(TRUNCATION_MARK.source)}, "i");
${UNPACK_SCRIPT}
let DATA = unpack(JSON.parse(document.getElementById("pgs-data").textContent));
const LIVE = document.body.dataset.live === "1";

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of kids.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

function readHash() {
  const out = {};
  for (const [k, v] of new URLSearchParams(location.hash.slice(1))) out[k] = v;
  return out;
}
function go(next) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(next)) if (v) p.set(k, v);
  const s = p.toString();
  if (("#" + s) === location.hash || (s === "" && location.hash === "")) render();
  else location.hash = s;
}
function set(changes) { go(Object.assign(readHash(), changes)); }

const outcome = (e) => e.reward === null ? "infra" : e.reward >= DATA.pass_threshold ? "pass" : "fail";
const byId = () => new Map(DATA.episodes.map((e) => [e.id, e]));
const text = (c) => c === null || c === undefined ? "" : typeof c === "string" ? c
  : c.map((p) => typeof p.text === "string" ? p.text : JSON.stringify(p)).join("");
const secs = (ms) => (ms / 1000).toFixed(1) + " s";
function tokensOf(e) {
  if (e.usage) return e.usage.prompt_tokens + e.usage.completion_tokens;
  if (e.turn_tokens && e.turn_tokens.length) {
    const last = e.turn_tokens[e.turn_tokens.length - 1];
    return last.prompt + last.completion;
  }
  return null;
}
const searchCache = new Map();
function matchesText(e, q) {
  if (!searchCache.has(e.id)) {
    searchCache.set(e.id, [e.id, e.task, e.answer, e.error || "", e.test_output || "",
      ...e.messages.map((m) => text(m.content) + JSON.stringify(m.tool_calls || []))].join("\n").toLowerCase());
  }
  return searchCache.get(e.id).includes(q.toLowerCase());
}

function filtered(s) {
  return DATA.episodes.filter((e) =>
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
    options("profile", "profile", eps.map((e) => e.profile), s.profile),
    options("task", "task", eps.map((e) => e.task), s.task),
    options("reward", "reward", eps.map(outcome), s.reward),
    options("status", "exit status", eps.map((e) => e.exit_status), s.status),
    h("label", {}, "infra error ", infra),
    h("label", {}, "search ", q),
    h("button", { type: "button", onclick: () => go({}) }, "clear"));
}

function list(s) {
  const rows = filtered(s);
  const head = ["task", "#", "profile", "reward", "exit status", "turns", "calls", "format errors", "unknown tools",
    "tokens", "time", "error", ""];
  return h("div", { id: "list" },
    h("p", { id: "count" }, rows.length + " of " + DATA.episodes.length + " episodes"),
    h("table", { class: "episodes" },
      h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
      h("tbody", {}, rows.map((e) => h("tr", { class: "ep " + outcome(e), "data-id": e.id,
        onclick: () => set({ ep: e.id, vs: "" }) },
        h("td", {}, e.task), h("td", {}, e.sample), h("td", {}, e.profile),
        h("td", { class: "r" }, e.reward === null ? "infra" : e.reward), h("td", {}, e.exit_status),
        h("td", {}, e.turns), h("td", {}, e.counters.tool_calls),
        h("td", { class: e.counters.format_errors ? "bad" : "" }, e.counters.format_errors),
        h("td", { class: e.counters.unknown_tools ? "bad" : "" }, e.counters.unknown_tools),
        h("td", {}, tokensOf(e) ?? "–"), h("td", {}, secs(e.timings.total_ms)),
        h("td", { class: "err" }, e.error ? e.error.slice(0, 120) : ""),
        h("td", {}, h("button", { type: "button", class: "cmp", title: "open beside the episode shown",
          onclick: (ev) => { ev.stopPropagation(); const c = readHash(); set(c.ep ? { vs: e.id } : { ep: e.id }); } },
          "side by side")))))));
}

function marked(str) {
  const out = [];
  for (const line of str.split(/(?<=\n)/)) out.push(TRUNC.test(line) ? h("mark", { class: "trunc" }, line) : line);
  return out;
}
function folded(str, cls) {
  const lines = str.split("\n");
  if (lines.length <= FOLD_LINES && str.length <= FOLD_CHARS) return h("pre", { class: cls }, marked(str));
  // The preview keeps the head, the tail and every line with a truncation mark, so the harness's marks stay visible.
  const keep = new Set();
  lines.forEach((l, i) => { if (i < HEAD || i >= lines.length - TAIL || TRUNC.test(l)) keep.add(i); });
  const preview = [];
  let gap = 0;
  lines.forEach((l, i) => {
    if (!keep.has(i)) { gap++; return; }
    if (gap) preview.push(h("span", { class: "gap" }, "… " + gap + " lines folded …\n")), gap = 0;
    const cut = l.length > 400 ? l.slice(0, 400) + " …[" + (l.length - 400) + " chars folded]" : l;
    preview.push(TRUNC.test(l) ? h("mark", { class: "trunc" }, cut + "\n") : cut + "\n");
  });
  return h("div", { class: "fold" },
    h("pre", { class: cls + " preview" }, preview),
    h("details", {}, h("summary", {}, "show all " + lines.length + " lines (" + str.length + " chars)"),
      h("pre", { class: cls }, marked(str))));
}

function pretty(raw) {
  try { return { ok: true, text: JSON.stringify(JSON.parse(raw === "" ? "{}" : raw), null, 2) }; }
  catch { return { ok: false, text: raw }; }
}

function badge(cls, label, title) { return h("span", { class: "badge " + cls, title: title || null }, label); }

function transcript(e) {
  const out = [];
  const names = new Set(e.tools.map((t) => t.function.name));
  const flags = new Map((e.turn_flags || []).map((f) => [f.turn, f]));
  const drift = new Set(e.drift_turns || []), rewrite = new Set(e.template_rewrite_turns || []);
  let i = 0;
  const system = [];
  while (i < e.messages.length && e.messages[i].role === "system") system.push(e.messages[i++]);
  out.push(h("details", { class: "sys" }, h("summary", {}, "system prompt (" + system.length + " message" +
    (system.length === 1 ? "" : "s") + ", " + system.reduce((a, m) => a + text(m.content).length, 0) + " chars)"),
    system.map((m) => h("pre", { class: "msg" }, text(m.content)))));
  out.push(h("details", { class: "tools" }, h("summary", {}, "tools (" + e.tools.length + ")" +
    (e.tools.length ? ": " + e.tools.map((t) => t.function.name).join(", ") : " — a text protocol")),
    e.tools.map((t) => h("div", { class: "tool" }, h("b", {}, t.function.name),
      h("pre", { class: "desc" }, t.function.description || ""),
      h("pre", { class: "json" }, JSON.stringify(t.function.parameters, null, 2))))));
  let turn = -1, flagged = null;
  for (; i < e.messages.length; i++) {
    const m = e.messages[i];
    if (m.role === "assistant") {
      turn++;
      const f = flags.get(turn);
      flagged = f && f.format_error !== undefined ? f : null;
      const tk = e.turn_tokens && e.turn_tokens[turn];
      const unknown = new Set((f && f.unknown_tools) || []);
      out.push(h("div", { class: "turn assistant" + (f ? " flagged" : ""), "data-turn": turn },
        h("div", { class: "head" }, "assistant · turn " + (turn + 1),
          tk ? h("span", { class: "tok" }, tk.prompt + " prompt + " + tk.completion + " completion tokens") : null,
          drift.has(turn) ? badge("warn", "drift", "this prompt did not extend the previous prompt + completion") : null,
          rewrite.has(turn) ? badge("warn", "template rewrite",
            "a chat endpoint would have re-rendered this prompt; the sampled tokens were kept") : null,
          f && f.format_error !== undefined ? badge("bad", "format error", f.format_error) : null,
          unknown.size ? badge("bad", "unknown tool", [...unknown].join(", ")) : null),
        m.reasoning_content ? h("details", { class: "reasoning" },
          h("summary", {}, "reasoning (" + m.reasoning_content.length + " chars)"),
          h("pre", {}, m.reasoning_content)) : null,
        text(m.content) ? folded(text(m.content), "msg") : null,
        (m.tool_calls || []).map((c) => {
          const p = pretty(c.function.arguments || "");
          const bad = unknown.has(c.function.name) || (e.tools.length > 0 && !names.has(c.function.name));
          return h("div", { class: "call" + (bad ? " unknown" : "") },
            h("div", { class: "callhead" }, "call ", h("b", {}, c.function.name), " ", h("span", { class: "id" }, c.id),
              bad ? badge("bad", "unknown tool") : null, p.ok ? null : badge("bad", "arguments are not JSON")),
            h("pre", { class: "json" }, p.text));
        })));
    } else {
      const label = m.role === "tool" ? "result · " + (m.name || "") + " · " + (m.tool_call_id || "") : m.role;
      const fe = flagged && m.role !== "tool";
      out.push(h("div", { class: "turn " + m.role + (fe ? " format-error" : "") },
        h("div", { class: "head" }, label, fe ? badge("bad", "format error", flagged.format_error) : null),
        folded(text(m.content), "msg")));
      if (fe) flagged = null;
    }
  }
  return out;
}

function kv(obj) {
  return h("table", { class: "kv" }, h("tbody", {}, Object.entries(obj).filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, typeof v === "object" ? JSON.stringify(v) : String(v))))));
}

function pane(e, side, s) {
  if (!e) return h("div", { class: "pane" }, h("p", { class: "err" }, "no episode " + (side === "ep" ? s.ep : s.vs)));
  const o = outcome(e);
  const others = DATA.episodes.filter((x) => x.id !== e.id)
    .sort((a, b) => (b.task === e.task) - (a.task === e.task) || a.task.localeCompare(b.task));
  const other = side === "ep" ? "vs" : "ep";
  const compare = h("select", { class: "compare", onchange: (ev) => set({ [other]: ev.target.value }) },
    h("option", { value: "" }, side === "ep" ? "open another beside it…" : "replace the left one…"),
    others.map((x) => h("option", { value: x.id }, x.task + " · " + x.profile + " #" + x.sample + " · " + outcome(x))));
  return h("div", { class: "pane " + o, "data-episode": e.id },
    h("div", { class: "panehead" },
      h("button", { type: "button", onclick: () => side === "ep" ? set({ ep: s.vs || "", vs: "" }) : set({ vs: "" }) },
        "close"), " ", compare),
    h("h2", {}, e.task + " · " + e.profile + " #" + e.sample),
    h("p", { class: "facts" }, badge(o, o === "infra" ? "infrastructure error" : "reward " + e.reward), " ",
      badge("st", e.exit_status), e.verifier_mode ? badge("st", "verifier " + e.verifier_mode) : null,
      " " + e.turns + " turns · " + e.counters.tool_calls + " tool calls · " + secs(e.timings.total_ms),
      e.counters.format_errors ? badge("bad", e.counters.format_errors + " format errors") : null,
      e.counters.unknown_tools ? badge("bad", e.counters.unknown_tools + " unknown tools") : null),
    e.error ? h("pre", { class: "err" }, (e.infra_stage ? e.infra_stage + ": " : "") + e.error) : null,
    h("details", { class: "meta" }, h("summary", {}, "episode " + e.id), kv({
      id: e.id, policy: e.policy, model: e.model, turns: e.turns, "tool calls": e.counters.tool_calls,
      "format errors": e.counters.format_errors, "unknown tools": e.counters.unknown_tools,
      "prompt tokens": e.usage && e.usage.prompt_tokens, "completion tokens": e.usage && e.usage.completion_tokens,
      "agent exit code": e.agent_exit_code, "docker host": e.docker_host, started: e.started_at, ended: e.ended_at,
    })),
    h("details", { class: "timings" }, h("summary", {}, "timings: " + secs(e.timings.total_ms)), kv({
      start: secs(e.timings.start_ms), policy: secs(e.timings.policy_ms), tools: secs(e.timings.tools_ms),
      verify: secs(e.timings.verify_ms), total: secs(e.timings.total_ms),
    })),
    h("div", { class: "transcript" }, transcript(e)),
    h("h3", {}, "answer"), folded(e.answer || "", "answer"),
    h("h3", {}, "verifier output (test-stdout)"),
    e.test_output === undefined ? h("p", {}, "the tests did not run") : folded(e.test_output, "test"),
    h("h3", {}, "reward and metrics"),
    kv(Object.assign({ reward: e.reward === null ? "none (infrastructure error)" : e.reward }, e.metrics)));
}

function render() {
  const s = readHash();
  const root = document.getElementById("app");
  const ids = byId();
  const head = h("header", {},
    h("h1", {}, DATA.title, document.body.dataset.report
      ? h("a", { class: "report", href: document.body.dataset.report }, "report") : null),
    h("p", { class: "sub" }, DATA.episodes.length + (DATA.episodes.length === 1 ? " episode" : " episodes") + " · pass at reward ≥ " + DATA.pass_threshold +
      (DATA.k ? " · k = " + DATA.k : "") + " · read " + DATA.generated_at.replace("T", " ").slice(0, 19) +
      (LIVE ? " · live" : "")));
  const body = s.ep
    ? h("div", { class: "episodes-view" + (s.vs ? " side" : ""), id: "view" },
      h("p", {}, h("a", { href: "#", onclick: (ev) => { ev.preventDefault(); set({ ep: "", vs: "" }); } },
        "← all episodes")),
      h("div", { class: "panes" }, pane(ids.get(s.ep), "ep", s), s.vs ? pane(ids.get(s.vs), "vs", s) : null))
    : list(s);
  const scroll = window.scrollY;
  root.replaceChildren(head, filters(s), body);
  if (LIVE) window.scrollTo(0, scroll);
}

window.addEventListener("hashchange", () => { window.scrollTo(0, 0); render(); });
render();

if (LIVE) {
  let stamp = document.body.dataset.stamp;
  setInterval(async () => {
    try {
      const r = await fetch("stamp", { cache: "no-store" });
      const now = await r.text();
      if (now === stamp) return;
      const d = await fetch("data.json", { cache: "no-store" });
      DATA = unpack(await d.json());
      stamp = now;
      searchCache.clear();
      // A reload keeps what is open: an open <details> would be closed by a re-render, so the list only is redrawn.
      if (!readHash().ep) render();
      else document.querySelector("header .sub").textContent = DATA.episodes.length + " episodes · live · updated";
    } catch { /* the server stopped: keep what is shown */ }
  }, 2000);
}
})();
`;
