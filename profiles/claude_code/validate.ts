/**
 * claude-code 2.1.332's check of a call's input against the tool's schema, in its words (recorded in
 * tests/golden/claude-code/episode: a missing and an unexpected parameter, a number or an object where a string
 * belongs): `<tool_use_error>InputValidationError: Read failed due to the following issues:` and one line per issue,
 * the schema's parameters in order, then the unexpected ones.
 */
import { approx } from "../../lib/harness/provenance.ts";
import type { ToolSchema } from "../../lib/harness/types.ts";

/** Wraps a validation or tool error the way claude-code marks them. */
export const toolUseError = (s: string) => `<tool_use_error>${s}</tool_use_error>`;

/** The type name claude-code gives a JSON value ("number", "string", "object", ...). */
function typeName(v: unknown): string {
  if (v === null) return approx("null");
  if (Array.isArray(v)) return approx("array");
  return typeof v;
}

function fits(type: unknown, v: unknown): boolean {
  if (type === "integer" || type === "number") return typeof v === "number";
  if (type === "array") return Array.isArray(v);
  if (type === "object") return typeof v === "object" && v !== null && !Array.isArray(v);
  const actual: string = typeof v;
  return actual === type;
}

/** The issues of `args` against `schema`'s parameters (empty when the input is valid). */
export function inputIssues(schema: ToolSchema, args: Record<string, unknown>): string[] {
  const params = schema.function.parameters as { properties?: Record<string, { type?: string }>; required?: string[] };
  const props = params.properties ?? {};
  const required = new Set(params.required ?? []);
  const issues: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    if (!(name in args) || args[name] === undefined) {
      if (required.has(name)) issues.push(`The required parameter \`${name}\` is missing`);
      continue;
    }
    const expected = p.type === "integer" ? "number" : p.type;
    if (p.type && !fits(p.type, args[name])) {
      issues.push(
        `The parameter \`${name}\` type is expected as \`${expected}\` but provided as \`${typeName(args[name])}\``,
      );
    } else if (p.type === "integer" && !Number.isInteger(args[name])) {
      issues.push(approx(`The parameter \`${name}\` type is expected as \`integer\` but provided as \`number\``));
    }
  }
  for (const name of Object.keys(args)) {
    if (!(name in props)) issues.push(`An unexpected parameter \`${name}\` was provided`);
  }
  return issues;
}

/** The InputValidationError result for a call, or undefined when its input is valid. */
export function inputError(schema: ToolSchema, args: Record<string, unknown>): string | undefined {
  const issues = inputIssues(schema, args);
  if (!issues.length) return undefined;
  const head = `InputValidationError: ${schema.function.name} failed due to the following issue${
    issues.length > 1 ? "s" : ""
  }:`;
  return toolUseError([head, ...issues].join("\n"));
}
