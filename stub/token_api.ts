/**
 * The stub as a token server (`pgs harness serve --tokenizer DIR`): vLLM's `/v1/completions` with a prompt of token
 * ids and SGLang's native `/generate`, answered from the same script. Each scripted turn is written in the model's
 * own format (its think block, then a `hermes` `<tool_call>` block or `qwen3_coder` XML), tokenised with the model's
 * tokenizer and ended with its end-of-turn token; logprobs are deterministic. The turn is found from the prompt
 * itself: the number of assistant headers it holds, less the generation prompt's. Chat completions, given the same
 * model, report the template's real `prompt_token_ids`, as vLLM does.
 */
import { sha256Hex } from "../lib/script/ids.ts";
import type { Reply, ScriptRunner } from "../lib/script/script.ts";
import { templateMessages } from "../lib/tokens/chat_messages.ts";
import type { TokenModel } from "../lib/tokens/model.ts";
import { pyJson } from "../lib/tokens/py_json.ts";
import { parseCompletionText, parsesTools } from "../lib/tokens/parse_completion.ts";
import type { ReasoningParser, ToolParser } from "../lib/tokens/parsers/types.ts";
import { logprobOf } from "./tokens.ts";

/** The model the stub speaks as. */
export interface StubTokenModel {
  /** Tokenizer and chat template. */
  model: TokenModel;
  /** Writes scripted tool calls (default: hermes). */
  toolParser: ToolParser;
  /** When given, every turn opens with the model's think block (empty when the turn has no reasoning). */
  reasoningParser?: ReasoningParser;
}

/** One sampled answer. */
export interface Sampled {
  /** Completion token ids, the end-of-turn token last unless cut by `maxTokens`. */
  ids: number[];
  /** One deterministic logprob per id. */
  logprobs: number[];
  /** "stop", or "length" when cut. */
  finish: "stop" | "length";
  /** The reply it came from. */
  reply: Reply;
}

/** The stub's token side: finds the turn from a prompt and writes it as the model would. */
export class StubTokens {
  readonly #m: StubTokenModel;
  readonly #header: string;
  readonly #eos: number;

