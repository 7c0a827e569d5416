/** The turn script (turns.json) and how it advances per conversation. */
import { completionId, conversationKey, toolCallId } from "./ids.ts";

/** One scripted tool call; `arguments` is an object (serialised) or an already-serialised string. */
export interface ScriptToolCall {
  /** The tool's name. */
  name: string;
  /** Its arguments. */
  arguments: Record<string, unknown> | string;
}

/**
 * One scripted assistant turn: tool calls, or a text; `reasoning` (optional) is the model's thinking before it, which
 * the stub answers as `reasoning_content`, or in token mode as the model's own think block.
 */
export type Turn = ({ tool_calls: ScriptToolCall[] } | { content: string }) & { reasoning?: string };

/** A tool call as answered, with its generated id and serialised arguments. */
export interface ReplyToolCall {
  /** The generated call id (stable per conversation, turn and index). */
  id: string;
  /** The tool's name. */
  name: string;
  /** The serialised arguments. */
  arguments: string;
}

/** What the stub answers to one request. */
export interface Reply {
  /** The completion id. */
  id: string;
  /** The text, or null when the turn is tool calls. */
  content: string | null;
  /** The tool calls (empty for a text turn). */
  toolCalls: ReplyToolCall[];
  /** The script turn answered (0-based), or null for a side request or past the end. */
  turn: number | null;
  /** The turn's reasoning, or null. */
  reasoning: string | null;
}

/** The text a side request (no tools: a title, a summary) gets. */
export const SIDE_TEXT = "Untitled";
/** The text past the end of the script. */
export const DONE_TEXT = "Done.";

/** Parses and validates turns.json; throws an Error naming the turn and field. */
export function parseScript(text: string): Turn[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(data)) throw new Error("expected a JSON list of turns");
  return data.map((t, i) => parseTurn(t, i));
}

function parseTurn(t: unknown, i: number): Turn {
  const where = `turn ${i + 1}`;
  if (typeof t !== "object" || t === null || Array.isArray(t)) throw new Error(`${where}: expected an object`);
  const o = t as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => k !== "reasoning");
  if (keys.length !== 1 || !["tool_calls", "content"].includes(keys[0])) {
    throw new Error(`${where}: expected exactly one of "tool_calls" or "content", got ${JSON.stringify(keys)}`);
  }
  if ("reasoning" in o && typeof o.reasoning !== "string") throw new Error(`${where}: reasoning must be a string`);
  const reasoning = typeof o.reasoning === "string" ? { reasoning: o.reasoning } : {};
  if ("content" in o) {
    if (typeof o.content !== "string") throw new Error(`${where}: content must be a string`);
    return { content: o.content, ...reasoning };
  }
  if (!Array.isArray(o.tool_calls) || o.tool_calls.length === 0) {
    throw new Error(`${where}: tool_calls must be a non-empty list`);
  }
  return {
    ...reasoning,
    tool_calls: o.tool_calls.map((c: unknown, j: number) => {
      const cw = `${where}: tool_calls[${j}]`;
      if (typeof c !== "object" || c === null) throw new Error(`${cw}: expected an object`);
      const { name, arguments: args } = c as Record<string, unknown>;
      if (typeof name !== "string" || !name) throw new Error(`${cw}: name must be a non-empty string`);
      const okArgs = typeof args === "string" || (typeof args === "object" && args !== null && !Array.isArray(args));
      if (!okArgs) throw new Error(`${cw}: arguments must be an object or a string`);
      return { name, arguments: args as ScriptToolCall["arguments"] };
    }),
  };
}

/**
 * How the script advances. `requests` (for recording a harness): each request with tools takes its conversation's
 * next turn, and a request without tools is a side request. `history` (for running many identical episodes at
 * once, and text protocols): the turn is the number of assistant messages in the request; no side requests.
 */
export type Advance = "requests" | "history";

/**
 * Fills `{"$from_request": "REGEX"}` argument values from the request being answered: group 1 of the regex's last
 * match in the raw request body (a number when it is one), so a script can name what the harness drew at random
 * (codex's session ids). Unmatched, the value stays as written.
 */
export function fromRequest(v: unknown, request: string): unknown {
  if (Array.isArray(v)) return v.map((x) => fromRequest(x, request));
  if (typeof v !== "object" || v === null) return v;
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length === 1 && typeof o.$from_request === "string") {
    const all = [...request.matchAll(new RegExp(o.$from_request, "g"))];
    const got = all.at(-1)?.[1];
    if (got === undefined) return v;
    return /^-?\d+(\.\d+)?$/.test(got) ? Number(got) : got;
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, fromRequest(x, request)]));
}

/** The script with per-conversation positions. */
export class ScriptRunner {
  #turns: Turn[];
  #next = new Map<string, number>();
  #side = 0;

  /** `turns` is the parsed script; `advance` says how it moves (default requests). */
  constructor(turns: Turn[], readonly advance: Advance = "requests") {
    this.#turns = turns;
  }

  /**
   * The reply to a chat request `{messages, tools?}`; advances its conversation unless it is a side request. An API
   * whose `messages` stand for the conversation's key rather than its history (Responses, Messages) gives the number
   * of assistant turns its request holds as `assistantTurns`, which `history` advancing uses.
   */
  next(body: { messages: unknown[]; tools?: unknown; assistantTurns?: number }, request?: string): Reply {
    const key = conversationKey(body.messages);
    let n: number;
    if (this.advance === "history") {
      n = body.assistantTurns ?? body.messages.filter((m) => (m as { role?: unknown })?.role === "assistant").length;
    } else {
      if (!Array.isArray(body.tools) || body.tools.length === 0) {
        return {
          id: completionId(`side:${this.#side++}`, 0),
          content: SIDE_TEXT,
          toolCalls: [],
          turn: null,
          reasoning: null,
        };
      }
      n = this.#next.get(key) ?? 0;
    }
    return this.at(key, n, request);
  }

  /** The reply for turn `n` (0-based) of conversation `key`, found by the caller (e.g. from a token prompt). */
  at(key: string, n: number, request?: string): Reply {
    this.#next.set(key, Math.max(n + 1, this.#next.get(key) ?? 0));
    const id = completionId(key, n);
    const turn = this.#turns[n];
    if (!turn) return { id, content: DONE_TEXT, toolCalls: [], turn: null, reasoning: null };
    const reasoning = turn.reasoning ?? null;
    if ("content" in turn) return { id, content: turn.content, toolCalls: [], turn: n, reasoning };
    const toolCalls = turn.tool_calls.map((c, i) => ({
      id: toolCallId(key, n, i),
      name: c.name,
      arguments: typeof c.arguments === "string"
        ? c.arguments
        : JSON.stringify(fromRequest(c.arguments, request ?? "")),
    }));
    return { id, content: null, toolCalls, turn: n, reasoning };
  }

  /** How many requests with tools each conversation has made. */
  positions(): Map<string, number> {
    return new Map(this.#next);
  }
}
