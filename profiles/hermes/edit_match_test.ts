/**
 * hermes' patch matcher against hermes itself: every expected value below was produced by running hermes-agent's
 * tools/fuzzy_match.py (NousResearch/hermes-agent@02022048) with python3 on these inputs: `fuzzy_find_and_replace`'s
 * (new_content, count, strategy, error), each `_strategy_*`'s spans (as UTF-16 offsets), `format_no_match_hint`
 * and `is_already_applied`. `want[0]` null means the content came back unchanged.
 */
import assert from "node:assert/strict";
import { HERMES_EDIT, HERMES_NOT_FOUND, hermesAlreadyApplied, hermesNoMatchHint } from "./edit_match.ts";
import { STRATEGIES } from "./edit_strategies.ts";
import { chainFor, type Miss } from "../../lib/harness/tools/edit_match/types.ts";

interface Case {
  name: string;
  content: string;
  old: string;
  neu: string;
  all?: boolean;
  want: [content: string | null, count: number, strategy: string | null, error: string | null];
  spans: Record<string, [number, number][]>;
  hint?: string;
  applied?: boolean;
}

// deno-fmt-ignore
const CASES: Case[] = [
  { name: "exact_hit", content: "def foo():\n    return 1\n", old: "return 1", neu: "return 2", want: ["def foo():\n    return 2\n", 1, "exact", null], spans: {"exact": [[15, 23]], "line_trimmed": [[11, 23]], "whitespace_normalized": [[12, 23]], "indentation_flexible": [[11, 23]], "trimmed_boundary": [[11, 23]], "context_aware": [[11, 23]]} },
  { name: "exact_ambiguous", content: "x = 1\ny = 2\nx = 1\n", old: "x = 1", neu: "x = 3", want: [null, 0, null, "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\n  L1: x = 1\n  L3: x = 1"], spans: {"exact": [[0, 5], [12, 17]], "line_trimmed": [[0, 5], [12, 17]], "whitespace_normalized": [[0, 5], [12, 17]], "indentation_flexible": [[0, 5], [12, 17]], "trimmed_boundary": [[0, 5], [12, 17]], "context_aware": [[0, 5], [12, 17]]} },
  { name: "exact_replace_all_self_overlap", content: "aaaa\n", old: "aa", neu: "b", all: true, want: ["bb\n", 2, "exact", null], spans: {"exact": [[0, 2], [2, 4]], "whitespace_normalized": [[0, 2], [2, 4]]} },
  { name: "exact_many_long", content: "value = compute_something_long(0, 'a fairly long argument string to pass eighty chars')\npad\nvalue = compute_something_long(2, 'a fairly long argument string to pass eighty chars')\npad\nvalue = compute_something_long(4, 'a fairly long argument string to pass eighty chars')\npad\nvalue = compute_something_long(6, 'a fairly long argument string to pass eighty chars')\npad\nvalue = compute_something_long(8, 'a fairly long argument string to pass eighty chars')\npad\nvalue = compute_something_long(10, 'a fairly long argument string to pass eighty chars')\npad\nvalue = compute_something_long(12, 'a fairly long argument string to pass eighty chars')\npad\n", old: "compute_something_long(", neu: "calc(", want: [null, 0, null, "Found 7 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\n  L1: value = compute_something_long(0, 'a fairly long argument string to pass eigh...\n  L3: value = compute_something_long(2, 'a fairly long argument string to pass eigh...\n  L5: value = compute_something_long(4, 'a fairly long argument string to pass eigh...\n  L7: value = compute_something_long(6, 'a fairly long argument string to pass eigh...\n  L9: value = compute_something_long(8, 'a fairly long argument string to pass eigh...\n  ... and 2 more"], spans: {"exact": [[8, 31], [100, 123], [192, 215], [284, 307], [376, 399], [468, 491], [561, 584]], "whitespace_normalized": [[8, 31], [100, 123], [192, 215], [284, 307], [376, 399], [468, 491], [561, 584]]} },
  { name: "trailing_spaces", content: "a = 1   \nb = 2\n", old: "a = 1\nb = 2", neu: "a = 10\nb = 20", want: ["a = 10\nb = 20\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 14]], "trimmed_boundary": [[0, 14]], "block_anchor": [[0, 14]], "context_aware": [[0, 14]]} },
  { name: "tabs_vs_spaces_block", content: "def f():\n\treturn 1\n", old: "def f():\n    return 1", neu: "def f():\n    return 2", want: ["def f():\n    return 2\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 18]], "whitespace_normalized": [[0, 18]], "indentation_flexible": [[0, 18]], "trimmed_boundary": [[0, 18]], "block_anchor": [[0, 18]], "context_aware": [[0, 18]]} },
  { name: "tabs_vs_spaces_line", content: "def f():\n\treturn 1\n", old: "    return 1", neu: "    return 2", want: ["def f():\n\treturn 2\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[9, 18]], "whitespace_normalized": [[9, 18]], "indentation_flexible": [[9, 18]], "trimmed_boundary": [[9, 18]], "context_aware": [[9, 18]]} },
  { name: "changed_indent", content: "class A:\n    def f(self):\n        return 1\n", old: "  def f(self):\n    return 1", neu: "  def f(self):\n    return 2", want: ["class A:\n    def f(self):\n      return 2\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[9, 42]], "whitespace_normalized": [[9, 42]], "indentation_flexible": [[9, 42]], "trimmed_boundary": [[9, 42]], "block_anchor": [[9, 42]], "context_aware": [[9, 42]]} },
  { name: "changed_indent_dedent_line", content: "if x:\n        a()\n        b()\n", old: "    a()\n    b()", neu: "    a()\nc()", want: ["if x:\n        a()\n        c()\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[6, 29]], "whitespace_normalized": [[6, 29]], "indentation_flexible": [[6, 29]], "trimmed_boundary": [[6, 29]], "block_anchor": [[6, 29]], "context_aware": [[6, 29]]} },
  { name: "smart_quotes", content: "print(“hello”)\n", old: "print(\"hello\")", neu: "print(\"bye\")", want: ["print(“bye”)\n", 1, "unicode_normalized", null], spans: {"unicode_normalized": [[0, 14]], "context_aware": [[0, 14]]} },
  { name: "em_dash_expansion", content: "a — b … c\nnext\n", old: "a -- b ... c", neu: "a -- B ... c", want: ["a — B … c\nnext\n", 1, "unicode_normalized", null], spans: {"unicode_normalized": [[0, 9]]} },
  { name: "ascii_in_file_unicode_in_old", content: "say('hi')\n", old: "say(‘hi’)", neu: "say('bye')", want: ["say('bye')\n", 1, "unicode_normalized", null], spans: {"unicode_normalized": [[0, 9]]} },
  { name: "escaped_newline", content: "x = 1\ny = 2\n", old: "x = 1\\ny = 2", neu: "x = 1\\ny = 3", want: ["x = 1\\ny = 3\n", 1, "escape_normalized", null], spans: {"escape_normalized": [[0, 11]]} },
  { name: "escaped_tab_unescaped_in_new", content: "a\tb\n", old: "a\\tb", neu: "a\\tc", want: ["a\tc\n", 1, "escape_normalized", null], spans: {"escape_normalized": [[0, 3]]} },
  { name: "block_wrong_middle", content: "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n", old: "def f():\n    a = 1\n    b = 99\n    c = 3\n    return a", neu: "def f():\n    return 0", want: ["def f():\n    return 0\n", 1, "block_anchor", null], spans: {"block_anchor": [[0, 51]]} },
  { name: "block_middle_too_different", content: "def f():\n    alpha = compute(1)\n    return a\n", old: "def f():\n    zz\n    return a", neu: "def f():\n    return 0", want: [null, 0, null, "Could not find a match for old_string in the file"], spans: {}, hint: "\n\nDid you mean one of these sections?\n   1| def f():\n   2|     alpha = compute(1)\n   3|     return a" },
  { name: "context_aware_first_line", content: "def compute(x):\n    return x + 1\n", old: "def compute(y):\n    return x + 1", neu: "def compute(y):\n    return y + 1", want: ["def compute(y):\n    return y + 1\n", 1, "context_aware", null], spans: {"context_aware": [[0, 32]]} },
  { name: "ambiguous_whitespace_normalized", content: "a:\n    x  =  1\nb:\n\tx = 1\n", old: "x  = 1", neu: "x = 2", want: [null, 0, null, "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\n  L2: x  =  1\n  L4: x = 1"], spans: {"whitespace_normalized": [[4, 14], [19, 24]], "context_aware": [[3, 14], [18, 24]]} },
  { name: "replace_all_whitespace_normalized", content: "a:\n    x  =  1\nb:\n\tx = 1\n", old: "x  = 1", neu: "x = 2", all: true, want: ["a:\n    x = 2\nb:\n\tx = 2\n", 2, "whitespace_normalized", null], spans: {"whitespace_normalized": [[4, 14], [19, 24]], "context_aware": [[3, 14], [18, 24]]} },
  { name: "ambiguous_line_trimmed", content: "if a:\n    go()\n    stop()\nif b:\n  go()\n  stop()\n", old: "go()\nstop()", neu: "run()", want: [null, 0, null, "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\n  L2: go()\n  L5: go()"], spans: {"line_trimmed": [[6, 25], [32, 47]], "indentation_flexible": [[6, 25], [32, 47]], "trimmed_boundary": [[6, 25], [32, 47]], "block_anchor": [[6, 25], [32, 47]], "context_aware": [[6, 25], [32, 47]]} },
  { name: "replace_all_line_trimmed_reindent", content: "if a:\n    go()\n    stop()\nif b:\n  go()\n  stop()\n", old: "go()\nstop()", neu: "run()\nhalt()", all: true, want: ["if a:\n    run()\n    halt()\nif b:\n  run()\n  halt()\n", 2, "line_trimmed", null], spans: {"line_trimmed": [[6, 25], [32, 47]], "indentation_flexible": [[6, 25], [32, 47]], "trimmed_boundary": [[6, 25], [32, 47]], "block_anchor": [[6, 25], [32, 47]], "context_aware": [[6, 25], [32, 47]]} },
  { name: "replace_all_block_anchor_refused", content: "def f():\n    a = 1\n    return a\ndef f():\n    a = 2\n    return a\n", old: "def f():\n    a = 3\n    return a", neu: "def f():\n    return 0", all: true, want: [null, 0, null, "Found 2 approximate matches via the 'block_anchor' strategy; replace_all only applies to exact matches. Provide the precise text (whitespace included) so an exact/line-trimmed match can be made."], spans: {"block_anchor": [[0, 31], [32, 63]], "context_aware": [[0, 31], [32, 63]]} },
  { name: "ambiguous_block_anchor", content: "def f():\n    a = 1\n    return a\ndef f():\n    a = 2\n    return a\n", old: "def f():\n    a = 3\n    return a", neu: "def f():\n    return 0", want: [null, 0, null, "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\n  L1: def f():\n  L4: def f():"], spans: {"block_anchor": [[0, 31], [32, 63]], "context_aware": [[0, 31], [32, 63]]} },
  { name: "whitespace_inside_line", content: "x = foo(a,   b)\n", old: "x = foo(a, b)", neu: "x = foo(a, c)", want: ["x = foo(a, c)\n", 1, "whitespace_normalized", null], spans: {"whitespace_normalized": [[0, 15]], "context_aware": [[0, 15]]} },
  { name: "whitespace_word_boundary", content: "call(a,\tb) + rest\n", old: "call(a, b)", neu: "call(a, c)", want: ["call(a, c) + rest\n", 1, "whitespace_normalized", null], spans: {"whitespace_normalized": [[0, 10]]} },
  { name: "crlf_line_trimmed", content: "x = 1\r\ny = 2\r\n", old: "x = 1\ny = 2", neu: "x = 1\ny = 3", want: ["x = 1\ny = 3\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 13]], "trimmed_boundary": [[0, 13]], "block_anchor": [[0, 13]], "context_aware": [[0, 13]]} },
  { name: "crlf_rogue_indent", content: "x = 1\r\ny = 2\r\n", old: "x = 1\ny = 2", neu: "x = 1\n    y = 3", want: [null, 0, null, "Suspicious indentation in new_string: 1 line(s) indented deeper than old_string's max indent (0 spaces), but neither old_string nor new_string opens a nesting block (':', '{', '('). Likely a model indent typo — check the indentation of: 'y = 3'"], spans: {"line_trimmed": [[0, 13]], "trimmed_boundary": [[0, 13]], "block_anchor": [[0, 13]], "context_aware": [[0, 13]]} },
  { name: "escape_drift", content: "msg = \"it's\"\n", old: "msg = \"it\\'s\"", neu: "msg = \"it\\'s ok\"", want: [null, 0, null, "Escape-drift detected: old_string and new_string contain the literal sequence \"\\\\'\" but the matched region of the file does not. This is almost always a tool-call serialization artifact where an apostrophe or quote got prefixed with a spurious backslash. Re-read the file with read_file and pass old_string/new_string without backslash-escaping \"'\" characters."], spans: {"context_aware": [[0, 12]]} },
  { name: "not_found", content: "hello\nworld\n", old: "goodbye", neu: "farewell", want: [null, 0, null, "Could not find a match for old_string in the file"], spans: {}, hint: "\n\nDid you mean one of these sections?\n   1| hello\n   2| world" },
  { name: "context_aware_typos_reindent", content: "def f():\n\tx = compute_value(1)\n\treturn x\n", old: "  x = compute_valeu(1)\n  return y", neu: "  x = 2", want: ["def f():\n\tx = 2\n", 1, "context_aware", null], spans: {"context_aware": [[9, 40]]} },
  { name: "not_found_hint_whitespace", content: "def f():\n\tx = compute_value(1)\n\treturn x\n", old: "  x = compute_value(1)\n  totally different line here", neu: "  x = 2", want: [null, 0, null, "Could not find a match for old_string in the file"], spans: {}, hint: "\n\nDid you mean one of these sections?\n   1| def f():\n   2| \tx = compute_value(1)\n   3| \treturn x\n\nWhitespace difference detected (→ = tab, · = space):\n  file has: →x = compute_value(1)\n  you sent: ··x = compute_value(1)\nUse the exact whitespace shown in 'file has'." },
  { name: "exact_tab_unescapes_new", content: "x\ty\n", old: "x\ty", neu: "x\\ty2", want: ["x\ty2\n", 1, "exact", null], spans: {"exact": [[0, 3]], "line_trimmed": [[0, 3]], "whitespace_normalized": [[0, 3]], "indentation_flexible": [[0, 3]], "trimmed_boundary": [[0, 3]], "context_aware": [[0, 3]]} },
  { name: "literal_backslash_t_kept", content: "sep  = '\\t'\n", old: "sep = '\\t'", neu: "sep = '\\t\\t'", want: ["sep = '\\t\\t'\n", 1, "whitespace_normalized", null], spans: {"whitespace_normalized": [[0, 11]], "context_aware": [[0, 11]]} },
  { name: "indent_deeper_with_opener_ok", content: "x = 1\r\ny = 2\r\n", old: "x = 1\ny = 2", neu: "if x:\n    y = 3", want: ["if x:\n    y = 3\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 13]], "trimmed_boundary": [[0, 13]], "block_anchor": [[0, 13]], "context_aware": [[0, 13]]} },
  { name: "not_found_hint_snippets", content: "def load(path):\n    return open(path)\n\n\n\n\n\ndef save(path, data):\n    write(path, data)\n", old: "def lode(path):\n    return read(path)\n    pass", neu: "x", want: [null, 0, null, "Could not find a match for old_string in the file"], spans: {}, hint: "\n\nDid you mean one of these sections?\n   1| def load(path):\n   2|     return open(path)\n   3| \n   4| \n   5| \n---\n   6| \n   7| \n   8| def save(path, data):\n   9|     write(path, data)\n---\n   1| def load(path):\n   2|     return open(path)\n   3| \n   4| \n   5| \n   6| " },
  { name: "not_found_hint_splitlines", content: "alpha = 1\fbeta = 2\u2028gamma = 3\r\ndelta = 4\n", old: "\n  beta = 22\nqqq", neu: "x", want: [null, 0, null, "Could not find a match for old_string in the file"], spans: {}, hint: "\n\nDid you mean one of these sections?\n   1| alpha = 1\n   2| beta = 2\n   3| gamma = 3\n   4| delta = 4\n---\n   2| beta = 2\n   3| gamma = 3\n   4| delta = 4" },
  { name: "empty_old", content: "abc\n", old: "", neu: "x", want: [null, 0, null, "old_string cannot be empty"], spans: {} },
  { name: "blank_old", content: "a\n\nb\n", old: "\n  \n", neu: "x", want: [null, 0, null, "old_string is only whitespace — provide non-blank text to match"], spans: {"context_aware": [[2, 5]]} },
  { name: "identical", content: "abc\n", old: "abc", neu: "abc", want: [null, 0, null, "old_string and new_string are identical"], spans: {"exact": [[0, 3]], "line_trimmed": [[0, 3]], "whitespace_normalized": [[0, 3]], "indentation_flexible": [[0, 3]], "trimmed_boundary": [[0, 3]], "context_aware": [[0, 3]]} },
  { name: "already_applied", content: "value = compute(2)\n", old: "value = compute(1)", neu: "value = compute(2)", want: [null, 1, "context_aware", null], spans: {"context_aware": [[0, 18]]}, applied: true },
  { name: "astral", content: "s = '😀 ok'\nt = 1\n", old: "s = '😀 ok'\n  t = 1", neu: "s = '😀 fine'\nt = 2", want: ["s = '😀 fine'\nt = 2\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 17]], "indentation_flexible": [[0, 17]], "trimmed_boundary": [[0, 17]], "block_anchor": [[0, 17]], "context_aware": [[0, 17]]} },
  { name: "indent_flexible_only_via_chain", content: "  a\n  b  \n", old: "a\nb  ", neu: "c", want: ["  c\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 9]], "indentation_flexible": [[0, 9]], "trimmed_boundary": [[0, 9]], "block_anchor": [[0, 9]], "context_aware": [[0, 9]]} },
  { name: "trimmed_boundary_only_via_chain", content: "  a\n  mid\n  b  \n", old: "a\n  mid\nb", neu: "c", want: ["  c\n", 1, "line_trimmed", null], spans: {"line_trimmed": [[0, 15]], "trimmed_boundary": [[0, 15]], "block_anchor": [[0, 15]], "context_aware": [[0, 15]]} },
  { name: "last_line_no_newline", content: "one\ntwo   ", old: "one\ntwo", neu: "1\n2", want: ["1\n2   ", 1, "exact", null], spans: {"exact": [[0, 7]], "line_trimmed": [[0, 10]], "whitespace_normalized": [[0, 7]], "trimmed_boundary": [[0, 10]], "block_anchor": [[0, 10]], "context_aware": [[0, 10]]} },
];

/** Miss.reason for hermes' error text (the reasons are this matcher's names for hermes' error branches). */
function reasonOf(error: string): string {
  const table: [RegExp, string][] = [
    [/^Found \d+ matches/, "ambiguous"],
    [/^Found \d+ approximate matches/, "approximate_replace_all"],
    [/^Escape-drift detected/, "escape_drift"],
    [/^Suspicious indentation/, "rogue_indent"],
    [/^Could not find a match/, "not_found"],
    [/^old_string cannot be empty$/, "empty"],
    [/^old_string is only whitespace/, "blank"],
    [/^old_string and new_string are identical$/, "identical"],
  ];
  return table.find(([re]) => re.test(error))![1];
}

/** The strategy whose spans decided: the first in hermes' order with any (python's spans). */
const decider = (c: Case) => HERMES_EDIT.chain.find((n) => c.spans[n]?.length);

const PRECHECK = new Set(["empty", "blank", "identical"]);

for (const c of CASES) {
  Deno.test(`hermes edit: ${c.name} as fuzzy_find_and_replace`, () => {
    const r = HERMES_EDIT.replace({ content: c.content, old: c.old, neu: c.neu, all: c.all });
    const [content, count, strategy, error] = c.want;
    if (error === null) {
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.content, content ?? c.content);
      assert.equal(r.count, count);
      assert.equal(r.strategy, strategy);
      assert.deepEqual(r.detail?.spans, c.spans[strategy!]);
      return;
    }
    assert.ok(!r.ok, JSON.stringify(r));
    assert.equal(r.detail?.error, error);
    assert.equal(r.reason, reasonOf(error));
    if (PRECHECK.has(r.reason) || r.reason === "not_found") assert.equal(r.strategy, undefined);
    else {
      assert.equal(r.strategy, decider(c));
      assert.equal(r.count, c.spans[decider(c)!].length);
    }
  });
}

Deno.test("hermes edit: every strategy's spans are hermes'", () => {
  for (const c of CASES.filter((c) => c.old)) {
    for (const [name, fn] of STRATEGIES) {
      assert.deepEqual(fn(c.content, c.old), c.spans[name] ?? [], `${c.name} ${name}`);
    }
  }
});

Deno.test("hermes edit: not-found hint and already-applied, as the tool layer words them", () => {
  for (const c of CASES) {
    if (c.want[3]?.startsWith("Could not find")) {
      assert.equal(hermesNoMatchHint(c.content, c.old), c.hint ?? "", c.name);
    } else assert.equal(c.hint, undefined, c.name);
    assert.equal(hermesAlreadyApplied(c.content, c.old, c.neu), c.applied === true, c.name);
  }
});

Deno.test("hermes edit: the exact-only chain misses every near-miss and keeps exact hits", () => {
  const exact = chainFor(HERMES_EDIT, "exact");
  assert.deepEqual(exact, ["exact"]);
  for (const c of CASES) {
    const r = HERMES_EDIT.replace({ content: c.content, old: c.old, neu: c.neu, all: c.all }, exact);
    const full = HERMES_EDIT.replace({ content: c.content, old: c.old, neu: c.neu, all: c.all });
    if (!full.ok && PRECHECK.has(full.reason)) assert.deepEqual(r, full, c.name);
    else if (c.spans.exact) assert.deepEqual(r, full, c.name);
    else {
      assert.ok(!r.ok, c.name);
      assert.equal((r as Miss).reason, "not_found", c.name);
      assert.equal((r as Miss).detail?.error, HERMES_NOT_FOUND, c.name);
    }
  }
});

// Expected from hermes with `_strategy_line_trimmed` patched to find nothing (the chain is built per call).
Deno.test("hermes edit: a chain without line_trimmed reaches the strategies it shadows", () => {
  const chain = HERMES_EDIT.chain.filter((n) => n !== "line_trimmed");
  const at = (name: string) => CASES.find((c) => c.name === name)!;
  const r1 = HERMES_EDIT.replace({ ...at("indent_flexible_only_via_chain") }, chain);
  assert.ok(r1.ok && r1.strategy === "indentation_flexible" && r1.content === "  c\n", JSON.stringify(r1));
  const r2 = HERMES_EDIT.replace({ ...at("trimmed_boundary_only_via_chain") }, chain);
  assert.ok(r2.ok && r2.strategy === "trimmed_boundary" && r2.content === "  c\n", JSON.stringify(r2));
});

Deno.test("hermes edit: the matcher's identity", () => {
  assert.equal(HERMES_EDIT.name, "hermes@main-e6899c8");
  assert.deepEqual(HERMES_EDIT.chain, [
    "exact",
    "line_trimmed",
    "whitespace_normalized",
    "indentation_flexible",
    "escape_normalized",
    "trimmed_boundary",
    "unicode_normalized",
    "block_anchor",
    "context_aware",
  ]);
  assert.ok(HERMES_EDIT.sources.every((s) => s.startsWith("NousResearch/hermes-agent@")));
  assert.throws(() => HERMES_EDIT.replace({ content: "a", old: "a", neu: "b" }, ["fuzzy"]), /unknown strategy/);
});
