/** The chat messages, tool calls and tool schemas a profile sends and reads, as an OpenAI-compatible endpoint has them. */

/** A text part of a message whose content is a list of parts. */
export interface TextPart {
  /** Always "text". */
  type: "text";
  /** The part's text. */
  text: string;
}

/** An OpenAI-style tool call as the policy emitted it. */
export interface ToolCall {
  /** The call's id; the tool result's `tool_call_id` names it. */
  id: string;
  /** Always "function". */
  type: "function";
  /** The tool's name and its arguments as JSON text. */
  function: { name: string; arguments: string };
}

/** A chat message as an OpenAI-compatible endpoint receives it. */
export interface ChatMessage {
  /** Who the message is from. */
  role: "system" | "user" | "assistant" | "tool";
  /** The text, a list of text parts, or null (an assistant turn with only tool calls). */
  content: string | TextPart[] | null;
  /** Reasoning text of an assistant turn, apart from its content. */
  reasoning_content?: string;
  /** The tool calls of an assistant turn. */
  tool_calls?: ToolCall[];
  /** The call a tool message answers. */
  tool_call_id?: string;
  /** Optional participant name (the OpenAI `name` field). */
  name?: string;
}

/** A key of a tool-result message besides `role`. */
export type ToolMessageKey = "content" | "tool_call_id" | "name";

/** A tool's schema as sent in the request's `tools` array. */
export interface ToolSchema {
  /** Always "function". */
  type: "function";
  /** The tool's name, description, JSON-schema parameters and optional strict mode. */
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

/** One message of a profile's prelude. */
export interface PreludeMessage {
  /** `system` (a Responses `developer` message in chat form) or `user`. */
  role: "system" | "user";
  /** The text template, or the templates of its text parts. */
  content: string | string[];
  /** True when the profile paraphrases the harness's text (long upstream prose; default false). */
  paraphrased?: boolean;
}

/** What a tool binding returns: the result text (or parts), as the harness words it. */
export type ToolOutput = string | TextPart[];
