/** The env server's request bodies, checked: each bad one an HttpError (a 4xx naming the field), never a 500. */
import { isAbsolute, resolve } from "node:path";
import type { Context } from "npm:hono@4.13.19";
import { pickRow, rowProblem } from "./row_check.ts";
import type { EnvRow } from "./harbor_env.ts";
import type { AssistantTurn } from "../harness/profile_episode.ts";

/** A token step's body: the completion's ids and, optionally, one logprob per id. */
export function parseTokenStep(body: Record<string, unknown>): { ids: number[]; logprobs?: number[] } {
  const ids = body.completion_token_ids;
  if (!Array.isArray(ids) || ids.length === 0) {
    throw new HttpError(
      400,
      "invalid_request",
      "token mode: completion_token_ids must be a non-empty list of token ids (the sampled completion, end-of-turn " +
        "token included)",
    );
  }
  const bad = ids.findIndex((x) => !(Number.isInteger(x) && x >= 0));
  if (bad >= 0) {
    const value = JSON.stringify(ids[bad]);
    const msg = `token mode: completion_token_ids[${bad}] = ${value} is not a token id (a non-negative integer)`;
    throw new HttpError(400, "invalid_request", msg);
  }
  const lp = body.logprobs;
  if (lp === undefined || lp === null) return { ids };
  if (!Array.isArray(lp) || lp.length !== ids.length || !lp.every((x) => typeof x === "number")) {
    throw new HttpError(400, "invalid_request", "logprobs must be a list of numbers, one per completion token");
  }
  return { ids, logprobs: lp };
}

/** The statuses the server answers errors with. */
export type Status = 400 | 401 | 404 | 409 | 429 | 500 | 503;

/** An error answered as `{"error": {type, message}}` with its status. */
export class HttpError extends Error {
  constructor(readonly status: Status, readonly type: string, message: string) {
    super(message);
  }
}

/** A create or warm body's row (`row`, else the body itself), checked; a relative folder must exist. */
export function parseRow(body: Record<string, unknown>): EnvRow {
  const r = (body.row ?? body) as Record<string, unknown>;
  if (!r || typeof r !== "object" || Array.isArray(r)) {
    throw new HttpError(400, "invalid_request", "row must be an object");
  }
  const problem = rowProblem(r);
  if (problem) throw new HttpError(400, "invalid_request", `row.${problem}`);
  const dir = r.task_dir as string;
  if (!isAbsolute(dir) && !isDir(dir)) {
    // The server's folder is not the trainer's: say which one a relative path met.
    throw new HttpError(
      400,
      "invalid_request",
      `row.task_dir ${JSON.stringify(dir)} is relative: resolved against the server's folder ${Deno.cwd()}, where ` +
        `${resolve(dir)} does not exist; send an absolute path`,
    );
  }
  return pickRow(r);
}

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** A step body's assistant message (`message`, else the body itself): content, tool calls, reasoning. */
export function parseTurn(body: Record<string, unknown>): AssistantTurn {
  const m = (body.message ?? body) as Record<string, unknown>;
  if (m.content !== undefined && m.content !== null && typeof m.content !== "string") {
    throw new HttpError(400, "invalid_request", "content must be a string or null");
  }
  const turn: AssistantTurn = { content: (m.content as string | null | undefined) ?? null };
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) throw new HttpError(400, "invalid_request", "tool_calls must be a list");
    turn.tool_calls = m.tool_calls.map((c, i) => {
      const f = c?.function;
      if (!f || typeof f.name !== "string") {
        throw new HttpError(400, "invalid_request", `tool_calls[${i}].function.name must be a string`);
      }
      const args = f.arguments;
      return {
        id: typeof c.id === "string" && c.id ? c.id : `call_${i}`,
        type: "function" as const,
        function: { name: f.name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) },
      };
    });
  }
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (typeof reasoning === "string" && reasoning) turn.reasoning_content = reasoning;
  if (typeof m.finish_reason === "string") turn.finish_reason = m.finish_reason;
  return turn;
}

/** The request's JSON object (an empty body is `{}`); 400 `invalid_json` otherwise. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, "invalid_json", `request body is not JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    throw new HttpError(400, "invalid_json", "request body must be a JSON object");
  }
  return v as Record<string, unknown>;
}
