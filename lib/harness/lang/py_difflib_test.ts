/** py_difflib against CPython 3.11's difflib: every ratio and opcode list below was printed by python3. */
import assert from "node:assert/strict";
import { type Opcode, SequenceMatcher } from "./py_difflib.ts";

// deno-fmt-ignore
const PAIRS: [a: string, b: string, ratio: number, opcodes: Opcode[]][] = [
  ["abcd", "bcde", 0.75, [["delete", 0, 1, 0, 0], ["equal", 1, 4, 0, 3], ["insert", 4, 4, 3, 4]]],
  ["", "", 1.0, []],
  ["abc", "", 0.0, [["delete", 0, 3, 0, 0]]],
  ["private Thread currentThread;", "private volatile Thread currentThread;", 0.8656716417910447, [["equal", 0, 6, 0, 6], ["insert", 6, 6, 6, 15], ["equal", 6, 29, 15, 38]]],
  ["a".repeat(150) + "b".repeat(60), "a".repeat(100) + "c" + "b".repeat(120), 0.46403712296983757, [["equal", 0, 100, 0, 100], ["replace", 100, 210, 100, 221]]],
  ["x = 1\n".repeat(40), "x = 2\n".repeat(40), 0.016666666666666666, [["equal", 0, 4, 0, 4], ["replace", 4, 240, 4, 240]]],
  ["😀abc", "abc😀", 0.75, [["delete", 0, 1, 0, 0], ["equal", 1, 4, 0, 3], ["insert", 4, 4, 3, 4]]],
  ["print(\"hello\")", "print(\"bye\")", 0.7692307692307693, [["equal", 0, 7, 0, 7], ["replace", 7, 8, 7, 9], ["equal", 8, 9, 9, 10], ["delete", 9, 12, 10, 10], ["equal", 12, 14, 10, 12]]],
  ["qabxcd", "abycdf", 0.6666666666666666, [["delete", 0, 1, 0, 0], ["equal", 1, 3, 0, 2], ["replace", 3, 4, 2, 3], ["equal", 4, 6, 3, 5], ["insert", 6, 6, 5, 6]]],
];

Deno.test("SequenceMatcher: ratio and opcodes as CPython's, autojunk and code points included", () => {
  for (const [a, b, ratio, opcodes] of PAIRS) {
    const sm = new SequenceMatcher(a, b);
    assert.equal(sm.ratio(), ratio, `${a} / ${b}`);
    assert.deepEqual(sm.getOpcodes(), opcodes, `${a} / ${b}`);
  }
});

Deno.test("SequenceMatcher: matching blocks end with the sentinel", () => {
  assert.deepEqual(new SequenceMatcher("abxcd", "abcd").getMatchingBlocks(), [[0, 0, 2], [3, 2, 2], [5, 4, 0]]);
  assert.deepEqual(new SequenceMatcher("", "").getMatchingBlocks(), [[0, 0, 0]]);
});
