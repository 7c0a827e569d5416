/**
 * pi 0.73.1's edit matching against outcomes recorded from pi's own code: each row's input was run through pi's edit
 * tool (createEditToolDefinition(cwd, { operations }).execute on an in-memory file, dist/core/tools/edit.js), and the
 * written file or the thrown message is the expected value. Misses are checked by wording them as pi does.
 */
import assert from "node:assert/strict";
import { PI_EDIT, piApplyEdits, piNormalize } from "./edit_match.ts";
import { chainFor, type Miss } from "../../lib/harness/tools/edit_match/types.ts";

type Outcome = { content: string } | { error: string };
type Row = [name: string, file: string, edits: [oldText: string, newText: string][], want: Outcome];

/** edit-diff.js's messages for a Miss (path `f.txt`, `n` edits): equal to pi's only if reason, count, index are. */
function word(m: Miss, n: number): string {
  const p = "f.txt", i = m.detail?.index;
  switch (m.reason) {
    case "empty_old":
      return n === 1 ? `oldText must not be empty in ${p}.` : `edits[${i}].oldText must not be empty in ${p}.`;
    case "not_found":
      return n === 1
        ? `Could not find the exact text in ${p}. The old text must match exactly including all whitespace and newlines.`
        : `Could not find edits[${i}] in ${p}. The oldText must match exactly including all whitespace and newlines.`;
    case "ambiguous":
      return n === 1
        ? `Found ${m.count} occurrences of the text in ${p}. The text must be unique. Please provide more context to ` +
          `make it unique.`
        : `Found ${m.count} occurrences of edits[${i}] in ${p}. Each oldText must be unique. Please provide more ` +
          `context to make it unique.`;
    case "overlap": {
      const [a, b] = m.detail?.indices as number[];
      return `edits[${a}] and edits[${b}] overlap in ${p}. Merge them into one edit or target disjoint regions.`;
    }
    case "identical":
      return n === 1
        ? `No changes made to ${p}. The replacement produced identical content. This might indicate an issue with ` +
          `special characters or the text not existing as expected.`
        : `No changes made to ${p}. The replacements produced identical content.`;
  }
  return `unexpected miss ${m.reason}`;
}

const edits = (es: Row[2]) => es.map(([oldText, newText]) => ({ oldText, newText }));

