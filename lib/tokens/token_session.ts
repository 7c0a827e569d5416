/**
 * One episode's token sequence, built as `prompt ⊕ completion ⊕ delta` and never re-tokenised. The first prompt is
 * the chat template's rendering of the first messages, tokenised once. Each sampled completion is kept as it is and
 * decoded for the harness (reasoning split, tool calls parsed). After the harness has stepped, the delta is what the
 * template writes for the new messages (tool results, the next user turn) plus the generation prompt, rendered
 * after a one-message stand-in for the history and tokenised alone: its cost does not grow with the history.
 *
 * Where the template would have rendered the history differently from the sampled tokens (Qwen3 drops the reasoning
 * of turns before the last user query; a harness may rewrite what it keeps), the sampled tokens win and the turn is
 * a `template_rewrite`: that is the drift a chat endpoint would have caused.
 */
import { type LooseMessage, templateMessages } from "./chat_messages.ts";
import type { TokenModel } from "./model.ts";
import type { ParsedCompletion, ReasoningParser, ToolParser } from "./parsers/types.ts";
import { parseCompletionText, parsesTools } from "./parse_completion.ts";
import { checkTokenIds } from "./token_ids.ts";

/** How a session renders and parses. */
export interface TokenSessionOptions {
  /** Tool schemas of a native-call profile, rendered by the template and used by the tool parser (default none). */
  tools?: unknown[];
  /** Chat-template kwargs such as `enable_thinking` (default none). */
  kwargs?: Record<string, unknown>;
  /** Splits reasoning from content (default: none, the text is all content). */
  reasoningParser?: ReasoningParser;
  /** Parses tool calls, for a profile with tools (default: none, the text is all content). */
  toolParser?: ToolParser;
  /** Renders the whole history each turn to count `template_rewrite` turns (default true; costs O(history)). */
  rewriteCheck?: boolean;
}

/** A completion as the harness gets it. */
export interface DecodedTurn extends ParsedCompletion {
  /** "stop" when the completion ended with a stop token, "length" when it did not. */
  finishReason: "stop" | "length";
}

/** What `next` adds after the harness's step. */
export interface Delta {
  /** The token ids appended: the new messages as the template writes them, ending with the generation prompt. */
  ids: number[];
  /** True when the template would have rendered the history differently from the sampled tokens. */
  rewrite: boolean;
}

// Stands in for the history before the new messages: the delta is what the template writes after it.
const SENTINEL = "\u0000pgs-history\u0000";
const PROBE_USER = { role: "user", content: "." };

/** One episode's token sequence and loss mask. */
export class TokenSession {
  readonly #model: TokenModel;
  readonly #opts: TokenSessionOptions;
  readonly #ids: number[] = [];
  readonly #mask: number[] = [];
  #rendered = "";
  #seen = 0;
  #lastCompletion: number[] = [];
  #state: "new" | "prompt" | "completion" = "new";
  #first: LooseMessage | undefined;
  /**
   * Turns (1-based: the number of completions before the prompt) whose prompt a chat endpoint would have rendered
   * differently from the last prompt plus its completion: the `template_rewrite` turns.
   */
  readonly rewrites: number[] = [];
  /** Completions accepted so far. */
  turns = 0;

  /** A session for `model`; nothing is rendered until `start`. */
  constructor(model: TokenModel, opts: TokenSessionOptions = {}) {
    this.#model = model;
    this.#opts = opts;
  }

