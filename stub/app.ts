/** The stub's Hono app: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini endpoints that answer from a script and records every request body. */
import { type Context, Hono } from "npm:hono@4.13.19";
import type { HttpApp } from "../lib/base/http_app.ts";
import type { Recorder } from "./recorder.ts";
import type { ScriptRunner } from "../lib/script/script.ts";
import { chatChunks, chatCompletion, sseStream, usageFor } from "./sse.ts";
import { ResponsesApi } from "./responses_api.ts";
import { MessagesApi } from "./messages_api.ts";
import { GeminiApi, geminiError } from "./gemini_api.ts";
import { logprobsContent, renderCompletion, renderPrompt, tokenIds } from "./tokens.ts";
import { promptIds, sglangGenerate, type StubTokens, vllmCompletion } from "./token_api.ts";

/** What the app needs: the script, the recorder, and the model name it advertises. */
export interface StubOptions {
  /** The turn script and its per-conversation positions. */
  script: ScriptRunner;
  /** Where every request body is appended. */
  recorder: Recorder;
  /** Listed by /v1/models and answered when a request names no model. */
  model: string;
  /** A real tokenizer and chat template: serves /v1/completions and /generate, and real chat token ids (default none). */
  tokens?: StubTokens;
}

/** An OpenAI-style error body. */
export function openaiError(message: string, type = "invalid_request_error"): Record<string, unknown> {
  return { error: { message, type, param: null, code: null } };
}

