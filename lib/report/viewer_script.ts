/**
 * The trajectory viewer's browser script, as text embedded in the page (no build step, no framework, nothing fetched
 * but the view server's own data while live). Every string from a run reaches the page through `textContent`, never
 * as markup. State lives in the location hash (`#profile=…&task=…&sort=-turns&ep=ID&vs=ID2`), so links from the
 * report and the browser's back button work, and a live reload keeps the view. The list is `viewer_list_script.ts`,
 * an episode's pane `viewer_pane_script.ts`.
 */
import { UNPACK_SCRIPT } from "./viewer_data.ts";
import { LIST_SCRIPT } from "./viewer_list_script.ts";
import { PANE_SCRIPT } from "./viewer_pane_script.ts";

/**
 * A line holding a truncation mark in generic words (what most harnesses and test runners say). An episode whose
 * profile declares its own `truncationMark` has that matched too; the shared profile suite checks every built-in
 * profile's mark against its own long output.
 */
export const TRUNCATION_MARK: RegExp = new RegExp(
  [
    "truncated|omitted|elided|clipped|too long|too large|exceeded|full output",
    String.raw`\[\.\.\.\]|\.\.\. ?\d+ (more )?(lines|chars|characters|bytes|tokens)`,
    String.raw`(lines|chars|characters|bytes|tokens) cut`,
  ].join("|"),
  "i",
);

/** The viewer's script, as the page embeds it. */
export const VIEWER_SCRIPT: string = String.raw`(() => {
"use strict";
const FOLD_LINES = 40, FOLD_CHARS = 6000, HEAD = 15, TAIL = 10;
const GENERIC_TRUNC = new RegExp(${JSON.stringify(TRUNCATION_MARK.source)}, "i");
// The mark of the episode being drawn (pane() sets it): its profile's own words, and the generic ones.
let TRUNC = GENERIC_TRUNC;
const truncFor = (e) => e.truncation_mark ? new RegExp(e.truncation_mark + "|" + GENERIC_TRUNC.source, "i") : GENERIC_TRUNC;
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

// Compared runs may pass at different thresholds: each episode is judged by its own run's.
const threshold = (e) => (e.run && DATA.runs && DATA.runs.find((r) => r.label === e.run) || DATA).pass_threshold;
const outcome = (e) => e.reward === null ? "infra" : e.reward >= threshold(e) ? "pass" : "fail";
const byId = () => new Map(DATA.episodes.map((e) => [e.id, e]));
const text = (c) => c === null || c === undefined ? "" : typeof c === "string" ? c
  : c.map((p) => typeof p.text === "string" ? p.text : JSON.stringify(p)).join("");
const secs = (ms) => (ms / 1000).toFixed(1) + " s";
${LIST_SCRIPT}
${PANE_SCRIPT}
function render() {
  const s = readHash();
  const root = document.getElementById("app");
  const ids = byId();
  const report = document.body.dataset.report;
  const head = DATA.runs ? h("header", {},
    h("h1", {}, "comparing " + DATA.runs.map((r) => r.label).join(" and ")),
    h("ul", { class: "runs" }, DATA.runs.map((r) => h("li", { "data-run": r.label }, badge("run", r.label), " " + r.title +
      " · " + r.episodes + " episodes · pass at reward ≥ " + r.pass_threshold + (r.k ? " · k = " + r.k : ""),
      report ? h("a", { class: "report", href: report + "/" + r.label }, "report") : null))),
    h("p", { class: "sub" }, "read " + DATA.generated_at.replace("T", " ").slice(0, 19) + (LIVE ? " · live" : "")))
    : h("header", {},
    h("h1", {}, DATA.title, report ? h("a", { class: "report", href: report }, "report") : null),
    h("p", { class: "sub" }, DATA.episodes.length + (DATA.episodes.length === 1 ? " episode" : " episodes") +
      " · pass at reward ≥ " + DATA.pass_threshold + (DATA.k ? " · k = " + DATA.k : "") + " · read " +
      DATA.generated_at.replace("T", " ").slice(0, 19) + (LIVE ? " · live" : "")));
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