/** The recorded table: pi 0.73.1's written file (BOM and line endings as written) or its error message. */
const TABLE: Row[] = [
  ["exact hit", "a\nb\nc\n", [["b", "B"]], { content: "a\nB\nc\n" }],
  ["dollar patterns in newText are literal", "x\n", [["x", "$& $1 $$"]], { content: "$& $1 $$\n" }],
  ["trailing spaces on a line of oldText", "foo()\nbar()\n", [["foo()   \nbar()", "baz()"]], { content: "baz()\n" }],
  ["trailing spaces in file, oldText without", "foo()   \nbar()\n", [["foo()\nbar()", "baz()"]], {
    content: "baz()\n",
  }],
  ["trailing spaces matched exactly: nothing normalised", "foo()   \nbar()  \n\u201Cq\u201D\n", [["foo()   ", "x"]], {
    content: "x\nbar()  \n\u201Cq\u201D\n",
  }],
  ["tabs vs spaces", "\tif x:\n\t\treturn 1\n", [["    if x:\n        return 1", "pass"]], {
    error:
      "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines.",
  }],
  ["changed indent", "  a\n  b\n", [["a\n    b", "c"]], {
    error:
      "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines.",
  }],
  [
    "smart quotes in file, ASCII oldText",
    "say \u201Chi\u201D and \u2018bye\u2019\n",
    [["say \"hi\" and 'bye'", "ok"]],
    { content: "ok\n" },
  ],
  ["ASCII file, smart-quoted oldText", 'say "hi"\n', [["say \u201Chi\u201D", "ok"]], { content: "ok\n" }],
  ["escaped newline in oldText", "a\nb\n", [["a\\nb", "c"]], {
    error:
      "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines.",
  }],
  ["wrong middle line", "one\ntwo\nthree\n", [["one\nTWO\nthree", "x"]], {
    error:
      "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines.",
  }],
  ["ambiguous after normalisation", 'x = \u201Ca\u201D\nx = "a"\n', [['x = "a"', "y"]], {
    error:
      "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique.",
  }],
  ["exact duplicates", "x\nx\n", [["x", "y"]], {
    error:
      "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique.",
  }],
  [
    "fuzzy edit normalises unrelated text",
    "// \u201Ctitle\u201D \u2014 draft  \nconst a = 1;   \nlet b = 2;\nconst s = \u2018q\u2019;\u00A0\n",
    [["const a = 1;\nlet b = 2;", "const a = 3;"]],
    { content: "// \"title\" - draft\nconst a = 3;\nconst s = 'q';\n" },
  ],
  ["two edits, one fuzzy", "alpha  \nbeta\n\u201Cgamma\u201D\ndelta\t\n", [["alpha  ", "ALPHA"], [
    '"gamma"',
    "\u201CGAMMA\u201D",
  ]], { content: "ALPHA\nbeta\n\u201CGAMMA\u201D\ndelta\n" }],
  ["two edits, both exact", "alpha  \nbeta\n\u201Cgamma\u201D\n", [["alpha  ", "ALPHA"], ["\u201Cgamma\u201D", "G"]], {
    content: "ALPHA\nbeta\nG\n",
  }],
  ["overlap", "abcdef\n", [["cde", "X"], ["abc", "Y"]], {
    error: "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions.",
  }],
  ["overlap of three, first pair reported", "abcdefgh\n", [["gh", "1"], ["def", "2"], ["bcd", "3"]], {
    error: "edits[2] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions.",
  }],
  ["adjacent edits do not overlap", "abcdef\n", [["abc", "1"], ["def", "2"]], { content: "12\n" }],
  ["not found in a multi-edit", "a\nb\n", [["a", "A"], ["zzz", "Z"]], {
    error: "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines.",
  }],
  ["duplicate in a multi-edit", "a\nb\nb\n", [["a", "A"], ["b", "B"]], {
    error:
      "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique. Please provide more context to make it unique.",
  }],
  ["CRLF file", "a\r\nb\r\nc\r\n", [["b\nc", "B\nC"]], { content: "a\r\nB\r\nC\r\n" }],
  ["CRLF oldText on LF file", "a\nb\nc\n", [["a\r\nb", "x\r\ny"]], { content: "x\ny\nc\n" }],
  ["mixed endings, CRLF first", "a\r\nb\nc\n", [["c", "C"]], { content: "a\r\nb\r\nC\r\n" }],
  ["mixed endings, LF first", "a\nb\r\nc\r\n", [["a", "A"]], { content: "A\nb\nc\n" }],
  ["lone CR file", "a\rb\r", [["b", "B"]], { content: "a\nB\n" }],
  ["BOM file", "\uFEFFhello\nworld\n", [["hello", "hi"]], { content: "\uFEFFhi\nworld\n" }],
  ["BOM file, fuzzy", "\uFEFF\u201Chello\u201D  \nworld\n", [['"hello"', "hi"]], { content: "\uFEFFhi\nworld\n" }],
  ["BOM and CRLF", "\uFEFFa\r\nb\r\n", [["a", "A"]], { content: "\uFEFFA\r\nb\r\n" }],
  ["special spaces and dashes", "a\u00A0b \u2014 c\u2011d\u3000e\u2212f\n", [["a b - c-d e-f", "ok"]], {
    content: "ok\n",
  }],
  ["NFKC in fuzzy mode", "\uFB01le\u2026\n\u2460\u2461 \uFF46\uFF55\uFF4C\uFF4C\nx\u2019\n", [["x'", "y"]], {
    content: "file...\n12 full\ny\n",
  }],
  ["identical replacement", "a\nb\n", [["b", "b"]], {
    error:
      "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.",
  }],
  ["identical replacement, multi", "a\nb\n", [["a", "a"], ["b", "b"]], {
    error: "No changes made to f.txt. The replacements produced identical content.",
  }],
  ["fuzzy replacement identical to normalised text", "it\u2019s  \nok\n", [["it's", "it's"]], {
    error:
      "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.",
  }],
  ["empty oldText", "a\n", [["", "x"]], { error: "oldText must not be empty in f.txt." }],
  ["empty oldText in a multi-edit", "a\n", [["a", "b"], ["", "x"]], {
    error: "edits[1].oldText must not be empty in f.txt.",
  }],
  ["whitespace-only oldText", "a\n    b\n", [["    ", "\t"]], {
    error:
      "Found 7 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique.",
  }],
  ["whitespace-only oldText, short file", "\t\n", [["\t", " "]], { content: " \n" }],
  ["trailing blanks of oldText dropped by fuzzy", "ab\n", [["b \n ", ""]], { content: "a" }],
  ["exact edit beside a fuzzy one", "k \u201Cv\u201D  \nw\n", [['k "v"', "K"], ["w", "W"]], { content: "K\nW\n" }],
  ["oldText normalising to nothing, not in file", "ab\n", [["  ", "X"]], {
    error:
      "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique.",
  }],
  ["oldText normalising to nothing, one-char file", "a", [[" ", "X"]], { content: "Xa" }],
];

for (const [name, file, es, want] of TABLE) {
  Deno.test(`pi edit: ${name}`, () => {
    const r = piApplyEdits(file, edits(es));
    if ("error" in want) {
      assert.equal(r.ok, false, `expected a miss, got ${JSON.stringify(r)}`);
      assert.equal(word(r as Miss, es.length), want.error);
    } else {
      assert.ok(r.ok, `expected success, got ${JSON.stringify(r)}`);
      assert.equal(r.content, want.content);
      assert.equal(r.count, es.length);
    }
  });
}