  /** The first prompt's token ids: the template's rendering of `messages`, tokenised once. */
  start(messages: readonly unknown[]): number[] {
    if (this.#state !== "new") throw new Error("token session: start() twice");
    const msgs = templateMessages(messages);
    this.#first = msgs[0]?.role === "system" ? msgs[0] : undefined;
    const text = this.#model.render(msgs, this.#renderOpts(true));
    const ids = this.#model.encode(text);
    this.#push(ids, 0);
    this.#rendered = text;
    this.#seen = messages.length;
    this.#state = "prompt";
    return this.prompt();
  }

  /** The current prompt: every token so far (a copy). */
  prompt(): number[] {
    return [...this.#ids];
  }

  /** The whole sequence so far (read-only view). */
  get ids(): readonly number[] {
    return this.#ids;
  }

  /** The loss mask over `ids`: 1 for sampled tokens, 0 for prompt, tool-result and template tokens. */
  get mask(): readonly number[] {
    return this.#mask;
  }

  /**
   * Takes a sampled completion as it is, and decodes it for the harness. Throws TokenIdError, with the session
   * unchanged, when an id is not in the tokenizer's vocabulary.
   */
  accept(completion: readonly number[]): DecodedTurn {
    if (this.#state !== "prompt") throw new Error("token session: accept() needs a prompt first");
    checkTokenIds(this.#model, completion);
    const ids = [...completion];
    this.#push(ids, 1);
    this.#lastCompletion = ids;
    this.#state = "completion";
    this.turns++;
    const stopped = ids.length > 0 && this.#model.stopIds.has(ids[ids.length - 1]);
    return { ...this.decode(stopped ? ids.slice(0, -1) : ids), finishReason: stopped ? "stop" : "length" };
  }

  /** A completion's text split into reasoning, content and tool calls (no state changes). */
  decode(completion: readonly number[]): ParsedCompletion {
    const p = { ...this.#opts, tools: this.#opts.tools ?? [] };
    // vLLM keeps special tokens in the text when a tool parser will read it, and drops them otherwise.
    return parseCompletionText(this.#model.decode([...completion], !parsesTools(p)), p);
  }

  /**
   * After the harness stepped: appends what the template writes for the messages after the sampled turn, and the
   * generation prompt. `messages` is the harness's whole history now.
   */
  next(messages: readonly unknown[]): Delta {
    if (this.#state !== "completion") throw new Error("token session: next() needs a completion first");
    const fresh = templateMessages(newMessages(messages, this.#seen));
    const base = [...(this.#first ? [this.#first] : []), PROBE_USER, { role: "assistant", content: SENTINEL }];
    const rendered = this.#model.render([...base, ...fresh], this.#renderOpts(false));
    const at = rendered.indexOf(SENTINEL);
    if (at < 0) throw new Error("token session: the chat template dropped the assistant turn it was given");
    let tail = rendered.slice(at + SENTINEL.length);
    // The model sampled its own end of turn; the template writes it again after the content.
    const last = this.#lastCompletion[this.#lastCompletion.length - 1];
    const completionText = this.#model.decode(this.#lastCompletion);
    if (last !== undefined && this.#model.stopIds.has(last)) {
      const stopText = this.#model.decode([last]);
      if (tail.startsWith(stopText)) tail = tail.slice(stopText.length);
    }
    const ids = this.#model.encode(tail);
    this.#push(ids, 0);
    this.#seen = messages.length;
    this.#state = "prompt";
    let rewrite = false;
    if (this.#opts.rewriteCheck ?? true) {
      // As a chat endpoint would: this turn's rendering must extend the last one plus the completion.
      const now = this.#model.render(templateMessages(messages), this.#renderOpts(true));
      rewrite = !now.startsWith(this.#rendered + completionText);
      if (rewrite) this.rewrites.push(this.turns);
      this.#rendered = now;
    }
    return { ids, rewrite };
  }

  #renderOpts(withTools: boolean) {
    return {
      tools: withTools ? this.#opts.tools : undefined,
      kwargs: this.#opts.kwargs,
      addGenerationPrompt: true,
    };
  }

  #push(ids: readonly number[], bit: 0 | 1): void {
    for (const id of ids) {
      this.#ids.push(id);
      this.#mask.push(bit);
    }
  }
}

/** The messages the harness added after the sampled turn (the assistant message at `seen`). */
function newMessages(messages: readonly unknown[], seen: number): unknown[] {
  const role = (m: unknown) => (m as { role?: unknown } | undefined)?.role;
  if (messages.length > seen && role(messages[seen]) === "assistant") return messages.slice(seen + 1);
  // The harness rewrote its history (dropped or merged messages): take what follows its last assistant turn.
  for (let i = messages.length - 1; i >= 0; i--) if (role(messages[i]) === "assistant") return messages.slice(i + 1);
  return [];
}
