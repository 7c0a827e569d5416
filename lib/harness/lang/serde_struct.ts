/**
 * `serde_json::from_str::<T>` for a flat struct `T`: syntax errors as serde_json words them (json_serde.ts), then the
 * struct's own checks with serde's positions: a wrong type is reported just after the offending value, a missing
 * field just after the closing brace, each as `… at line L column C` (C counts UTF-8 bytes). Members are checked in
 * the text's order; unknown members are ignored (no `deny_unknown_fields`). Messages follow serde's `de::Error`
 * texts (`invalid type: integer \`5\`, expected a string`, `missing field \`cmd\``, `duplicate field \`cmd\``).
 * A top level that is not an object is approx. (serde would also try a sequence as the struct's fields in order).
 */
import { serdeParse } from "./json_serde.ts";

/** A field of the struct: its name, its Rust type and whether it may be absent (`#[serde(default)]`, `Option`). */
export interface SerdeField {
  /** The field's name. */
  name: string;
  /** The Rust type serde expects (an `Option<…>` also takes `null`). */
  type: "String" | "bool" | "u64" | "i32" | "usize" | "Vec<String>";
  /** Absent is fine (a default or an `Option`). */
  optional?: boolean;
  /** `null` is fine (an `Option`). */
  nullable?: boolean;
}

/** serde's `Unexpected` display of a JSON value (`integer \`5\``, `string "x"`, `map`, ...). */
export function serdeUnexpected(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return `boolean \`${v}\``;
  if (typeof v === "number") return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return Array.isArray(v) ? "sequence" : "map";
}

const EXPECTED: Record<SerdeField["type"], string> = {
  String: "a string",
  bool: "a boolean",
  u64: "u64",
  i32: "i32",
  usize: "usize",
  "Vec<String>": "a sequence",
};

const RANGE: Partial<Record<SerdeField["type"], [number, number]>> = {
  u64: [0, Number.MAX_SAFE_INTEGER],
  usize: [0, Number.MAX_SAFE_INTEGER],
  i32: [-(2 ** 31), 2 ** 31 - 1],
};

function typeError(f: SerdeField, v: unknown): string | undefined {
  if (v === null && f.nullable) return;
  const want = EXPECTED[f.type];
  if (f.type === "String") {
    return typeof v === "string" ? undefined : `invalid type: ${serdeUnexpected(v)}, expected ${want}`;
  }
  if (f.type === "bool") {
    return typeof v === "boolean" ? undefined : `invalid type: ${serdeUnexpected(v)}, expected ${want}`;
  }
  if (f.type === "Vec<String>") {
    if (!Array.isArray(v)) return `invalid type: ${serdeUnexpected(v)}, expected ${want}`;
    const bad = v.find((x) => typeof x !== "string");
    return bad === undefined ? undefined : `invalid type: ${serdeUnexpected(bad)}, expected a string`;
  }
  if (typeof v !== "number" || !Number.isInteger(v)) return `invalid type: ${serdeUnexpected(v)}, expected ${want}`;
  const [lo, hi] = RANGE[f.type]!;
  if (v < lo || v > hi) return `invalid value: ${serdeUnexpected(v)}, expected ${want}`;
}

/** The end (code-unit index just after) of the JSON value starting at `i` in valid JSON text. */
function valueEnd(t: string, i: number): number {
  if (t[i] === '"') {
    for (let k = i + 1; k < t.length; k++) {
      if (t[k] === "\\") k++;
      else if (t[k] === '"') return k + 1;
    }
    return t.length;
  }
  if (t[i] === "{" || t[i] === "[") {
    let depth = 0;
    for (let k = i; k < t.length; k++) {
      const c = t[k];
      if (c === '"') k = valueEnd(t, k) - 1;
      else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") { if (--depth === 0) return k + 1; }
    }
    return t.length;
  }
  let k = i;
  while (k < t.length && !/[\s,}\]]/.test(t[k])) k++;
  return k;
}

const skipWs = (t: string, i: number) => {
  while (i < t.length && /\s/.test(t[i])) i++;
  return i;
};

/** Each top-level member of a valid JSON object text: its key and where its value ends; and where the object ends. */
function members(t: string): { keys: { key: string; start: number; end: number }[]; close: number } {
  const keys: { key: string; start: number; end: number }[] = [];
  let i = skipWs(t, 0) + 1;
  for (;;) {
    i = skipWs(t, i);
    if (t[i] === "}") return { keys, close: i + 1 };
    const kEnd = valueEnd(t, i);
    const key = JSON.parse(t.slice(i, kEnd)) as string;
    i = skipWs(t, kEnd) + 1; // the colon
    i = skipWs(t, i);
    const end = valueEnd(t, i);
    keys.push({ key, start: i, end });
    i = skipWs(t, end);
    if (t[i] === ",") i++;
  }
}

function at(t: string, pos: number): string {
  const before = t.slice(0, pos);
  const line = before.split("\n").length;
  const col = new TextEncoder().encode(before.slice(before.lastIndexOf("\n") + 1)).length;
  return `line ${line} column ${col}`;
}

/** Deserialises `raw` into the struct of `fields` named `struct`: the value, or serde_json's error text. */
export function serdeFromStr(
  raw: string,
  fields: SerdeField[],
  struct: string,
): { value: Record<string, unknown> } | { error: string } {
  const parsed = serdeParse(raw);
  if ("error" in parsed) return parsed;
  const v = parsed.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return {
      error: `invalid type: ${serdeUnexpected(v)}, expected struct ${struct} at ${at(raw, raw.trimEnd().length)}`,
    };
  }
  const { keys, close } = members(raw);
  const seen = new Set<string>();
  for (const { key, start, end } of keys) {
    const f = fields.find((x) => x.name === key);
    if (!f) continue;
    if (seen.has(key)) return { error: `duplicate field \`${key}\` at ${at(raw, end)}` };
    seen.add(key);
    const err = typeError(f, JSON.parse(raw.slice(start, end)));
    if (err) return { error: `${err} at ${at(raw, end)}` };
  }
  for (const f of fields) {
    if (!f.optional && !seen.has(f.name)) return { error: `missing field \`${f.name}\` at ${at(raw, close)}` };
  }
  return { value: v as Record<string, unknown> };
}
