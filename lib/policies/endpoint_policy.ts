/**
 * The endpoint policy: each turn is one non-streaming `POST /v1/chat/completions` to an OpenAI-compatible server
 * (vLLM, SGLang, Ollama, the stub), sent as the harness would (its messages, `tools` for native protocols), plus the
 * sampling parameters, vLLM's `chat_template_kwargs`, and with `tokenIds` vLLM's `logprobs` + `return_token_ids`.
 */
import type { ToolCall } from "../harness/types.ts";
import { firstModel, postJson } from "./http_post.ts";
import { type Policy, PolicyError, type PolicyRequest, type PolicyTurn, type Sampling } from "./policy.ts";

/** Where and how to reach the endpoint. */
export interface EndpointOptions {
  /** Base URL, e.g. `http://127.0.0.1:8000/v1` (a bare `http://host:port` gets `/v1`). */
  baseUrl: string;
  /** The model name; default: the first one `GET /models` lists. */
  model?: string;
  /** Sent as `Authorization: Bearer` (default none). */
  apiKey?: string;
  /** Sampling parameters (default: the server's). */
  sampling?: Sampling;
  /** Ask for and store token ids and logprobs (default false). */
  tokenIds?: boolean;
  /** Seconds one request may take (default `DEFAULT_REQUEST_TIMEOUT_SEC`). */
  requestTimeoutSec?: number;
  /** Attempts for connection errors, 429 and 5xx, with exponential backoff (default 6). */
  attempts?: number;
  /** Extra body fields sent with every request (default none). */
  extraBody?: Record<string, unknown>;
}

/** Seconds one model request may take, unless told otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_SEC = 600;

/** `http://h:p` → `http://h:p/v1`; a URL with a path is kept as given (without a trailing slash). */
export function normalizeBaseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PolicyError(`endpoint: not a URL: ${JSON.stringify(url)}`, "infra");
  }
  const path = u.pathname.replace(/\/+$/, "");
  return `${u.origin}${path === "" ? "/v1" : path}`;
}

/**
 * The endpoint policy. `model` is looked up once on first use when not given.
 *
 * @example Evaluate against an OpenAI-compatible server (here the scripted stub), with token ids
 * ```ts
 * import { runEpisodes } from "@pgs/pgs";
 * import { startStub } from "@pgs/pgs/stub";
 * const stub = await startStub({
 *   turns: [{ content: "Answer: 35" }],
 *   out: await Deno.makeTempFile(),
 *   model: "m",
 *   hostname: "127.0.0.1",
 *   advance: "history",
 * });
 * const engine = { baseUrl: `http://127.0.0.1:${stub.port}/v1`, tokenIds: true };
 * const [[t]] = await runEpisodes(engine, [{ task_dir: "examples/tasks/count-error-lines" }], { profile: "pi" });
 * await stub.stop();
 * if (t.reward !== 1 || t.rollout_details?.[0].prompt_token_ids.length !== 1) throw new Error(JSON.stringify(t));
 * ```
 */
export function endpointPolicy(opts: EndpointOptions): Policy & { model(): Promise<string> } {
  const base = normalizeBaseUrl(opts.baseUrl);
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let model: Promise<string> | undefined;
  const attempts = opts.attempts ?? 6;
  const timeoutMs = (opts.requestTimeoutSec ?? DEFAULT_REQUEST_TIMEOUT_SEC) * 1000;

  const policy = {
    name: `endpoint ${base}`,
    model(): Promise<string> {
      return model ??= opts.model ? Promise.resolve(opts.model) : firstModel(base, headers);
    },
    async turn(req: PolicyRequest): Promise<PolicyTurn> {
      const body = requestBody(await policy.model(), req, opts);
      const data = await postJson(`${base}/chat/completions`, body, {
        headers,
        attempts,
        timeoutMs,
        signal: req.signal,
      });
      return parseCompletion(data, opts.tokenIds ?? false);
    },
  };
  return policy;
}

/** The request body for one turn. */
export function requestBody(model: string, req: PolicyRequest, opts: EndpointOptions): Record<string, unknown> {
  const s = opts.sampling ?? {};
  const body: Record<string, unknown> = { model, messages: req.messages };
  if (req.tools.length) body.tools = req.tools;
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topK !== undefined) body.top_k = s.topK;
  if (s.maxTokens !== undefined) body.max_tokens = s.maxTokens;
  if (s.seed !== undefined) body.seed = s.seed;
  if (Object.keys(req.chatTemplateKwargs).length) body.chat_template_kwargs = req.chatTemplateKwargs;
  if (opts.tokenIds) {
    body.logprobs = true;
    body.return_token_ids = true;
  }
  return { ...body, ...opts.extraBody };
}

/** Reads a chat completion: the message, the finish reason, and vLLM's token ids and logprobs when present. */
export function parseCompletion(data: Record<string, unknown>, tokenIds: boolean): PolicyTurn {
  const choice = (data.choices as Record<string, unknown>[] | undefined)?.[0];
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    throw new PolicyError(
      `endpoint: response has no choices[0].message: ${JSON.stringify(data).slice(0, 200)}`,
      "infra",
      "endpoint",
    );
  }
  const m = choice.message as Record<string, unknown>;
  const turn: PolicyTurn = { content: typeof m.content === "string" ? m.content : null };
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (typeof reasoning === "string" && reasoning) turn.reasoning_content = reasoning;
  if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
    turn.tool_calls = (m.tool_calls as Record<string, unknown>[]).map((c, i) => {
      const f = (c.function ?? {}) as Record<string, unknown>;
      const args = f.arguments;
      return {
        id: typeof c.id === "string" && c.id ? c.id : `call_${i}`,
        type: "function",
        function: {
          name: String(f.name ?? ""),
          arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
        },
      } satisfies ToolCall;
    });
  }
  if (typeof choice.finish_reason === "string") turn.finish_reason = choice.finish_reason;
  const usage = data.usage as Record<string, number> | undefined;
  if (usage) turn.usage = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens };
  if (tokenIds) {
    const prompt = data.prompt_token_ids ?? choice.prompt_token_ids;
    const completion = choice.token_ids;
    const lp = (choice.logprobs as { content?: { logprob: number }[] } | null | undefined)?.content;
    if (Array.isArray(prompt) && Array.isArray(completion)) {
      turn.tokens = {
        prompt_token_ids: prompt as number[],
        completion_token_ids: completion as number[],
        logprobs: Array.isArray(lp) ? lp.map((x) => x.logprob) : [],
      };
    }
  }
  return turn;
}
