/**
 * The viewer's episode pane, as page script (part of `VIEWER_SCRIPT`): the facts, the transcript (system prompt and
 * tools collapsed, each turn with its reasoning, text, calls and flags), the answer, the files the episode changed,
 * the verifier's output (or why there is none), the reward and the metrics worth showing.
 */

/**
 * The pane's part of the page script; it uses the core's `h`, `set`, `outcome`, `text`, `secs`, `truncFor`, `DATA`
 * and `TRUNC`, which it sets to each episode's mark as it draws the episode.
 */
export const PANE_SCRIPT: string = String.raw`
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
  // A tool result names its tool by its call's id where the harness's message carries no name (opencode, pi).
  const callNames = new Map();
  for (const m of e.messages) for (const c of m.tool_calls || []) callNames.set(c.id, c.function.name);
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
      const label = m.role === "tool"
        ? "result · " + (m.name || callNames.get(m.tool_call_id) || "?") + " · " + (m.tool_call_id || "")
        : m.role;
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
  TRUNC = truncFor(e);
  const o = outcome(e);
  const others = DATA.episodes.filter((x) => x.id !== e.id)
    .sort((a, b) => (b.id === e.pair) - (a.id === e.pair) || (b.task === e.task) - (a.task === e.task) ||
      a.task.localeCompare(b.task));
  const other = side === "ep" ? "vs" : "ep";
  const compare = h("select", { class: "compare", onchange: (ev) => set({ [other]: ev.target.value }) },
    h("option", { value: "" }, side === "ep" ? "open another beside it…" : "replace the left one…"),
    others.map((x) => h("option", { value: x.id }, (x.run ? x.run + " · " : "") + x.task + " · " + x.profile + " #" +
      x.sample + " · " + outcome(x))));
  const tok = e.tokens;
  return h("div", { class: "pane " + o, "data-episode": e.id },
    h("div", { class: "panehead" },
      h("button", { type: "button", onclick: () => side === "ep" ? set({ ep: s.vs || "", vs: "" }) : set({ vs: "" }) },
        "close"), " ", compare),
    h("h2", {}, e.run ? [badge("run", e.run, runTitle(e.run)), " "] : null, e.task + " · " + e.profile + " #" + e.sample),
    h("p", { class: "facts" }, badge(o, o === "infra" ? "infrastructure error" : "reward " + e.reward), " ",
      badge("st", e.exit_status), e.verifier_mode ? badge("st", "verifier " + e.verifier_mode) : null,
      " " + e.turns + " turns · " + e.counters.tool_calls + " tool calls · " + secs(e.timings.total_ms),
      tok ? " · " + tok.prompt.toLocaleString("en-US") + " prompt + " + tok.completion.toLocaleString("en-US") +
        " completion tokens" : "",
      e.counters.format_errors ? badge("bad", e.counters.format_errors + " format errors") : null,
      e.counters.unknown_tools ? badge("bad", e.counters.unknown_tools + " unknown tools") : null,
      e.metrics["metric/inputs_neutralised"] ? badge("bad", e.metrics["metric/inputs_neutralised"] +
        " neutralised before the tests") : null),
    e.reason || e.error ? h("pre", { class: "err reason" }, [e.reason,
      e.error && e.error !== e.reason ? (e.infra_stage ? e.infra_stage + ": " : "") + e.error : ""]
      .filter(Boolean).join("\n")) : null,
    h("details", { class: "meta" }, h("summary", {}, "episode " + e.id), kv({
      id: e.id, run: e.run && runTitle(e.run), policy: e.policy, model: e.model, turns: e.turns,
      "tool calls": e.counters.tool_calls, "format errors": e.counters.format_errors,
      "unknown tools": e.counters.unknown_tools, "prompt tokens": tok && tok.prompt,
      "completion tokens": tok && tok.completion, "tokens from": tok && (tok.source === "usage"
        ? "the endpoint's usage" : "the recorded token ids"),
      "agent exit code": e.agent_exit_code, "docker host": e.docker_host, started: e.started_at, ended: e.ended_at,
    })),
    h("details", { class: "timings" }, h("summary", {}, "timings: " + secs(e.timings.total_ms)), kv({
      start: secs(e.timings.start_ms), policy: secs(e.timings.policy_ms), tools: secs(e.timings.tools_ms),
      verify: secs(e.timings.verify_ms), total: secs(e.timings.total_ms),
    })),
    h("div", { class: "transcript" }, transcript(e)),
    h("h3", {}, "answer"), folded(e.answer || "", "answer"),
    e.agent_stderr ? [h("h3", {}, "stderr of the program the policy ran (its last 4 kB)"),
      folded(e.agent_stderr, "stderr")] : null,
    workdirDiff(e),
    neutralisedList(e),
    h("h3", {}, "verifier output (test-stdout)"),
    e.verifier_note ? h("p", { class: "verifier-note" }, e.verifier_note) : folded(e.test_output || "", "test"),
    h("h3", {}, "reward and metrics"),
    kv(Object.assign({ reward: e.reward === null ? "none (infrastructure error)" : e.reward }, e.shown_metrics)));
}

/** What the verifier removed before the tests ran: links into their inputs, FIFOs, sockets and devices. */
function neutralisedList(e) {
  const n = e.metrics["metric/inputs_neutralised"] || (e.neutralised || []).length;
  if (!n) return null;
  const items = (e.neutralised || []).map((x) => h("li", {}, h("code", {}, x.path), " " + x.kind +
    (x.target ? " → " + x.target : "")));
  return h("div", { class: "neutralised" }, h("h3", {}, "neutralised before the tests (" + n + ")"),
    h("p", {}, "removed by the verifier: they named the tests' own inputs in place of the agent's work, or would " +
      "block the tests" + (n > items.length ? "; the first " + items.length + " listed" : "")),
    h("ul", {}, items));
}

function runTitle(label) {
  const r = (DATA.runs || []).find((x) => x.label === label);
  return r ? r.label + ": " + r.title : label;
}

/** The files the episode changed: a line per file, then the patch with its lines coloured. */
function workdirDiff(e) {
  const d = e.workdir_diff;
  if (!d) return null;
  const files = d.files;
  // A cut diff compared only the first files of each side: the heading says so before the list.
  const head = h("h3", {}, "files changed (" + files.length + (d.cut ? "; cut at " + d.cut.end_files
    + " files and links at the end, " + d.cut.end_kept + " compared" : "") + ")");
  if (!files.length) return h("div", { class: "wdiff" }, head, h("p", {}, d.note || "no change in the working directory"));
  const lines = d.patch.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const cls = (l) => l.startsWith("diff --git") ? "file" : l.startsWith("@@") ? "hunk"
    : l.startsWith("+++") || l.startsWith("---") ? "name" : l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "";
  return h("div", { class: "wdiff" }, head,
    h("table", { class: "files" }, h("tbody", {}, files.map((f) => h("tr", {},
      h("td", { class: "change " + f.change }, f.change), h("td", {}, f.path),
      h("td", { class: "num" }, f.binary ? "binary" : f.large ? "not diffed (size)"
        : f.too_different ? "not diffed (changes)" : "+" + f.added + " −" + f.removed))))),
    d.note ? h("p", { class: "note" }, d.note) : null,
    d.patch ? h("details", { class: "patch", open: lines.length <= 400 },
      h("summary", {}, "the diff (" + lines.length + " lines" + (d.truncated ? ", cut" : "") + ")"),
      h("pre", { class: "diff" }, lines.map((l) => h("span", { class: cls(l) }, l + "\n")))) : null);
}
`;
