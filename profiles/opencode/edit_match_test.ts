/**
 * opencode 1.18.33's edit matching. Every expected result below was produced by running opencode's own `replace`
 * function and replacers (copied verbatim from the JavaScript bundled in npm:opencode-linux-x64@1.18.33:bin/opencode)
 * on the same inputs, with the replacer that matched recorded; `exact` is that code run with only SimpleReplacer.
 */
import assert from "node:assert/strict";
import { chainFor, type MatchRequest } from "../../lib/harness/tools/edit_match/types.ts";
import { OPENCODE_EDIT, OPENCODE_EDIT_MESSAGES } from "./edit_match.ts";

interface Case {
  name: string;
  req: MatchRequest;
  /** The full chain's outcome: the new content and the replacer that produced it, or the miss's reason. */
  want: { content: string; strategy: string } | { miss: string };
  /** The exact-only chain's outcome: "ok" or the miss's reason. */
  exact: string;
}

const CASES: Case[] = [
  {
    name: "exact hit",
    req: { content: "const a = 1;\nconst b = 2;\n", old: "const b = 2;", neu: "const b = 3;" },
    want: { content: "const a = 1;\nconst b = 3;\n", strategy: "simple" },
    exact: "ok",
  },
  {
    name: "trailing spaces on an oldString line",
    req: {
      content: "function f() {\n  return 1;\n}\n",
      old: "function f() {  \n  return 1;\n}",
      neu: "function f() {\n  return 2;\n}",
    },
    want: { content: "function f() {\n  return 2;\n}\n", strategy: "line_trimmed" },
    exact: "not_found",
  },
  {
    name: "tab indent in the file, spaces in oldString",
    req: {
      content: "if (x) {\n\treturn y;\n}\n",
      old: "if (x) {\n    return y;\n}",
      neu: "if (x) {\n    return z;\n}",
    },
    want: { content: "if (x) {\n    return z;\n}\n", strategy: "line_trimmed" },
    exact: "not_found",
  },
  {
    name: "tab inside a line vs a space",
    req: { content: "let\tv = 1;\nnext();\n", old: "let v = 1;", neu: "let v = 2;" },
    want: { content: "let v = 2;\nnext();\n", strategy: "whitespace_normalized" },
    exact: "not_found",
  },
  {
    name: "whole block re-indented",
    req: { content: "class A {\n  m() {\n    go();\n  }\n}\n", old: "m() {\n  go();\n}", neu: "m() {\n  stop();\n}" },
    want: { content: "class A {\nm() {\n  stop();\n}\n}\n", strategy: "line_trimmed" },
    exact: "not_found",
  },
  {
    name: "escaped newline literal",
    req: { content: "a\nb\nc\n", old: "a\\nb", neu: "A\nB" },
    want: { content: "A\nB\nc\n", strategy: "escape_normalized" },
    exact: "not_found",
  },
  {
    name: "escaped newlines spanning 4 lines: refused",
    req: { content: "a\nb\nc\nd\n", old: "a\\nb\\nc\\nd", neu: "x" },
    want: { miss: "oversized" },
    exact: "not_found",
  },
  {
    name: "smart quotes vs ASCII quotes",
    req: { content: 'say("hi");\n', old: "say(“hi”);", neu: 'say("bye");' },
    want: { miss: "not_found" },
    exact: "not_found",
  },
  {
    name: "block anchor: a wrong middle line",
    req: {
      content: "function g() {\n  const x = 1;\n  const y = 2;\n  return x + y;\n}\n",
      old: "function g() {\n  const x = 1;\n  const y = 3;\n  return x + y;\n}",
      neu: "function g() {\n  return 3;\n}",
    },
    want: { content: "function g() {\n  return 3;\n}\n", strategy: "block_anchor" },
    exact: "not_found",
  },
  {
    name: "block anchor: file block one line longer",
    req: {
      content: "start {\n  one();\n  extra();\n  two();\n}\n",
      old: "start {\n  one();\n  two();\n}",
      neu: "start {}",
    },
    want: { content: "start {}\n", strategy: "block_anchor" },
    exact: "not_found",
  },
  {
    name: "block anchor: 2 lines and a final newline anchor a 3-line block",
    req: { content: "if (a) {\n  run();\n}\nrest\n", old: "if (a) {\n}\n", neu: "if (b) {\n}\n" },
    want: { content: "if (b) {\n}\n\nrest\n", strategy: "block_anchor" },
    exact: "not_found",
  },
  {
    name: "middle lines too different",
    req: {
      content: "begin\n  alpha();\n  beta();\n  gamma();\nend\n",
      old: "begin\n  zzzzzz\n  yyyy\n  xxxxx\nend",
      neu: "begin\nend",
    },
    want: { miss: "not_found" },
    exact: "not_found",
  },
  {
    name: "context aware: half the middle lines equal",
    req: {
      content: "top\n  aaaa\n  bbbb\n  cccc\n  dddd\nbottom\n",
      old: "top\n  aaaa\n  bbbb\n  zzzz\n  yyyy\nbottom",
      neu: "top\nbottom",
    },
    want: { content: "top\nbottom\n", strategy: "context_aware" },
    exact: "not_found",
  },
  {
    name: "ambiguous after trimming",
    req: { content: "\tfoo();\nbar();\n\tfoo();\n", old: "  foo();", neu: "foo(1);" },
    want: { miss: "ambiguous" },
    exact: "not_found",
  },
  {
    name: "a trimmed candidate unique where its shorter twin is not",
    req: { content: "  foo();\n    foo();\n", old: " foo(); ", neu: "bar();" },
    want: { content: "  foo();\nbar();\n", strategy: "line_trimmed" },
    exact: "not_found",
  },
  {
    name: "blank lines around oldString",
    req: { content: "x = 1\ny = 2\n", old: "\n\nx = 1\ny = 2\n\n", neu: "\n\nx = 10\ny = 2\n\n" },
    want: { content: "\n\nx = 10\ny = 2\n\n\n", strategy: "trimmed_boundary" },
    exact: "not_found",
  },
  {
    name: "whitespace inside a line",
    req: { content: "let total =   a +  b;\n", old: "a + b", neu: "b + a" },
    want: { content: "let total =   b + a;\n", strategy: "whitespace_normalized" },
    exact: "not_found",
  },
  {
    name: "replaceAll with a fuzzy candidate and $&",
    req: { content: "  a  =  1;\nb\n  a  =  1;\n", old: "a = 1;", neu: "[$&]", all: true },
    want: { content: "[  a  =  1;]\nb\n[  a  =  1;]\n", strategy: "whitespace_normalized" },
    exact: "not_found",
  },
  {
    name: "$& is literal without replaceAll",
    req: { content: "one two\n", old: "two", neu: "<$&>" },
    want: { content: "one <$&>\n", strategy: "simple" },
    exact: "ok",
  },
  {
    name: "multiple exact occurrences",
    req: { content: "x();\ny();\nx();\n", old: "x();", neu: "z();" },
    want: { miss: "ambiguous" },
    exact: "ambiguous",
  },
  {
    name: "multiple exact occurrences with replaceAll",
    req: { content: "x();\ny();\nx();\n", old: "x();", neu: "z();", all: true },
    want: { content: "z();\ny();\nz();\n", strategy: "simple" },
    exact: "ok",
  },
  {
    name: "CRLF file, line-trimmed",
    req: { content: "a\r\n  b\r\nc\r\n", old: "a\r\nb\r\n", neu: "a\r\nB\r\n" },
    want: { content: "a\r\nB\r\n\nc\r\n", strategy: "line_trimmed" },
    exact: "not_found",
  },
  {
    name: "identical strings",
    req: { content: "abc\n", old: "abc", neu: "abc" },
    want: { miss: "identical" },
    exact: "identical",
  },
];