  /** Derives the assistant header from the template (what the generation prompt adds). */
  constructor(m: StubTokenModel) {
    this.#m = m;
    const probe = [{ role: "user", content: "." }];
    const withGen = m.model.render(probe, { addGenerationPrompt: true });
    const without = m.model.render(probe, { addGenerationPrompt: false });
    this.#header = withGen.slice(without.length);
    if (!this.#header) throw new Error(`${m.model.source}: the chat template writes no generation prompt`);
    this.#eos = [...m.model.stopIds][0];
  }

  /** The model. */
  get model(): TokenModel {
    return this.#m.model;
  }

  /** Answers a token prompt: the turn is the number of assistant turns the prompt holds. */
  answerPrompt(script: ScriptRunner, prompt: number[], maxTokens?: number): Sampled {
    const text = this.#m.model.decode(prompt);
    const first = text.indexOf(this.#header);
    const key = sha256Hex(first < 0 ? text : text.slice(0, first));
    let n = -1;
    for (let i = text.indexOf(this.#header); i >= 0; i = text.indexOf(this.#header, i + 1)) n++;
    const reply = script.at(key, Math.max(0, n));
    // A prompt that closes an empty think block has thinking turned off: the model writes no think block then.
    const thinking = !/<\/think>\s*$/.test(text);
    return this.sample(reply, thinking, maxTokens);
  }

  /** The completion text of a reply, in the model's format. */
  completionText(reply: Reply, thinking = true): string {
    const think = this.#m.reasoningParser && thinking
      ? this.#m.reasoningParser.format(reply.reasoning ?? "")
      : reply.reasoning !== null
      ? `<think>\n${reply.reasoning}\n</think>\n\n`
      : "";
    if (!reply.toolCalls.length) return think + (reply.content ?? "");
    const calls = reply.toolCalls.map((c) => ({ name: c.name, arguments: pythonArguments(c.arguments) }));
    return think + this.#m.toolParser.format(reply.content ?? "", calls);
  }

  /** A reply as sampled tokens. */
  sample(reply: Reply, thinking = true, maxTokens?: number): Sampled {
    let ids = [...this.#m.model.encode(this.completionText(reply, thinking)), this.#eos];
    let finish: "stop" | "length" = "stop";
    if (maxTokens !== undefined && maxTokens >= 0 && ids.length > maxTokens) {
      ids = ids.slice(0, maxTokens);
      finish = "length";
    }
    return { ids, logprobs: ids.map((id, i) => logprobOf(id, i)), finish, reply };
  }

  /** A chat request's prompt ids, as vLLM renders it. */
  chatPrompt(body: Record<string, unknown>): number[] {
    const kwargs = (body.chat_template_kwargs ?? {}) as Record<string, unknown>;
    const tools = Array.isArray(body.tools) ? body.tools : undefined;
    const text = this.#m.model.render(templateMessages(body.messages as unknown[]), { tools, kwargs });
    return this.#m.model.encode(text);
  }

  /**
   * The chat answer's message for a reply, as vLLM's parsers would read the model's completion (so a chat client gets
   * exactly the content, reasoning and calls the same tokens give in token mode).
   */
  chatMessage(reply: Reply, body: Record<string, unknown>): Record<string, unknown> {
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const kwargs = (body.chat_template_kwargs ?? {}) as Record<string, unknown>;
    const ids = this.sample(reply, kwargs.enable_thinking !== false).ids;
    const p = { reasoningParser: this.#m.reasoningParser, toolParser: this.#m.toolParser, tools, kwargs };
    const stopped = this.#m.model.stopIds.has(ids[ids.length - 1]);
    const parsed = parseCompletionText(this.#m.model.decode(stopped ? ids.slice(0, -1) : ids, !parsesTools(p)), p);
    const message: Record<string, unknown> = { role: "assistant", content: parsed.content, refusal: null };
    if (parsed.reasoning !== null) message.reasoning_content = parsed.reasoning;
    if (parsed.calls.length) {
      message.tool_calls = parsed.calls.map((c, i) => ({
        id: reply.toolCalls[i]?.id ?? `${reply.id}-tool-${i}`,
        type: "function",
        function: c,
      }));
    }
    return message;
  }

  /** The text of completion ids, as vLLM returns it (special tokens dropped). */
  text(ids: number[]): string {
    return this.#m.model.decode(ids, true);
  }
}

/** Scripted arguments as a model writes them: Python's spacing when they are a JSON object, else as scripted. */
function pythonArguments(args: string): string {
  try {
    return pyJson(JSON.parse(args));
  } catch {
    return args; // a malformed call stays malformed
  }
}

/** The ids of a request's `prompt`/`input_ids`, or an error message naming the field. */
export function promptIds(value: unknown, field: string, model: TokenModel): number[] | string {
  if (typeof value === "string") return model.encode(value);
  if (Array.isArray(value) && value.every((x) => Number.isInteger(x) && x >= 0)) return value as number[];
  return `${field} must be a list of token ids (non-negative integers) or a string`;
}

/** vLLM's `/v1/completions` answer. */
export function vllmCompletion(
  s: Sampled,
  prompt: number[],
  body: Record<string, unknown>,
  model: string,
  tokens: StubTokens,
): Record<string, unknown> {
  const choice: Record<string, unknown> = {
    index: 0,
    text: tokens.text(s.ids),
    logprobs: null,
    finish_reason: s.finish,
    stop_reason: null,
  };
  if (typeof body.logprobs === "number") {
    const pieces = s.ids.map((id) => tokens.model.decode([id]));
    let offset = 0;
    choice.logprobs = {
      text_offset: pieces.map((p) => (offset += p.length) - p.length),
      token_logprobs: s.logprobs,
      tokens: pieces,
      top_logprobs: pieces.map((p, i) => ({ [p]: s.logprobs[i] })),
    };
  }
  if (body.return_token_ids === true) {
    choice.prompt_token_ids = prompt;
    choice.token_ids = s.ids;
  }
  return {
    id: s.reply.id.replace(/^chatcmpl-/, "cmpl-"),
    object: "text_completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [choice],
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: s.ids.length,
      total_tokens: prompt.length + s.ids.length,
    },
  };
}

/** SGLang's `/generate` answer. */
export function sglangGenerate(
  s: Sampled,
  prompt: number[],
  body: Record<string, unknown>,
  tokens: StubTokens,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    id: s.reply.id.replace(/^chatcmpl-/, ""),
    finish_reason: s.finish === "stop"
      ? { type: "stop", matched: s.ids[s.ids.length - 1] }
      : { type: "length", length: s.ids.length },
    prompt_tokens: prompt.length,
    completion_tokens: s.ids.length,
    cached_tokens: 0,
  };
  if (body.return_logprob === true) {
    meta.output_token_logprobs = s.ids.map((id, i) => [s.logprobs[i], id, null]);
  }
  return { text: tokens.text(s.ids), output_ids: s.ids, meta_info: meta };
}
