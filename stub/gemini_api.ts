/**
 * The Gemini API (`POST /v1beta/models/M:generateContent`, `:streamGenerateContent`, `:countTokens`, as gemini-cli
 * sends them): answered from the script, whole or as SSE chunks of `GenerateContentResponse`.
 */
import type { Reply, ScriptRunner } from "../lib/script/script.ts";
import { contentPieces, type Usage, usageFor } from "./sse.ts";
import { idHex } from "./responses_api.ts";

/** A JSON object, as the Gemini API bodies and parts are. */
export type JsonObject = Record<string, unknown>;

/** Google's status names for the HTTP codes the stub answers with. */
const STATUS: Record<number, string> = { 400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 500: "INTERNAL" };

/** A Google-style error response: `{error: {code, message, status}}`. */
export function geminiError(message: string, code: 400 | 404 | 500): Response {
  return Response.json({ error: { code, message, status: STATUS[code] } }, { status: code });
}

/** The text of a `systemInstruction` (a string, a Content with parts, or a list of parts), or null without one. */
function systemText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  const parts = Array.isArray(v) ? v : (v as JsonObject).parts;
  if (!Array.isArray(parts)) return JSON.stringify(v);
  return parts.map((p) => typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "").join("\n");
}

/** A user turn's content: one text as a string, several as text parts; other parts kept whole. */
function userContent(parts: JsonObject[]): unknown {
  if (parts.length === 1 && typeof parts[0].text === "string") return parts[0].text;
  return parts.map((p) => typeof p.text === "string" ? { type: "text", text: p.text } : { type: "part", part: p });
}

/**
 * Gemini `contents` as chat-style messages, after a system message tagged `api: "gemini"` (so a Gemini
 * conversation never shares a key with another API's): `model` turns become assistant messages (text, thoughts as
 * `reasoning_content`, `functionCall` parts as `tool_calls`), `functionResponse` parts tool messages, text user ones.
 */
export function geminiMessages(body: JsonObject): JsonObject[] {
  const out: JsonObject[] = [{ role: "system", api: "gemini", content: systemText(body.systemInstruction) }];
  const contents = Array.isArray(body.contents) ? body.contents : [];
  for (const c of contents) {
    const o = (typeof c === "object" && c !== null ? c : {}) as JsonObject;
    const parts = (Array.isArray(o.parts) ? o.parts : []).filter((p) =>
      typeof p === "object" && p !== null
    ) as JsonObject[];
    if (o.role === "model") {
      const m: JsonObject = { role: "assistant", content: null };
      const calls: JsonObject[] = [];
      for (const p of parts) {
        const fc = p.functionCall as JsonObject | undefined;
        if (fc) {
          calls.push({
            id: typeof fc.id === "string" ? fc.id : null,
            type: "function",
            function: { name: fc.name, arguments: JSON.stringify(fc.args ?? {}) },
          });
        } else if (typeof p.text === "string") {
          const k = p.thought === true ? "reasoning_content" : "content";
          m[k] = ((m[k] as string | null | undefined) ?? "") + p.text;
        }
      }
      if (calls.length) m.tool_calls = calls;
      out.push(m);
      continue;
    }
    const rest: JsonObject[] = [];
    for (const p of parts) {
      const fr = p.functionResponse as JsonObject | undefined;
      if (fr) {
        out.push({
          role: "tool",
          tool_call_id: typeof fr.id === "string" ? fr.id : null,
          name: fr.name,
          content: JSON.stringify(fr.response ?? {}),
        });
      } else rest.push(p);
    }
    if (rest.length) out.push({ role: "user", content: userContent(rest) });
  }
  return out;
}

/** The chat-style tools of `tools[].functionDeclarations` (schema from `parametersJsonSchema` or `parameters`). */
export function geminiTools(tools: unknown): JsonObject[] {
  if (!Array.isArray(tools)) return [];
  const out: JsonObject[] = [];
  for (const t of tools) {
    const decls = (t as JsonObject | null)?.functionDeclarations;
    if (!Array.isArray(decls)) continue;
    for (const d of decls as JsonObject[]) {
      const parameters = d.parametersJsonSchema ?? d.parameters ?? { type: "object", properties: {} };
      out.push({ type: "function", function: { name: d.name, description: d.description ?? "", parameters } });
    }
  }
  return out;
}

/** The `parts` of a reply: a thought part for its reasoning, then one text part, or one `functionCall` per call. */
export function replyParts(reply: Reply): JsonObject[] | string {
  const parts: JsonObject[] = [];
  if (reply.reasoning !== null) parts.push({ text: reply.reasoning, thought: true });
  if (reply.content !== null) parts.push({ text: reply.content });
  for (const c of reply.toolCalls) {
    let args: unknown;
    try {
      args = JSON.parse(c.arguments);
    } catch { /* reported below */ }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return `pgs harness serve: script turn ${reply.turn! + 1}: the arguments of ${c.name} ` +
        `(${c.arguments}) are not a JSON object, which a Gemini functionCall's args must be`;
    }
    parts.push({ functionCall: { name: c.name, args } });
  }
  return parts;
}

