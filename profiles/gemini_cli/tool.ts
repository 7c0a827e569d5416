/**
 * The tool factory: a call runs as gemini's scheduler runs it. `build` validates the arguments against the schema
 * (SchemaValidator) and the tool's own `validateToolParamValues`; a failure, or an error the tool returns, becomes
 * `{"error": message}`; a result becomes `{"output": llmContent}`. In chat form the tool message's content is that
 * object as JSON (conformance's wire_to_chat reads a functionResponse the same way).
 */
import type { ParsedCall, Session, ToolSchema, ToolSpec } from "../../lib/harness/types.ts";
import { loopStopsHere } from "./loop.ts";
import { DESCRIPTIONS } from "./schemas.ts";
import { validateArgs } from "./validate.ts";

/** A call's arguments, as parsed from the model's JSON. */
export type Args = Record<string, unknown>;

/** What a tool gives back: llmContent, or the error message of a failed call. */
export type Outcome = { output: string } | { error: string };

/** A successful result. */
export const ok = (output: string): Outcome => ({ output });
/** A failed call: its `error.message`. */
export const fail = (error: string): Outcome => ({ error });
/** The value if it is a string, else "". */
export const str = (v: unknown): string => typeof v === "string" ? v : "";

/** The functionResponse's `response` object, as the tool message's content. */
export function respond(r: Outcome): string {
  return JSON.stringify("error" in r ? { error: r.error } : { output: r.output });
}

/** One tool: its name, parameter schema, build-time checks and body. */
export interface ToolDef {
  /** The tool's name. */
  name: keyof typeof DESCRIPTIONS;
  /** The recorded `parametersJsonSchema`. */
  params: Record<string, unknown>;
  /** validateToolParamValues: an error message, or null when the call may run. */
  check?: (s: Session, a: Args) => Promise<string | null>;
  /** The policy engine's verdict after a valid build: a denial message, or null (default: every call allowed). */
  policy?: (s: Session, a: Args) => Promise<string | null>;
  /** The invocation's `execute`. */
  exec: (s: Session, a: Args, call: ParsedCall) => Promise<Outcome>;
}

/** A ToolSpec that runs a call the way gemini's scheduler does. */
export function geminiTool(d: ToolDef): ToolSpec {
  const schema: ToolSchema = {
    type: "function",
    function: { name: d.name, description: DESCRIPTIONS[d.name], parameters: d.params },
  };
  return {
    schema,
    async bind(s, args, call) {
      // A second loop detection stops the run ("Loop detected, stopping execution"): nothing runs, no answer.
      if (loopStopsHere(s)) {
        s.stop(null);
        return "";
      }
      const bad = validateArgs(d.params, args) ?? await d.check?.(s, args) ?? await d.policy?.(s, args) ?? null;
      if (bad !== null) return respond(fail(bad));
      return respond(await d.exec(s, args, call));
    },
  };
}
