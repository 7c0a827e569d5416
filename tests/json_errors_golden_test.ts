/**
 * The JSON parse errors three runtimes give, from one scanner: the golden table (`tests/golden/json_errors.ts`) of
 * what `pyJsonLoads` (CPython 3.11/3.12 `json.loads`), `serdeParse` (serde_json, for goose) and `jscJsonError` (Bun's
 * JavaScriptCore, for opencode) return. Every Python row is also run through a real python3; serde_json and JSC are
 * not run here.
 */
import assert from "node:assert/strict";
import { pyJsonLoads } from "../lib/harness/lang/python_text.ts";
import { serdeParse } from "../profiles/goose/args.ts";
import { jscJsonError } from "../profiles/opencode/json_error.ts";
import { ROWS } from "./golden/json_errors.ts";

/** A value as `json.dumps(v, separators=(",", ":"))` writes it (ASCII, NaN/Infinity bare), JS number formatting. */
function show(v: unknown): string {
  const bare = (n: number) => `\u0000${n}\u0000`; // a non-finite number, unquoted below
  return JSON.stringify(v, (_, x) => typeof x === "number" && !Number.isFinite(x) ? bare(x) : x)
    .replace(/"\\u0000(NaN|-?Infinity)\\u0000"/g, "$1")
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const out = (r: { value: unknown } | { error: string }) => "error" in r ? r.error : `ok ${show(r.value)}`;

Deno.test("json: the golden table of CPython, serde_json and JavaScriptCore parse errors", () => {
  assert.ok(ROWS.length >= 40);
  for (const [input, py, serde, jsc] of ROWS) {
    const at = JSON.stringify(input.length > 60 ? input.slice(0, 60) + "…" : input);
    assert.equal(out(pyJsonLoads(input)), py, `pyJsonLoads(${at})`);
    assert.equal(out(serdeParse(input)), serde, `serdeParse(${at})`);
    assert.equal(jscJsonError(input), jsc, `jscJsonError(${at})`);
  }
});

// --- the Python column against a real CPython ---------------------------------------------------------------------

const CI = Boolean(Deno.env.get("CI"));

/** The `major.minor` of the python3 on PATH, or undefined when there is none. */
async function pythonVersion(): Promise<string | undefined> {
  try {
    const r = await new Deno.Command("python3", {
      args: ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
      stdout: "piped",
      stderr: "null",
    }).output();
    return r.success ? new TextDecoder().decode(r.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

const PY_VERSION = await pythonVersion();

/** Runs every input through the real `json.loads`; the same `out` text per row (integral floats written as ints). */
const REAL_LOADS = `
import json, math, sys
def norm(v):
    if isinstance(v, float) and math.isfinite(v) and v == int(v) and abs(v) < 1e16: return int(v)
    if isinstance(v, list): return [norm(x) for x in v]
    if isinstance(v, dict): return {k: norm(x) for k, x in v.items()}
    return v
def run(s):
    try: return "ok " + json.dumps(norm(json.loads(s)), separators=(",", ":"))
    except (json.JSONDecodeError, RecursionError) as e: return str(e)
print(json.dumps([run(s) for s in json.loads(sys.stdin.read())]))
`;

Deno.test({
  name: "json: every Python row is what the real CPython json.loads says",
  ignore: !PY_VERSION && !CI,
  fn: async () => {
    assert.ok(PY_VERSION, "python3 is needed to check the CPython rows (it is required in CI)");
    const child = new Deno.Command("python3", { args: ["-c", REAL_LOADS], stdin: "piped", stdout: "piped" }).spawn();
    const w = child.stdin.getWriter();
    const ascii = JSON.stringify(ROWS.map((r) => r[0]))
      .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    await w.write(new TextEncoder().encode(ascii));
    await w.close();
    const r = await child.output();
    assert.ok(r.success);
    const real = JSON.parse(new TextDecoder().decode(r.stdout)) as string[];
    // 3.13 words a trailing comma `Illegal trailing comma before end of object/array` (at the comma) and nests deeper
    // before a RecursionError; the table is 3.11/3.12's.
    const exact = PY_VERSION === "3.11" || PY_VERSION === "3.12";
    const differs313 = (s: string) => /,\s*[}\]]/.test(s) || s.length > 1000;
    ROWS.forEach(([input, py], i) => {
      if (!exact && differs313(input)) return;
      assert.equal(real[i], py, `python${PY_VERSION} json.loads(${JSON.stringify(input.slice(0, 60))})`);
    });
  },
});
