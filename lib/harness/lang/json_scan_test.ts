/** The JSON scanner's own errors, positions, options and depth (the runtimes' wordings: tests/json_errors_golden_test.ts). */
import assert from "node:assert/strict";
import { type JsonErrorCode, type JsonScanError, scanJson, type ScanOptions } from "./json_scan.ts";

// --- the scanner's own errors -------------------------------------------------------------------------------------

/** One input per error code (and the options that matter), with the error scanJson reports. */
const CODES: [input: string, opts: ScanOptions, error: JsonScanError][] = [
  ["", {}, { code: "eof_value", at: 0, ctx: "top" }],
  ['{"a":', {}, { code: "eof_value", at: 5, ctx: "object" }],
  ["[1,", {}, { code: "eof_value", at: 3, ctx: "array" }],
  ["[", {}, { code: "eof_array", at: 1, ctx: "array", expect: "value_or_close" }],
  ["[1", {}, { code: "eof_array", at: 2, ctx: "array", expect: "comma_or_close" }],
  ["{", {}, { code: "eof_object", at: 1, ctx: "object", expect: "key_or_close" }],
  ['{"a":1,', {}, { code: "eof_object", at: 7, ctx: "object", expect: "key" }],
  ['{"a"', {}, { code: "eof_object", at: 4, ctx: "object", expect: "colon" }],
  ['{"a":1', {}, { code: "eof_object", at: 6, ctx: "object", expect: "comma_or_close" }],
  ['"ab', {}, { code: "eof_string", at: 3, ctx: "top", start: 0 }],
  ['["\\u0041', {}, { code: "eof_string", at: 8, ctx: "array", start: 1, escape: 2 }],
  ["[x]", {}, { code: "unexpected_char", at: 1, ctx: "array" }],
  ["NaN", {}, { code: "unexpected_char", at: 0, ctx: "top" }],
  ["[tru]", {}, { code: "bad_literal", at: 4, ctx: "array", start: 1, literal: "true" }],
  ["-Inf", { nonFinite: true }, { code: "bad_literal", at: 4, ctx: "top", start: 0, literal: "-Infinity" }],
  ["1.", {}, { code: "bad_number", at: 2, ctx: "top", start: 0, end: 1 }],
  ["[-01]", {}, { code: "bad_number", at: 3, ctx: "array", start: 1, end: 3 }],
  ["-Infinity", {}, { code: "bad_number", at: 1, ctx: "top", start: 0, end: 0 }],
  ["{1: 2}", {}, { code: "expected_key", at: 1, ctx: "object" }],
  ['{"a" 1}', {}, { code: "expected_colon", at: 5, ctx: "object" }],
  ["[nullx]", {}, {
    code: "expected_comma_or_close",
    at: 5,
    ctx: "array",
    prev: { kind: "literal", start: 1, end: 5 },
  }],
  ["[1,]", {}, { code: "trailing_comma", at: 3, ctx: "array", comma: 2 }],
  ['"\\x"', {}, { code: "bad_escape", at: 1, ctx: "top" }],
  ['"\\u12x4"', {}, { code: "bad_unicode_escape", at: 1, ctx: "top", bad: 5 }],
  ['"a\tb"', {}, { code: "control_char", at: 2, ctx: "top", start: 0 }],
  ["[[]] x", {}, { code: "trailing_data", at: 5, ctx: "top", prev: { kind: "array", start: 0, end: 4 } }],
  ["\ufeff1", {}, { code: "bom", at: 0, ctx: "top" }],
  ["[[1]]", { maxDepth: 1 }, { code: "too_deep", at: 1, ctx: "array", depth: 2 }],
];

Deno.test("json: scanJson reports every error code with its position and context", () => {
  const every: Record<JsonErrorCode, true> = {
    eof_value: true,
    eof_array: true,
    eof_object: true,
    eof_string: true,
    unexpected_char: true,
    bad_literal: true,
    bad_number: true,
    expected_key: true,
    expected_colon: true,
    expected_comma_or_close: true,
    trailing_comma: true,
    bad_escape: true,
    bad_unicode_escape: true,
    control_char: true,
    trailing_data: true,
    bom: true,
    too_deep: true,
  };
  assert.deepEqual(new Set(CODES.map(([, , e]) => e.code)), new Set(Object.keys(every)));
  for (const [input, opts, error] of CODES) assert.deepEqual(scanJson(input, opts), { error }, JSON.stringify(input));
});

Deno.test("json: scanJson values, options, and inputs too deep for a recursive parser", () => {
  const text = '{"a": [1, -2.5e1, "x\\u00e9\\ud83d\\ude00\\n", true, false, null], "__proto__": {}, "a": {}}';
  const v = scanJson(text);
  assert.ok("value" in v);
  assert.deepEqual(Object.keys(v.value as object), ["a", "__proto__"], "own keys, the first position of a repeat");
  assert.equal(JSON.stringify(v.value), JSON.stringify(JSON.parse(text)));
  assert.deepEqual(scanJson("[NaN, Infinity, -Infinity]", { nonFinite: true }), { value: [NaN, Infinity, -Infinity] });
  assert.deepEqual(scanJson("[[]]", { maxDepth: 2 }), { value: [[]] });
  const depth = 100_000;
  const deep = scanJson("[".repeat(depth) + "]".repeat(depth));
  assert.ok("value" in deep);
  assert.deepEqual(scanJson("[".repeat(depth)), {
    error: { code: "eof_array", at: depth, ctx: "array", expect: "value_or_close" },
  });
  const big = JSON.stringify({ s: "é😀\n".repeat(50_000), n: Array.from({ length: 50_000 }, (_, i) => i / 4) });
  assert.deepEqual(scanJson(big), { value: JSON.parse(big) });
});
