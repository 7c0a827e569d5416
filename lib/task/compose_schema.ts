/**
 * The Compose specification's JSON schema, checked with Ajv. `compose_spec.json` is
 * compose-spec/compose-spec@170098ba07d9f53c383a41bfd4c5166b0a4529a6:schema/compose-spec.json, laid out by `deno fmt` and
 * otherwise unchanged (Apache-2.0, the Compose Specification authors).
 */
import { Ajv, type ErrorObject } from "npm:ajv@8.20.0";
import spec from "./compose_spec.json" with { type: "json" };

/** The commit of compose-spec/compose-spec that `compose_spec.json` was taken from. */
export const COMPOSE_SPEC_COMMIT = "170098ba07d9f53c383a41bfd4c5166b0a4529a6";

let validator: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined;

function compiled() {
  if (!validator) {
    // The schema names its draft as https://json-schema.org/draft-07/schema, an id Ajv does not know; Ajv's default
    // is draft-07, so the name is dropped. `strict: false`: the schema carries keywords Ajv does not check.
    const { $schema: _draft, ...schema } = spec as Record<string, unknown>;
    validator = new Ajv({ allErrors: true, strict: false }).compile(schema);
  }
  return validator;
}

/** One schema violation: where (the path of keys into the document) and what the schema says. */
export interface SchemaProblem {
  /** Keys from the document's root, e.g. `["services", "web", "imag"]`. */
  path: string[];
  /** What is wrong, in one line (e.g. `unknown field (the Compose specification has no "imag")`). */
  message: string;
}

/**
 * Checks `data` (an interpolated Compose document) against the schema; `undefined` when it is valid, else the one
 * violation that says most: the deepest, an unknown field before a wrong type, a wrong type before a failed `oneOf`.
 */
export function checkComposeSchema(data: unknown): SchemaProblem | undefined {
  const v = compiled();
  if (v(data)) return undefined;
  const errors = v.errors ?? [];
  const rank = (e: ErrorObject) =>
    e.keyword === "additionalProperties" ? 0 : e.keyword === "required" ? 1 : e.keyword === "type" ? 2 : 3;
  const depth = (e: ErrorObject) =>
    pathOf(e).length + (e.keyword === "additionalProperties" || e.keyword === "required" ? 1 : 0);
  const best = [...errors].sort((a, b) => depth(b) - depth(a) || rank(a) - rank(b))[0];
  if (!best) return { path: [], message: "does not match the Compose specification" };
  return { path: pathOf(best), message: describe(best) };
}

function pathOf(e: ErrorObject): string[] {
  const keys = e.instancePath.split("/").slice(1).map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (e.keyword === "additionalProperties") keys.push(String(e.params.additionalProperty));
  return keys;
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case "additionalProperties":
      return `unknown field (the Compose specification has no "${e.params.additionalProperty}" here)`;
    case "required":
      return `missing required field "${e.params.missingProperty}"`;
    case "type":
      return `must be of type ${[e.params.type].flat().join(" or ")}`;
    case "enum":
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${e.message ?? "is invalid"} (the Compose specification)`;
  }
}