/** `usageMetadata` from rough usage figures; without candidates (a stream's earlier chunks) only the prompt. */
function usageMetadata(u: Usage, final: boolean): JsonObject {
  const details = [{ modality: "TEXT", tokenCount: u.prompt_tokens }];
  if (!final) {
    return { promptTokenCount: u.prompt_tokens, totalTokenCount: u.prompt_tokens, promptTokensDetails: details };
  }
  return {
    promptTokenCount: u.prompt_tokens,
    candidatesTokenCount: u.completion_tokens,
    totalTokenCount: u.total_tokens,
    promptTokensDetails: details,
  };
}

/** What every response of one answer repeats: the usage, the model answered, the response id. */
export interface GeminiMeta {
  /** Rough token counts. */
  usage: Usage;
  /** The model named in the path. */
  model: string;
  /** The response id. */
  responseId: string;
}

/**
 * The `GenerateContentResponse` chunks of a streamed reply: thought and text pieces one chunk each, the function
 * calls together in the last chunk, which carries `finishReason: "STOP"` and the whole usage.
 */
export function geminiChunks(parts: JsonObject[], meta: GeminiMeta): JsonObject[] {
  const pieces: JsonObject[][] = [];
  for (const p of parts) {
    if (typeof p.text !== "string") continue;
    const texts = contentPieces(p.text);
    for (const text of texts.length ? texts : [""]) pieces.push([p.thought ? { text, thought: true } : { text }]);
  }
  const calls = parts.filter((p) => p.functionCall);
  if (calls.length) pieces.push(calls);
  if (!pieces.length) pieces.push([{ text: "" }]);
  return pieces.map((ps, i) => geminiResponse(ps, meta, i === pieces.length - 1));
}

/** One `GenerateContentResponse` of `parts`; the `last` one (or a whole answer) has `finishReason` and all usage. */
export function geminiResponse(parts: JsonObject[], meta: GeminiMeta, last = true): JsonObject {
  const candidate: JsonObject = { content: { parts, role: "model" } };
  if (last) candidate.finishReason = "STOP";
  candidate.index = 0;
  return {
    candidates: [candidate],
    usageMetadata: usageMetadata(meta.usage, last),
    modelVersion: meta.model,
    responseId: meta.responseId,
  };
}

/** Folds streamed chunks back into the `parts` a client would assemble (adjacent text of one kind joined). */
export function assembleGeminiChunks(chunks: JsonObject[]): JsonObject[] {
  const parts: JsonObject[] = [];
  for (const c of chunks) {
    const cand = (c.candidates as JsonObject[])[0];
    for (const p of ((cand.content as JsonObject).parts as JsonObject[])) {
      const last = parts.at(-1);
      if (typeof p.text === "string" && typeof last?.text === "string" && !last.thought === !p.thought) {
        last.text += p.text;
      } else parts.push(structuredClone(p));
    }
  }
  return parts;
}

/** The SSE body of chunks as Google sends them with `alt=sse`: one `data: JSON` event per chunk, no `[DONE]`. */
function sseChunks(chunks: JsonObject[]): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(enc.encode(`data: ${JSON.stringify(chunks[i++])}\n\n`));
      else controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/** Answers `/v1beta/models/{model}:{method}`: generateContent, streamGenerateContent and countTokens. */
export class GeminiApi {
  #script: ScriptRunner;

  /** Answers from `script`. */
  constructor(script: ScriptRunner) {
    this.#script = script;
  }

  /** The answer to a recorded body for `model` and `method`; `sse` is the `alt=sse` query. */
  answer(model: string, method: string, sse: boolean, bytes: Uint8Array, body: JsonObject | string): Response {
    const known = ["generateContent", "streamGenerateContent", "countTokens"];
    if (!known.includes(method)) {
      return geminiError(`pgs harness serve: method ${method} of models/${model} is not served`, 404);
    }
    if (typeof body === "string") return geminiError(`Invalid JSON payload received. ${body}`, 400);
    if (method === "countTokens") {
      const tokens = Math.ceil(bytes.length / 4);
      return Response.json({ totalTokens: tokens, promptTokensDetails: [{ modality: "TEXT", tokenCount: tokens }] });
    }
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      return geminiError("* GenerateContentRequest.contents: contents is not specified", 400);
    }
    const reply = this.#script.next({ messages: geminiMessages(body), tools: geminiTools(body.tools) });
    const parts = replyParts(reply);
    if (typeof parts === "string") return geminiError(parts, 500);
    const meta = { usage: usageFor(bytes.length, reply), model, responseId: idHex(reply.id) };
    if (method === "generateContent") {
      return Response.json(geminiResponse(parts, meta));
    }
    const chunks = geminiChunks(parts, meta);
    // Without alt=sse Google answers a stream as one JSON array of the chunks.
    return sse ? sseChunks(chunks) : Response.json(chunks);
  }
}