for (const c of CASES) {
  Deno.test(`opencode edit: ${c.name}`, () => {
    const got = OPENCODE_EDIT.replace(c.req);
    if ("miss" in c.want) {
      assert.equal(got.ok, false);
      if (!got.ok) assert.equal(got.reason, c.want.miss);
    } else {
      assert.equal(got.ok, true, JSON.stringify(got));
      if (got.ok) {
        assert.equal(got.content, c.want.content);
        assert.equal(got.strategy, c.want.strategy);
      }
    }
  });
}

Deno.test("opencode edit: the exact-only rule misses every near-miss", () => {
  const exact = chainFor(OPENCODE_EDIT, "exact");
  assert.deepEqual(exact, ["simple"]);
  for (const c of CASES) {
    const got = OPENCODE_EDIT.replace(c.req, exact);
    assert.equal(got.ok ? "ok" : got.reason, c.exact, c.name);
    if (got.ok) assert.equal(got.strategy, "simple");
  }
});

Deno.test("opencode edit: chain order and provenance", () => {
  assert.equal(OPENCODE_EDIT.name, "opencode@1.18.33");
  assert.deepEqual(OPENCODE_EDIT.chain, [
    "simple",
    "line_trimmed",
    "block_anchor",
    "whitespace_normalized",
    "indentation_flexible",
    "escape_normalized",
    "trimmed_boundary",
    "context_aware",
    "multi_occurrence",
  ]);
  assert.deepEqual(OPENCODE_EDIT.sources, ["npm:opencode-linux-x64@1.18.33:bin/opencode"]);
  assert.throws(() => OPENCODE_EDIT.replace({ content: "a", old: "a", neu: "b" }, ["nope"]));
});

Deno.test("opencode edit: counts, the matched span, and which replacer an ambiguity came from", () => {
  const all = OPENCODE_EDIT.replace({ content: "  a  =  1;\nb\n  a  =  1;\n", old: "a = 1;", neu: "x", all: true });
  assert.ok(all.ok);
  assert.equal(all.count, 2);
  assert.deepEqual(all.detail, { matched: "  a  =  1;" });
  // The first line-trimmed candidate ("  foo();") also occurs inside "    foo();", so the second one is taken.
  const twin = OPENCODE_EDIT.replace({ content: "  foo();\n    foo();\n", old: " foo(); ", neu: "bar();" });
  assert.ok(twin.ok);
  assert.equal(twin.count, 1);
  assert.deepEqual(twin.detail, { matched: "    foo();" });
  const amb = OPENCODE_EDIT.replace({ content: "\tfoo();\nbar();\n\tfoo();\n", old: "  foo();", neu: "f" });
  assert.deepEqual(amb, { ok: false, reason: "ambiguous", strategy: "line_trimmed" });
  const big = OPENCODE_EDIT.replace({ content: "a\nb\nc\nd\n", old: "a\\nb\\nc\\nd", neu: "x" });
  assert.deepEqual(big, {
    ok: false,
    reason: "oversized",
    strategy: "escape_normalized",
    detail: { matched: "a\nb\nc\nd" },
  });
  assert.deepEqual(OPENCODE_EDIT.replace({ content: "abc", old: "", neu: "x" }), { ok: false, reason: "empty" });
});

Deno.test("opencode edit: messages", () => {
  assert.equal(
    OPENCODE_EDIT_MESSAGES.not_found,
    "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.",
  );
  assert.equal(
    OPENCODE_EDIT_MESSAGES.ambiguous,
    "Found multiple matches for oldString. Provide more surrounding context to make the match unique.",
  );
});
