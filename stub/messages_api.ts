/** Anthropic Messages API (`POST /v1/messages`, as claude-code sends it): answered from the script, whole or as SSE. */
import type { ScriptRunner } from "../lib/script/script.ts";
import { argumentPieces, contentPieces, usageFor } from "./sse.ts";
import { eventStream, idHex, type NamedEvent } from "./responses_api.ts";

/** An Anthropic-style error response. */
function error(message: string, status: 400 | 500): Response {
  const type = status === 400 ? "invalid_request_error" : "api_error";
  return Response.json({ type: "error", error: { type, message } }, { status });
}

/** A copy of `v` without `cache_control` keys (claude-code moves them between requests of one conversation). */
function withoutCacheControl(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutCacheControl);
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(
    Object.entries(v).filter(([k]) => k !== "cache_control").map(([k, x]) => [k, withoutCacheControl(x)]),
  );
}

/** A content string as one text block, so `"hi"` and `[{type:"text",text:"hi"}]` key the same conversation. */
function asBlocks(content: unknown): unknown {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Answers `/v1/messages`. */
export class MessagesApi {
  #script: ScriptRunner;
  #model: string;

  constructor(script: ScriptRunner, model: string) {
    this.#script = script;
    this.#model = model;
  }

  /** The answer to a recorded body (`body` is the parsed object, or why it could not be parsed). */
  answer(bytes: Uint8Array, body: Record<string, unknown> | string): Response {
    if (typeof body === "string") return error(body, 400);
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return error("messages must be a non-empty list", 400);
    }
    // The conversation: its system prompt and first message, without cache markers (tagged: never a chat key).
    const first = body.messages[0] as Record<string, unknown>;
    const key = withoutCacheControl([
      { api: "messages", system: asBlocks(body.system ?? null) },
      typeof first === "object" && first !== null ? { ...first, content: asBlocks(first.content) } : first,
    ]) as unknown[];
    const assistantTurns = body.messages.filter((m) => (m as { role?: unknown })?.role === "assistant").length;
    const reply = this.#script.next(
      { messages: key, tools: body.tools, assistantTurns },
      new TextDecoder().decode(bytes),
    );
    const content: Record<string, unknown>[] = [];
    if (reply.content !== null) content.push({ type: "text", text: reply.content });
    for (const c of reply.toolCalls) {
      let input: unknown;
      try {
        input = JSON.parse(c.arguments);
      } catch { /* reported below */ }
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        const msg = `pgs harness serve: script turn ${reply.turn! + 1}: the arguments of ${c.name} ` +
          `(${c.arguments}) are not a JSON object, which a Messages API tool_use input must be`;
        return error(msg, 500);
      }
      content.push({ type: "tool_use", id: `toolu_${idHex(c.id)}`, name: c.name, input });
    }
    const stop_reason = reply.toolCalls.length ? "tool_use" : "end_turn";
    const u = usageFor(bytes.length, reply);
    const usage = {
      input_tokens: u.prompt_tokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: u.completion_tokens,
    };
    const message = {
      id: `msg_${idHex(reply.id)}`,
      type: "message",
      role: "assistant",
      model: typeof body.model === "string" && body.model ? body.model : this.#model,
      content,
      stop_reason,
      stop_sequence: null,
      usage,
    };
    if (body.stream !== true) return Response.json(message);
    return eventStream(messageEvents(message));
  }
}

/** The streamed events of a message, in order, as Anthropic sends them. */
export function messageEvents(message: Record<string, unknown>): NamedEvent[] {
  const events: NamedEvent[] = [];
  const add = (type: string, data: Record<string, unknown> = {}) =>
    events.push({ event: type, data: { type, ...data } });
  const usage = message.usage as Record<string, number>;
  add("message_start", {
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  add("ping");
  (message.content as Record<string, unknown>[]).forEach((block, index) => {
    if (block.type === "text") {
      add("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of contentPieces(block.text as string)) {
        add("content_block_delta", { index, delta: { type: "text_delta", text } });
      }
    } else {
      add("content_block_start", { index, content_block: { ...block, input: {} } });
      for (const partial_json of argumentPieces(JSON.stringify(block.input))) {
        add("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
      }
    }
    add("content_block_stop", { index });
  });
  add("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  add("message_stop");
  return events;
}

/** Folds streamed event payloads back into the message a client would assemble from deltas (tests, checks). */
export function assembleMessageEvents(events: Record<string, unknown>[]): Record<string, unknown> {
  let message: Record<string, unknown> = {};
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  for (const e of events) {
    const i = e.index as number;
    const d = (e.delta ?? {}) as Record<string, unknown>;
    if (e.type === "message_start") message = structuredClone(e.message as Record<string, unknown>);
    else if (e.type === "content_block_start") {
      blocks[i] = structuredClone(e.content_block as Record<string, unknown>);
      json[i] = "";
    } else if (e.type === "content_block_delta" && d.type === "text_delta") {
      blocks[i].text = (blocks[i].text as string) + (d.text as string);
    } else if (e.type === "content_block_delta" && d.type === "input_json_delta") json[i] += d.partial_json as string;
    else if (e.type === "content_block_stop" && blocks[i].type === "tool_use") blocks[i].input = JSON.parse(json[i]);
    else if (e.type === "message_delta") {
      Object.assign(message, d);
      message.usage = { ...(message.usage as object), ...(e.usage as object) };
    }
  }
  message.content = blocks;
  return message;
}
