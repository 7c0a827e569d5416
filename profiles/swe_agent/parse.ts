/**
 * FunctionCallingParser (`__call__`, `_parse_tool_call`) and the blocklist: what SWE-agent rejects before anything
 * runs, one call per turn first. Upstream re-asks the model with a temporary user message and drops the rejected turn
 * and the message once a turn parses; here both stay in the history, because rollouts are token-exact (the policy
 * was trained on what it was sent).
 */
import type { ParsedCall, ToolSpec } from "../../lib/harness/types.ts";
import { blockedMessage, MULTIPLE_CALLS, parseError, shouldBlock, unexpectedArgError } from "./messages.ts";
import { pyStr } from "./py.ts";

/** `json.loads` of the raw arguments; anything but an object is not something the parser can use. */
export function parseArguments(raw: string): { args: Record<string, unknown> } | { error: string } {
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return { args: v };
    // Upstream then fails on `values.keys()` with an AttributeError (approx.: worded as invalid JSON).
    return { error: "not an object" };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The bash action as SWE-agent builds it: the `command` value unquoted, stripped. */
export function bashAction(args: Record<string, unknown>): string {
  const v = args.command;
  return (v === null || v === undefined ? "" : pyStr(v)).trim();
}

/** The first call of the turn SWE-agent would reject, worded as its requery message; undefined when all parse. */
export function validateTurn(calls: ParsedCall[], tools: ToolSpec[]): string | undefined {
  // `len(tool_calls) != 1` is rejected before any call is parsed: none of a multi-call turn runs.
  if (calls.length > 1) return MULTIPLE_CALLS;
  for (const c of calls) {
    const spec = tools.find((t) => t.schema.function.name === c.name);
    if (!spec) return parseError(`Command '${c.name}' not found in list of available commands.`);
    if (c.args === null) return parseError("Tool call arguments are not valid JSON.");
    const params = spec.schema.function.parameters as { properties?: Record<string, unknown>; required?: string[] };
    const names = Object.keys(params.properties ?? {});
    // Upstream joins Python sets: with several names their order is hash order (approx.: schema / call order).
    const missing = (params.required ?? []).filter((n) => !(n in c.args!));
    if (missing.length) return parseError(`Required argument(s) missing: ${missing.join(", ")}`);
    const extra = Object.keys(c.args).filter((k) => !names.includes(k));
    if (extra.length) return unexpectedArgError(`Unexpected argument(s): ${extra.join(", ")}`);
    if (c.name === "bash" && shouldBlock(bashAction(c.args))) return blockedMessage(bashAction(c.args));
  }
  return undefined;
}
