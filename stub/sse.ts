/** OpenAI Chat Completions answers: the non-streaming body and the SSE chunk sequence, as OpenAI sends them. */
import type { Reply } from "../lib/script/script.ts";

/** Token counts reported in `usage` (rough: 4 bytes a token). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Rough usage for a request of `promptBytes` bytes answered with `reply`. */
export function usageFor(promptBytes: number, reply: Reply): Usage {
  const out = (reply.content ?? "").length +
    reply.toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const prompt_tokens = Math.ceil(promptBytes / 4);
  const completion_tokens = Math.max(1, Math.ceil(out / 4));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function finishReason(reply: Reply): "tool_calls" | "stop" {
  return reply.toolCalls.length ? "tool_calls" : "stop";
}

/** The assistant message of a reply, as in a non-streaming `choices[0].message`. */
export function replyMessage(reply: Reply): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: reply.content, refusal: null };
  // vLLM's name for a reasoning parser's output.
  if (reply.reasoning !== null) message.reasoning_content = reply.reasoning;
  if (reply.toolCalls.length) {
    message.tool_calls = reply.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return message;
}

/** The non-streaming `chat.completion` body. */
export function chatCompletion(reply: Reply, model: string, created: number, usage: Usage): Record<string, unknown> {
  return {
    id: reply.id,
    object: "chat.completion",
    created,
    model,
    choices: [{ index: 0, message: replyMessage(reply), logprobs: null, finish_reason: finishReason(reply) }],
    usage,
    system_fingerprint: null,
  };
}

/** Splits text into stream pieces (words with their trailing space; never inside a code point). */
export function contentPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/gu) ?? [];
}

/** Splits serialised arguments into pieces of at most `size` code points. */
export function argumentPieces(args: string, size = 16): string[] {
  const cps = Array.from(args);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
  return out;
}

/** Options of a streamed answer. */
export interface StreamOptions {
  model: string;
  created: number;
  /** Set when the request had `stream_options.include_usage`: every chunk carries `usage: null`, then a usage chunk. */
  usage?: Usage;
}

/** The `chat.completion.chunk` objects of a streamed reply, in order (without the final `[DONE]`). */
export function chatChunks(reply: Reply, opts: StreamOptions): Record<string, unknown>[] {
  const base = { id: reply.id, object: "chat.completion.chunk", created: opts.created, model: opts.model };
  const extra = opts.usage ? { system_fingerprint: null, usage: null } : { system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    ...extra,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks: Record<string, unknown>[] = [];
  const text = reply.content !== null;
  chunks.push(chunk({ role: "assistant", content: text ? "" : null, refusal: null }));
  if (text) { for (const piece of contentPieces(reply.content!)) chunks.push(chunk({ content: piece })); }
  reply.toolCalls.forEach((c, index) => {
    const head = { index, id: c.id, type: "function", function: { name: c.name, arguments: "" } };
    chunks.push(chunk({ tool_calls: [head] }));
    for (const piece of argumentPieces(c.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(reply)));
  if (opts.usage) chunks.push({ ...base, system_fingerprint: null, choices: [], usage: opts.usage });
  return chunks;
}

/** The SSE body of a streamed reply: one `data:` event per chunk, then `data: [DONE]`. */
export function sseStream(chunks: Record<string, unknown>[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const events = [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), "data: [DONE]\n\n"];
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < events.length) controller.enqueue(enc.encode(events[i++]));
      else controller.close();
    },
  });
}

/** Folds parsed chunks back into the assistant message a client would assemble (for tests and checks). */
export function assembleChunks(chunks: Record<string, unknown>[]): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: null, refusal: null };
  const calls: { id: string; type: string; function: { name: string; arguments: string } }[] = [];
  for (const c of chunks) {
    const choice = (c.choices as { delta: Record<string, unknown> }[])[0];
    if (!choice) continue;
    const d = choice.delta;
    if (typeof d.role === "string") message.role = d.role;
    if (typeof d.content === "string") message.content = ((message.content as string | null) ?? "") + d.content;
    for (const t of (d.tool_calls ?? []) as Record<string, unknown>[]) {
      const i = t.index as number;
      const f = (t.function ?? {}) as { name?: string; arguments?: string };
      calls[i] ??= { id: "", type: "function", function: { name: "", arguments: "" } };
      if (typeof t.id === "string") calls[i].id = t.id;
      if (typeof f.name === "string") calls[i].function.name += f.name;
      if (typeof f.arguments === "string") calls[i].function.arguments += f.arguments;
    }
  }
  if (calls.length) message.tool_calls = calls;
  return message;
}
