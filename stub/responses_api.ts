/** OpenAI Responses API (`POST /v1/responses`, as codex sends it): answered from the script, whole or as SSE events. */
import type { Reply, ScriptRunner } from "../lib/script/script.ts";
import { argumentPieces, contentPieces, usageFor } from "./sse.ts";

/** One server-sent event with an `event:` name and a JSON `data:` line. */
export interface NamedEvent {
  event: string;
  data: Record<string, unknown>;
}

/** The SSE body of named events: `event: NAME` + `data: JSON` per event (no `[DONE]`). */
export function eventStream(events: NamedEvent[]): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < events.length) {
        const e = events[i++];
        controller.enqueue(enc.encode(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`));
      } else controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

/** The 24 hex digits of a reply or tool-call id (`chatcmpl-HEX`, `call_HEX`), reused for this API's own ids. */
export function idHex(id: string): string {
  return id.slice(id.search(/[-_]/) + 1);
}

/** An OpenAI-style error response. */
function error(message: string, status: 400 | 500): Response {
  const type = status === 400 ? "invalid_request_error" : "server_error";
  return Response.json({ error: { message, type, param: null, code: null } }, { status });
}

/** The `output` items of a reply: one `message` item with `output_text`, or one `function_call` item per call. */
export function responseOutput(reply: Reply): Record<string, unknown>[] {
  if (reply.content !== null) {
    return [{
      id: `msg_${idHex(reply.id)}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.content, annotations: [] }],
    }];
  }
  return reply.toolCalls.map((c) => ({
    id: `fc_${idHex(c.id)}`,
    type: "function_call",
    status: "completed",
    call_id: c.id,
    name: c.name,
    arguments: c.arguments,
  }));
}

/** The assistant turns in a Responses `input`: runs of output items (calls, assistant messages, reasoning). */
function inputTurns(input: unknown[]): number {
  let turns = 0, inTurn = false;
  for (const item of input) {
    const o = (item ?? {}) as { type?: unknown; role?: unknown };
    const out = o.type === "function_call" || o.type === "reasoning" || o.role === "assistant";
    if (out && !inTurn) turns++;
    inTurn = out;
  }
  return turns;
}

/** Answers `/v1/responses`; keeps which conversation each answered response id belongs to (`previous_response_id`). */
export class ResponsesApi {
  #script: ScriptRunner;
  #model: string;
  #convo = new Map<string, unknown[]>();
  #turns = new Map<string, number>();

  constructor(script: ScriptRunner, model: string) {
    this.#script = script;
    this.#model = model;
  }

  /** The answer to a recorded body (`body` is the parsed object, or why it could not be parsed). */
  answer(bytes: Uint8Array, body: Record<string, unknown> | string): Response {
    if (typeof body === "string") return error(body, 400);
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    if (!Array.isArray(input) || input.length === 0 || body.input === "") {
      return error("input must be a non-empty string or a non-empty list of input items", 400);
    }
    const prev = typeof body.previous_response_id === "string" ? this.#convo.get(body.previous_response_id) : undefined;
    if (typeof body.previous_response_id === "string" && !prev) {
      return error(`previous_response_id ${JSON.stringify(body.previous_response_id)} is unknown to the stub`, 400);
    }
    // The conversation: its instructions and first input item (tagged so it never equals a chat conversation).
    const key = prev ?? [{ api: "responses", instructions: body.instructions ?? null }, input[0]];
    // History advancing: the turns before `previous_response_id` (kept here) plus those the input carries itself.
    const before = typeof body.previous_response_id === "string" ? this.#turns.get(body.previous_response_id)! : 0;
    const assistantTurns = before + inputTurns(input);
    const reply = this.#script.next(
      { messages: key, tools: body.tools, assistantTurns },
      new TextDecoder().decode(bytes),
    );
    const id = `resp_${idHex(reply.id)}`;
    this.#convo.set(id, key);
    this.#turns.set(id, assistantTurns + 1);
    const model = typeof body.model === "string" && body.model ? body.model : this.#model;
    const u = usageFor(bytes.length, reply);
    const usage = {
      input_tokens: u.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: u.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: u.total_tokens,
    };
    const output = responseOutput(reply);
    const response = (status: string, out: unknown[], use: unknown) => ({
      id,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      model,
      output: out,
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      reasoning: body.reasoning ?? { effort: null, summary: null },
      store: body.store ?? true,
      temperature: body.temperature ?? 1,
      text: body.text ?? { format: { type: "text" } },
      tool_choice: body.tool_choice ?? "auto",
      tools: body.tools ?? [],
      top_p: body.top_p ?? 1,
      truncation: body.truncation ?? "disabled",
      usage: use,
      user: null,
      metadata: body.metadata ?? {},
    });
    if (body.stream !== true) return Response.json(response("completed", output, usage));
    return eventStream(responseEvents(output, response("in_progress", [], null), response("completed", output, usage)));
  }
}

/** The streamed events of a response, in order, each with its `sequence_number`. */
export function responseEvents(
  output: Record<string, unknown>[],
  started: Record<string, unknown>,
  completed: Record<string, unknown>,
): NamedEvent[] {
  const events: NamedEvent[] = [];
  const add = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  add("response.created", { response: started });
  add("response.in_progress", { response: started });
  output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      const part = (item.content as Record<string, unknown>[])[0];
      const text = part.text as string;
      add("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      const where = { item_id, output_index, content_index: 0 };
      add("response.content_part.added", { ...where, part: { ...part, text: "" } });
      for (const delta of contentPieces(text)) add("response.output_text.delta", { ...where, delta, logprobs: [] });
      add("response.output_text.done", { ...where, text, logprobs: [] });
      add("response.content_part.done", { ...where, part });
    } else {
      const args = item.arguments as string;
      add("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of argumentPieces(args)) {
        add("response.function_call_arguments.delta", { item_id, output_index, delta });
      }
      add("response.function_call_arguments.done", { item_id, output_index, arguments: args });
    }
    add("response.output_item.done", { output_index, item });
  });
  add("response.completed", { response: completed });
  return events;
}

/** Folds streamed event payloads back into the `output` items a client would assemble from deltas (tests, checks). */
export function assembleResponseEvents(events: Record<string, unknown>[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const e of events) {
    const i = e.output_index as number;
    switch (e.type) {
      case "response.output_item.added":
        items[i] = structuredClone(e.item as Record<string, unknown>);
        break;
      case "response.content_part.added":
        (items[i].content as unknown[])[e.content_index as number] = structuredClone(e.part);
        break;
      case "response.output_text.delta": {
        const part = (items[i].content as Record<string, string>[])[e.content_index as number];
        part.text += e.delta as string;
        break;
      }
      case "response.function_call_arguments.delta":
        items[i].arguments = (items[i].arguments as string) + (e.delta as string);
        break;
      case "response.output_item.done":
        items[i].status = (e.item as Record<string, unknown>).status;
        break;
    }
  }
  return items;
}
