import assert from "node:assert/strict";
import recorded from "../../tests/golden/claude-code/near_miss.json" with { type: "json" };
import { chainFor, type Match, type Miss } from "../../lib/harness/tools/edit_match/types.ts";
import {
  CLAUDE_CODE_EDIT,
  CLAUDE_CODE_EDIT_MESSAGES as MSG,
  type ClaudeCodeMatchRequest,
  ESCAPE_NOTE,
  preserveQuoteStyle,
  stripTrailingWhitespace,
} from "./edit_match.ts";

interface Case {
  file: string;
  before: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
  echoed?: { old_string: string; new_string: string };
  is_error: boolean;
  result: string;
  after: string;
}
const cases: Case[] = recorded.cases;

// claude-code holds a CRLF file as LF (and writes CRLF back): the matcher sees the LF text.
const lf = (s: string) => s.replaceAll("\r\n", "\n");
const run = (c: Case, chain?: readonly string[]) =>
  CLAUDE_CODE_EDIT.replace(
    { content: lf(c.before), old: c.old_string, neu: c.new_string, all: c.replace_all, path: c.file },
    chain,
  );
const edit = (req: ClaudeCodeMatchRequest, chain?: readonly string[]) => CLAUDE_CODE_EDIT.replace(req, chain);
const ok = (r: Match | Miss): Match => {
  assert.ok(r.ok, `expected a match, got ${JSON.stringify(r)}`);
  return r;
};
const miss = (r: Match | Miss): Miss => {
  assert.ok(!r.ok, `expected a miss, got ${JSON.stringify(r)}`);
  return r;
};

/** The tool_result text the binding would word from a miss (ambiguous is checked by its count and string). */
function worded(m: Miss): string {
  const old = m.detail?.inputOld as string;
  if (m.reason === "not_found") {
    return `<tool_use_error>${MSG.not_found}\nString: ${old}${
      m.detail?.escapeNote ? ESCAPE_NOTE : ""
    }</tool_use_error>`;
  }
  if (m.reason === "unchanged") return MSG.unchanged; // thrown while applying: no <tool_use_error> wrapper
  return `<tool_use_error>${MSG[m.reason]}</tool_use_error>`;
}

Deno.test("claude-code Edit: every recorded near-miss gives the recorded outcome and file", () => {
  for (const c of cases) {
    const what = `${c.file}: ${JSON.stringify(c.old_string)}`;
    const r = run(c);
    if (!c.is_error) {
      assert.ok(r.ok, `${what}: ${JSON.stringify(r)}`);
      assert.equal(r.content, lf(c.after), what);
      // The transcript echoes the normalised input; the ingest repair of double-escaped \uXXXX (all tools, before
      // Edit) is not this matcher's, so skip that echo.
      if (c.echoed && !/\\u[0-9a-f]{4}/i.test(c.old_string)) {
        assert.deepEqual([r.detail?.inputOld, r.detail?.inputNew], [c.echoed.old_string, c.echoed.new_string], what);
      }
      continue;
    }
    assert.ok(!r.ok, `${what}: ${JSON.stringify(r)}`);
    assert.equal(lf(c.after), lf(c.before), what);
    const found = /^<tool_use_error>Found (\d+) matches of the string to replace, .*\nString: ([^]*)<\/tool_use_error>$/
      .exec(c.result);
    if (found) {
      assert.equal(r.reason, "ambiguous", what);
      assert.equal(r.count, Number(found[1]), what);
      assert.equal(r.detail?.inputOld, found[2], what);
    } else assert.equal(worded(r), c.result, what);
  }
});

Deno.test("claude-code Edit: exact match replaces old_string as given", () => {
  const r = ok(edit({ content: "alpha beta\n", old: "alpha", neu: "gamma" }));
  assert.equal(r.content, "gamma beta\n");
  assert.equal(r.strategy, "exact");
  assert.equal(r.detail?.actualOld, "alpha");
});

