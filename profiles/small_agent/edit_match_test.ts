/**
 * small-agent@1's recoverable edit (pure): exact and unique first, then whitespace-normalised lines with the
 * replacement re-indented, ambiguity refused with line numbers, and a miss answered with the closest lines.
 */
import assert from "node:assert/strict";
import { closestLines, normLine, reindent, SMALL_AGENT_EDIT } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";

const edit = (content: string, old: string, neu: string, chain?: readonly string[]) =>
  SMALL_AGENT_EDIT.replace({ content, old, neu }, chain);

const PY = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";

Deno.test("small-agent edit: the chain is exact then normalised lines; +exact-edit keeps only exact", () => {
  assert.deepEqual(SMALL_AGENT_EDIT.chain, ["exact", "normalized_lines"]);
  assert.deepEqual(chainFor(SMALL_AGENT_EDIT, "exact"), ["exact"]);
  assert.equal(SMALL_AGENT_EDIT.name, "small-agent@1");
});

Deno.test("small-agent edit: an exact unique match wins, mid-line too, with $ patterns literal", () => {
  const m = edit(PY, "return 1", "return $& + 1");
  assert.ok(m.ok);
  assert.equal(m.strategy, "exact");
  assert.equal(m.content, PY.replace("return 1", () => "return $& + 1"));
  assert.deepEqual(m.detail, { line: 3, lines: 1, shift: 0 });
});

Deno.test("small-agent edit: an exact match in several places is refused with their line numbers", () => {
  const m = edit("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3");
  assert.ok(!m.ok);
  assert.equal(m.reason, "ambiguous");
  assert.equal(m.count, 2);
  assert.equal(m.strategy, "exact");
  assert.deepEqual(m.detail, { lines: [1, 3] });
});

Deno.test("small-agent edit: a lost indent matches on normalised lines and the replacement is re-indented", () => {
  const m = edit(PY, "def f(self):\n    return 1", "def f(self):\n    return 10");
  assert.ok(m.ok);
  assert.equal(m.strategy, "normalized_lines");
  assert.equal(m.content, PY.replace("        return 1", "        return 10"));
  assert.deepEqual(m.detail, { line: 2, lines: 2, shift: 4 });
  // Doubled spaces inside a line and trailing blanks are normalised too; blank lines around Find are dropped.
  const n = edit("a  =  1   \nb = 2\n", "\na = 1\nb  = 2\n\n", "a = 3\nb = 2");
  assert.ok(n.ok);
  assert.equal(n.content, "a = 3\nb = 2\n");
});

Deno.test("small-agent edit: a too-deep Find shifts the replacement left; CRLF and a missing last newline kept", () => {
  const m = edit("if x:\n  y()\n  z()\n", "      y()\n      z()", "      y()\n      w()\n        v()");
  assert.ok(m.ok);
  assert.equal(m.content, "if x:\n  y()\n  w()\n    v()\n");
  assert.equal(m.detail?.shift, -4);
  const crlf = edit("a\r\n  b\r\n  c", "b\nc", "B\nC");
  assert.ok(crlf.ok);
  assert.equal(crlf.content, "a\r\n  B\r\n  C");
});

Deno.test("small-agent edit: a normalised match in several places is refused, not guessed", () => {
  const m = edit(PY, "  return 1\n", "return 3");
  assert.ok(m.ok, "exact substring first: `  return 1` occurs once (inside the deeper indent)");
  const amb = edit("def a():\n    pass\ndef b():\n  pass\n", "pass ", "return");
  assert.ok(!amb.ok);
  assert.equal(amb.reason, "ambiguous");
  assert.equal(amb.strategy, "normalized_lines");
  assert.deepEqual([amb.count, amb.detail], [2, { lines: [2, 4] }]);
});

Deno.test("small-agent edit: an empty Replace deletes the matched lines", () => {
  const m = edit("a\n  b\nc\n", "b", "");
  assert.ok(m.ok);
  assert.equal(m.strategy, "exact");
  assert.equal(m.content, "a\n  \nc\n");
  const lines = edit("a\n  b  \nc\n", "b", "");
  assert.ok(lines.ok);
  assert.equal(lines.strategy, "exact");
  const whole = edit("a\n  b x\nc\n", "b  x", "");
  assert.ok(whole.ok);
  assert.equal(whole.content, "a\nc\n");
});

Deno.test("small-agent edit: a miss carries the closest lines, best first; an empty Find is empty_old", () => {
  const m = edit(PY, "def f(self, x):\n    return x", "");
  assert.ok(!m.ok);
  assert.equal(m.reason, "not_found");
  const near = m.detail?.closest as { line: number; text: string }[];
  assert.ok(near.length >= 3 && near.length <= 5, JSON.stringify(near));
  assert.deepEqual(near[0], { line: 2, text: "    def f(self):" });
  assert.deepEqual(near[1], { line: 5, text: "    def g(self):" });
  assert.deepEqual(edit(PY, "  \n", "x"), { ok: false, reason: "empty_old" });
  // Under the exact rule a near-miss is a miss, still answered with the closest lines.
  const exact = edit(PY, "def f(self):\n    return 1", "x", ["exact"]);
  assert.ok(!exact.ok);
  assert.equal(exact.reason, "not_found");
  assert.equal((exact.detail?.closest as { line: number }[])[0].line, 2);
});

Deno.test("small-agent edit: helpers (normLine, reindent, closestLines)", () => {
  assert.equal(normLine("  a \t b  "), "a b");
  assert.deepEqual(reindent(["x", "  y", "", "z"], "", "\t"), ["\tx", "\t  y", "", "\tz"]);
  assert.deepEqual(reindent(["  x", "y"], "  ", "    "), ["    x", "  y"]);
  assert.deepEqual(closestLines("", "x"), []);
  assert.deepEqual(closestLines("a\nb\n", ""), []);
  assert.deepEqual(closestLines("abc\n\nabd\nzzz\nqqq\n", "abc").map((l) => l.line), [1, 3, 4]);
});