Deno.test("pi edit: one fuzzy edit makes the diff base the normalised file", () => {
  const file = "// \u201Ctitle\u201D \u2014 draft  \r\nconst a = 1;   \r\nlet b = 2;\r\n";
  const r = piApplyEdits(file, edits([["const a = 1;\nlet b = 2;", "const a = 3;"]]));
  assert.ok(r.ok);
  assert.equal(r.strategy, "fuzzy");
  assert.equal(r.base, '// "title" - draft\nconst a = 1;\nlet b = 2;\n');
  assert.equal(r.next, '// "title" - draft\nconst a = 3;\n');
  assert.equal(r.content, '// "title" - draft\r\nconst a = 3;\r\n');
});

Deno.test("pi edit: all-exact edits keep the base as read (LF, no BOM)", () => {
  const r = piApplyEdits("\uFEFFa  \r\nb\r\n", edits([["b", "B"]]));
  assert.ok(r.ok);
  assert.deepEqual([r.strategy, r.base, r.next, r.content], ["exact", "a  \nb\n", "a  \nB\n", "\uFEFFa  \r\nB\r\n"]);
});

Deno.test("pi edit: miss details carry the edit index, the count and the overlapping pair", () => {
  assert.deepEqual(piApplyEdits("a\nb\nb\n", edits([["a", "A"], ["b", "B"]])), {
    ok: false,
    reason: "ambiguous",
    count: 2,
    strategy: "exact",
    detail: { index: 1 },
  });
  assert.deepEqual(piApplyEdits("abcdef", edits([["cde", "X"], ["abc", "Y"]])), {
    ok: false,
    reason: "overlap",
    detail: { index: 1, indices: [1, 0] },
  });
  assert.deepEqual(piApplyEdits("a", edits([["x", "y"], ["z", "w"]])), {
    ok: false,
    reason: "not_found",
    detail: { index: 0 },
  });
});

Deno.test("pi edit: PI_EDIT.replace is a one-entry edits[] call", () => {
  assert.equal(PI_EDIT.name, "pi@0.73.1");
  assert.deepEqual(PI_EDIT.chain, ["exact", "fuzzy"]);
  const hit = PI_EDIT.replace({ content: "say \u201Chi\u201D\nx  \n", old: 'say "hi"', neu: "ok" });
  assert.deepEqual(hit, {
    ok: true,
    content: "ok\nx\n",
    count: 1,
    strategy: "fuzzy",
    detail: { base: 'say "hi"\nx\n', next: "ok\nx\n" },
  });
  const dup = PI_EDIT.replace({ content: "x\nx\n", old: "x", neu: "y" });
  assert.deepEqual(dup, { ok: false, reason: "ambiguous", count: 2, strategy: "exact", detail: { index: 0 } });
});

Deno.test("pi edit: the exact-only chain misses what fuzzy forgave (the +exact-edit variant)", () => {
  const exact = chainFor(PI_EDIT, "exact");
  assert.deepEqual(exact, ["exact"]);
  const near: [string, string][] = [
    ["foo()\nbar()\n", "foo()   \nbar()"],
    ["foo()   \nbar()\n", "foo()\nbar()"],
    ["say \u201Chi\u201D\n", 'say "hi"'],
    ["a\u00A0b \u2014 c\n", "a b - c"],
    ["\uFB01le\n", "file"],
  ];
  for (const [content, old] of near) {
    assert.equal(PI_EDIT.replace({ content, old, neu: "x" }).ok, true, old);
    const r = PI_EDIT.replace({ content, old, neu: "x" }, exact);
    assert.deepEqual(r, { ok: false, reason: "not_found", detail: { index: 0 } }, old);
  }
  // Counting is exact too: the smart-quoted twin no longer makes the ASCII line a duplicate.
  const twin = piApplyEdits('x = \u201Ca\u201D\nx = "a"\n', edits([['x = "a"', "y"]]), exact);
  assert.ok(twin.ok);
  assert.equal(twin.content, "x = \u201Ca\u201D\ny\n");
  // pi's BOM and line-ending handling is file handling, not matching: it stays.
  const crlf = piApplyEdits("\uFEFFa\r\nb\r\n", edits([["a\nb", "c"]]), exact);
  assert.ok(crlf.ok);
  assert.equal(crlf.content, "\uFEFFc\r\n");
});

Deno.test("pi edit: piNormalize order (NFKC, trimEnd per line, quotes, dashes, spaces)", () => {
  assert.equal(
    piNormalize("\u2018a\u2019 \u201Cb\u201D\u00A0 \n\uFB03\u2014\u2212x\u3000y\t\n"),
    "'a' \"b\"\nffi--x y\n",
  );
  // Leading whitespace is kept: indentation differences are never forgiven.
  assert.equal(piNormalize("\t  x  "), "\t  x");
});
