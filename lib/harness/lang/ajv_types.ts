/** Ajv's JSON-schema `type` checks (its generated code's tests), for harnesses that validate arguments with Ajv. */

/** True when `v` has JSON-schema type `t` as Ajv tests it; an unknown type name passes. */
export function ajvHasType(t: string, v: unknown): boolean {
  switch (t) {
    case "string":
      return typeof v === "string";
    case "integer":
      // Ajv: `typeof x == "number" && !(x % 1) && !isNaN(x)`.
      return typeof v === "number" && !(v % 1) && !Number.isNaN(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    case "array":
      return Array.isArray(v);
  }
  return true;
}