async function recordBody(c: Context, recorder: Recorder): Promise<Uint8Array> {
  const body = new Uint8Array(await c.req.arrayBuffer());
  await recorder.append(body);
  return body;
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | string {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    return `request body is not valid JSON: ${(e as Error).message}`;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "request body must be a JSON object";
  return v as Record<string, unknown>;
}

/** Builds the app; serve it with `Deno.serve(app.fetch)` or test it with `app.request()`. */
export function createStubApp(opts: StubOptions): HttpApp {
  const app = new Hono();
  const now = () => Math.floor(Date.now() / 1000);

  app.get(
    "/v1/models",
    (c) => c.json({ object: "list", data: [{ id: opts.model, object: "model", created: 0, owned_by: "pgs" }] }),
  );
  app.get("/v1/models/:id{.+}", (c) => c.json({ id: c.req.param("id"), object: "model", created: 0, owned_by: "pgs" }));

  app.post("/v1/chat/completions", async (c) => {
    const bytes = await recordBody(c, opts.recorder);
    const body = parseObject(bytes);
    if (typeof body === "string") return c.json(openaiError(body), 400);
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return c.json(openaiError("messages must be a non-empty list"), 400);
    }
    const reply = opts.script.next({ messages: body.messages, tools: body.tools });
    const model = typeof body.model === "string" && body.model ? body.model : opts.model;
    const usage = usageFor(bytes.length, reply);
    if (body.stream !== true) {
      const out = chatCompletion(reply, model, now(), usage);
      if (opts.tokens) {
        // Speaking as a model: the message is what the server's parsers read out of the model's completion.
        const choice = (out.choices as Record<string, unknown>[])[0];
        const message = opts.tokens.chatMessage(reply, body);
        choice.message = message;
        choice.finish_reason = message.tool_calls ? "tool_calls" : "stop";
      }
      // vLLM's extensions: token ids with `return_token_ids`, per-token logprobs with `logprobs`.
      if (body.return_token_ids === true || body.logprobs === true) {
        const choice = (out.choices as Record<string, unknown>[])[0];
        // With a tokenizer, the model's real template and tokens; without, UTF-8 bytes of a ChatML-style rendering.
        const tok = opts.tokens;
        const completion = tok ? tok.sample(reply).ids : tokenIds(renderCompletion(reply));
        if (body.return_token_ids === true) {
          out.prompt_token_ids = tok ? tok.chatPrompt(body) : tokenIds(renderPrompt(body.messages, body.tools));
          choice.token_ids = completion;
        }
        if (body.logprobs === true) choice.logprobs = { content: logprobsContent(completion) };
      }
      return c.json(out);
    }
    const so = body.stream_options as { include_usage?: unknown } | undefined;
    const chunks = chatChunks(reply, { model, created: now(), usage: so?.include_usage === true ? usage : undefined });
    return new Response(sseStream(chunks), {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    });
  });

  // OpenAI Responses (codex) and Anthropic Messages (claude-code): the same script, in each API's own shape.
  const responses = new ResponsesApi(opts.script, opts.model);
  const messages = new MessagesApi(opts.script, opts.model);
  app.post("/v1/responses", async (c) => {
    const bytes = await recordBody(c, opts.recorder);
    return responses.answer(bytes, parseObject(bytes));
  });
  app.post("/v1/messages", async (c) => {
    const bytes = await recordBody(c, opts.recorder);
    return messages.answer(bytes, parseObject(bytes));
  });

  // Gemini (gemini-cli): `models/{model}:{method}`, split on the last ':' (a route cannot hold one in a segment).
  const gemini = new GeminiApi(opts.script);
  const modelInfo = (name: string) => ({
    name: `models/${name}`,
    displayName: name,
    supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
  });
  app.get("/v1beta/models", (c) => c.json({ models: [modelInfo(opts.model)] }));
  app.get("/v1beta/models/:rest{.+}", (c) => {
    const rest = c.req.param("rest");
    if (rest.includes(":")) return geminiError(`pgs harness serve: no route GET /v1beta/models/${rest}`, 404);
    return c.json(modelInfo(rest));
  });
  app.post("/v1beta/models/:rest{.+}", async (c) => {
    const bytes = await recordBody(c, opts.recorder);
    const rest = c.req.param("rest"), at = rest.lastIndexOf(":");
    if (at < 0) return geminiError(`pgs harness serve: no method in POST /v1beta/models/${rest}`, 404);
    const sse = c.req.query("alt") === "sse";
    return gemini.answer(rest.slice(0, at), rest.slice(at + 1), sse, bytes, parseObject(bytes));
  });

  // Token prompts: vLLM's completions with a list of ids, SGLang's native /generate (with --tokenizer only).
  app.post("/v1/completions", async (c) => {
    const bytes = await recordBody(c, opts.recorder);
    const body = parseObject(bytes);
    if (typeof body === "string") return c.json(openaiError(body), 400);
    const tok = opts.tokens;
    if (!tok) return c.json(openaiError("pgs harness serve: /v1/completions needs --tokenizer DIR"), 400);
    const prompt = promptIds(body.prompt, "prompt", tok.model);
    if (typeof prompt === "string") return c.json(openaiError(prompt), 400);
    // vLLM's default max_tokens is 16: a client that leaves it out is cut, as it would be there.
    const max = typeof body.max_tokens === "number" ? body.max_tokens : 16;
    const model = typeof body.model === "string" && body.model ? body.model : opts.model;
    return c.json(vllmCompletion(tok.answerPrompt(opts.script, prompt, max), prompt, body, model, tok));
  });
  app.post("/generate", async (c) => {
    const bytes = await recordBody(c, opts.recorder);
    const body = parseObject(bytes);
    if (typeof body === "string") return c.json({ error: { message: body } }, 400);
    const tok = opts.tokens;
    if (!tok) return c.json({ error: { message: "pgs harness serve: /generate needs --tokenizer DIR" } }, 400);
    const prompt = promptIds(body.input_ids ?? body.text, "input_ids", tok.model);
    if (typeof prompt === "string") return c.json({ error: { message: prompt } }, 400);
    const sp = (body.sampling_params ?? {}) as Record<string, unknown>;
    // SGLang's default max_new_tokens is 128.
    const max = typeof sp.max_new_tokens === "number" ? sp.max_new_tokens : 128;
    return c.json(sglangGenerate(tok.answerPrompt(opts.script, prompt, max), prompt, body, tok));
  });

  // Anything else: a POST is still recorded; every unknown route gets a clear 404.
  app.all("*", async (c) => {
    if (c.req.method === "POST") await recordBody(c, opts.recorder);
    const msg = `pgs harness serve: no route ${c.req.method} ${new URL(c.req.url).pathname} ` +
      "(serves POST /v1/chat/completions, /v1/responses, /v1/messages, /v1/completions, /generate, " +
      "/v1beta/models/M:generateContent and :streamGenerateContent, and GET /v1/models)";
    return c.json(openaiError(msg, "not_found"), 404);
  });
  return app;
}
