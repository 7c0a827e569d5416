/** The shapes of reasoning and tool-call parsers: data in a registry, as profiles are. */

/** A tool call parsed out of a completion; `arguments` is JSON text. */
export interface ParsedCall {
  /** The function's name. */
  name: string;
  /** Its arguments, serialised as the parser's upstream serialises them. */
  arguments: string;
}

/** A completion's text, split: reasoning, content, and tool calls. */
export interface ParsedCompletion {
  /** The reasoning, or null when there is none. */
  reasoning: string | null;
  /** The text the harness sees, or null when there is none. */
  content: string | null;
  /** The tool calls (empty when there are none, or when the calls did not parse). */
  calls: ParsedCall[];
}

/** Splits reasoning from content, as a server's `--reasoning-parser` does. */
export interface ReasoningParser {
  /** The registry name (`--reasoning-parser`). */
  readonly name: string;
  /** Where the behaviour comes from: `owner/repo@commit:path`. */
  readonly source: string;
  /** The reasoning and the rest of the text; `kwargs` are the chat-template kwargs (`enable_thinking`). */
  split(text: string, kwargs: Record<string, unknown>): { reasoning: string | null; content: string | null };
  /** The text a model of this family samples for `reasoning` before its content. */
  format(reasoning: string): string;
}

/** Parses (and, for the stub, writes) one model family's tool-call format, as a server's `--tool-call-parser`. */
export interface ToolParser {
  /** The registry name (`--tool-parser`). */
  readonly name: string;
  /** Where the behaviour comes from: `owner/repo@commit:path`. */
  readonly source: string;
  /** The content and calls of a completion's text; `tools` are the request's tool schemas (for typed values). */
  parse(text: string, tools: unknown[]): { content: string | null; calls: ParsedCall[] };
  /** The text a model of this family samples for `content` followed by `calls` (arguments as JSON text). */
  format(content: string, calls: { name: string; arguments: string }[]): string;
}
