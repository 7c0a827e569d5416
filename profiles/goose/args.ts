/**
 * goose's argument handling: the provider parses the call's argument text with serde_json (its errors name a line and
 * a byte column), and the developer extension deserialises the object into its params struct (`serde_json::from_value`,
 * whose errors have no position). Messages follow serde_json's `ErrorCode` Display texts; json_serde.ts reproduces
 * the common cases (approx. for exotic inputs, e.g. number overflow or surrogate escapes).
 */

// serde_json's parse errors come from the shared JSON scanner (lib/harness/lang/json_serde.ts).
export { serdeParse } from "../../lib/harness/lang/json_serde.ts";
import { serdeUnexpected } from "../../lib/harness/lang/serde_struct.ts";

/** A params struct field: its name, the Rust type serde expects, and whether it may be absent. */
export interface Field {
  name: string;
  type: "string" | "u64" | "u32" | "option_u64";
  optional?: boolean;
}

/** `serde_json::from_value` into a struct of `fields`: the first error's text, or undefined when it deserialises. */
export function fromValue(args: Record<string, unknown>, fields: Field[]): string | undefined {
  // Entries are visited in the map's order (insertion order assumed; approx.), then missing fields are reported.
  for (const [k, v] of Object.entries(args)) {
    const f = fields.find((x) => x.name === k);
    if (!f) continue;
    if (f.type === "string") {
      if (typeof v !== "string") return `invalid type: ${serdeUnexpected(v)}, expected a string`;
      continue;
    }
    if (f.type === "option_u64" && v === null) continue;
    const bits = f.type === "u32" ? "u32" : "u64";
    const max = bits === "u32" ? 0xffffffff : Number.MAX_SAFE_INTEGER;
    if (typeof v !== "number" || !Number.isInteger(v)) return `invalid type: ${serdeUnexpected(v)}, expected ${bits}`;
    if (v < 0 || v > max) return `invalid value: ${serdeUnexpected(v)}, expected ${bits}`;
  }
  for (const f of fields) if (!f.optional && !(f.name in args)) return `missing field \`${f.name}\``;
}