Deno.test("claude-code Edit: curly double quotes in the file, straight in old_string and new_string", () => {
  // Recorded (dq.txt): the file's span is replaced and new_string's quotes take the file's style.
  const r = ok(edit({
    content: "He said \u201Chello world\u201D today.\n",
    old: 'said "hello world" today',
    neu: 'said "bye now" and ("ok") today',
  }));
  assert.equal(r.strategy, "quote_normalized");
  assert.equal(r.detail?.actualOld, "said \u201Chello world\u201D today");
  assert.equal(r.detail?.actualNew, "said \u201Cbye now\u201D and (\u201Cok\u201D) today");
});

Deno.test("claude-code Edit: apostrophes inside words vs opening and closing single quotes", () => {
  // Recorded (sq.txt, apos.txt): letter'letter is ’; after a space or at the start ‘; otherwise ’.
  const r = ok(
    edit({ content: "It\u2019s \u2018quoted\u2019 here.\n", old: "It's 'quoted' here", neu: "It's 'x' don't" }),
  );
  assert.equal(r.content, "It\u2019s \u2018x\u2019 don\u2019t.\n");
  assert.equal(
    preserveQuoteStyle("'a'", "\u2018a\u2019", "'tis the dogs' (it's)"),
    "\u2018tis the dogs\u2019 (it\u2019s)",
  );
  // Only the quote kinds the actual string holds are converted (apos.txt kept its straight "x").
  assert.equal(preserveQuoteStyle("'a'", "\u2018a\u2019", `"x"`), `"x"`);
});

Deno.test("claude-code Edit: straight quotes in the file, curly in old_string", () => {
  // Recorded (straight.txt): matched; new_string's curly quotes are written as given.
  const r = ok(edit({ content: 'x = "plain"\n', old: "x = \u201Cplain\u201D", neu: "x = \u201Cfancy\u201D" }));
  assert.equal(r.detail?.actualOld, 'x = "plain"');
  assert.equal(r.content, "x = \u201Cfancy\u201D\n");
  // Single and double quotes never fold into each other.
  assert.equal(miss(edit({ content: 'y = "keep"\n', old: "y = \u2018keep\u2019", neu: "y" })).reason, "not_found");
});

Deno.test("claude-code Edit: trailing whitespace is not tolerated in old_string, stripped from new_string", () => {
  const content = "def f():  \n    return 1\n";
  const m = miss(edit({ content, old: "def f():\n    return 1", neu: "def g():\n    return 1", path: "t.py" }));
  assert.equal(m.reason, "not_found");
  assert.equal(m.detail?.escapeNote, false);
  const r = ok(
    edit({ content, old: "def f():  \n    return 1", neu: "def g():  \n    return 2 \t\u00A0", path: "t.py" }),
  );
  assert.equal(r.content, "def g():\n    return 2\n");
  // Markdown keeps it (hard line breaks), and so does a request without a path.
  assert.equal(ok(edit({ content: "a\nb\n", old: "b", neu: "c  ", path: "x.MD" })).content, "a\nc  \n");
  assert.equal(ok(edit({ content: "a\nb\n", old: "b", neu: "c  " })).content, "a\nc  \n");
  // Decided after stripping (recorded): "return 2" → "return 2   " is no change at all.
  assert.equal(
    miss(edit({ content: "return 2\n", old: "return 2", neu: "return 2   ", path: "t.py" })).reason,
    "identical",
  );
  assert.equal(stripTrailingWhitespace("a \r\nb\t\rc "), "a\r\nb\rc");
});

Deno.test("claude-code Edit: tabs vs spaces is not found", () => {
  const m = miss(edit({ content: "if x:\n\treturn 1\n", old: "if x:\n    return 1", neu: "if y:\n    return 1" }));
  assert.equal(m.reason, "not_found");
});

Deno.test("claude-code Edit: ambiguity counts the actual string's exact spelling", () => {
  const two = "\u201Ca\u201D and \u201Ca\u201D\n";
  const m = miss(edit({ content: two, old: '"a"', neu: '"b"' }));
  assert.deepEqual([m.reason, m.count, m.strategy, m.detail?.actualOld], [
    "ambiguous",
    2,
    "quote_normalized",
    "\u201Ca\u201D",
  ]);
  // Recorded (amb2.txt): “a” and ”a“ fold to the same text but are one occurrence each, so the first is replaced.
  assert.equal(
    ok(edit({ content: "\u201Ca\u201D and \u201Da\u201C\n", old: '"a"', neu: '"b"' })).content,
    "\u201Cb\u201D and \u201Da\u201C\n",
  );
});

