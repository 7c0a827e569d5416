/**
 * Argument validation as gemini's SchemaValidator words it: Ajv (draft-07, `allErrors` off, no coercion) and
 * `errorsText(errors, {dataVar: "params"})`, so the first failing keyword is the message: `required` in its array's
 * order, then each property in schema order (`type`, then `minimum`), nested objects and array items included.
 */
import { ajvHasType } from "../../lib/harness/lang/ajv_types.ts";

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  enum?: unknown[];
};

/** Ajv's first error for `value` at `path` (a JSON pointer, "" for the root), or null. */
function check(schema: Schema, value: unknown, path: string): string | null {
  const at = `params${path}`;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => ajvHasType(t, value))) return `${at} must be ${types.join(",")}`;
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) return `${at} must be equal to one of the allowed values`; // (source)
  if (typeof value === "number" && schema.minimum !== undefined && !(value >= schema.minimum)) {
    return `${at} must be >= ${schema.minimum}`;
  }
  if (Array.isArray(value) && schema.items) {
    for (const [i, item] of value.entries()) {
      const e = check(schema.items, item, `${path}/${i}`);
      if (e) return e;
    }
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    for (const r of schema.required ?? []) {
      if (o[r] === undefined) return `${at} must have required property '${r}'`;
    }
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (o[k] === undefined) continue;
      const e = check(sub, o[k], `${path}/${k}`);
      if (e) return e;
    }
  }
  return null;
}

/** SchemaValidator.validate: null when the arguments conform, else Ajv's message. */
export function validateArgs(schema: Record<string, unknown>, args: unknown): string | null {
  if (typeof args !== "object" || args === null) return "Value of params must be an object"; // (source)
  return check(schema as Schema, args, "");
}
