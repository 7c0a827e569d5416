/**
 * A completion's text as an OpenAI-compatible server's parsers return it: the reasoning parser first, then, when the
 * request has tools, the tool parser on what is left (vLLM's order).
 */
import type { ParsedCompletion, ReasoningParser, ToolParser } from "./parsers/types.ts";

/** The parsers and the request they apply to. */
export interface CompletionParsers {
  /** Splits reasoning off (default none). */
  reasoningParser?: ReasoningParser;
  /** Parses tool calls when `tools` is not empty (default none). */
  toolParser?: ToolParser;
  /** The request's tool schemas (default none). */
  tools?: unknown[];
  /** The chat-template kwargs (`enable_thinking` changes qwen3's reading). */
  kwargs?: Record<string, unknown>;
}

/** True when the tool parser will read the text (vLLM then keeps special tokens in it). */
export function parsesTools(p: CompletionParsers): boolean {
  return Boolean(p.toolParser && p.tools?.length);
}

/** Reasoning, content and tool calls of a completion's text. */
export function parseCompletionText(text: string, p: CompletionParsers): ParsedCompletion {
  const r = p.reasoningParser?.split(text, p.kwargs ?? {}) ?? { reasoning: null, content: text };
  if (!parsesTools(p) || r.content === null) return { ...r, calls: [] };
  const t = p.toolParser!.parse(r.content, p.tools!);
  return { reasoning: r.reasoning, content: t.content, calls: t.calls };
}