Deno.test("claude-code Edit: replace_all replaces every occurrence of the actual spelling only", () => {
  const r = ok(edit({ content: "\u201Ca\u201D and \u201Ca\u201D\n", old: '"a"', neu: '"b"', all: true }));
  assert.deepEqual([r.content, r.count], ["\u201Cb\u201D and \u201Cb\u201D\n", 2]);
  // Recorded (mixed.txt): the file holds "a" exactly, so the curly ones are left alone.
  const mixed = ok(edit({ content: '\u201Ca\u201D then "a" then \u201Ca\u201D\n', old: '"a"', neu: '"b"', all: true }));
  assert.deepEqual([mixed.content, mixed.count, mixed.strategy], [
    '\u201Ca\u201D then "b" then \u201Ca\u201D\n',
    1,
    "exact",
  ]);
});

Deno.test("claude-code Edit: \\uXXXX escapes either way", () => {
  const esc = ok(edit({ content: 's = "caf\\u00E9"\n', old: 's = "caf\u00E9"', neu: 's = "caf\u00E9 \u00F1"' }));
  assert.deepEqual([esc.strategy, esc.content], ["unicode_escaped", 's = "caf\\u00E9 \\u00F1"\n']);
  const un = ok(
    edit({ content: 'C:/tmp\nt = "\u00E9"\n', old: 'C:/tmp\nt = "\\u00e9"', neu: 'C:/tmp\nt = "\\u00e8"' }),
  );
  assert.deepEqual([un.strategy, un.content], ["unicode_unescaped", 'C:/tmp\nt = "\u00E8"\n']);
  // Read from source: an escaped backslash before the u is not an escape, so nothing matches.
  assert.equal(miss(edit({ content: 's = "caf\\\\u00e9"\n', old: 's = "caf\u00E9"', neu: "x" })).reason, "not_found");
});

Deno.test("claude-code Edit: desanitized tokens", () => {
  const r = ok(edit({ content: "<name>foo</name>\n", old: "<n>foo</n>", neu: "<n>bar</n>" }));
  assert.deepEqual([r.strategy, r.content, r.detail?.desanitized], ["desanitized", "<name>bar</name>\n", [
    "<n>",
    "</n>",
  ]]);
  // Read from source: the table's other entries, e.g. <fnr> and "\n\nH:".
  const h = ok(edit({ content: "x\n\nHuman: <function_results>", old: "\n\nH: <fnr>", neu: "\n\nH: -" }));
  assert.equal(h.content, "x\n\nHuman: -");
});

Deno.test("claude-code Edit: deleting text deletes its newline; a no-op replacement is refused", () => {
  assert.equal(ok(edit({ content: "one\ntwo\nthree\n", old: "two", neu: "" })).content, "one\nthree\n");
  assert.equal(ok(edit({ content: "two\nmid two\ntwo", old: "two", neu: "", all: true })).content, "mid two");
  // Recorded (same.txt): new_string equals the file's curly span, so nothing changes.
  assert.equal(
    miss(edit({ content: "q = \u201Cz\u201D\n", old: 'q = "z"', neu: "q = \u201Cz\u201D" })).reason,
    "unchanged",
  );
});

Deno.test("claude-code Edit: the exact rule gives not_found for every near-miss the full chain matched", () => {
  const exact = chainFor(CLAUDE_CODE_EDIT, "exact");
  assert.deepEqual(exact, ["exact"]);
  let n = 0;
  for (const c of cases) {
    const full = run(c);
    if (!full.strategy || full.strategy === "exact") continue;
    n++;
    const m = miss(run(c, exact));
    assert.equal(m.reason, "not_found", c.file);
    // The escape note claims escape swaps were tried: never under the exact rule.
    assert.equal(m.detail?.escapeNote ?? false, false, c.file);
  }
  assert.ok(n >= 10, `only ${n} near-misses`);
});
