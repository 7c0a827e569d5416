/**
 * Token-exact rollouts: a model's tokenizer and chat template, the reasoning and tool-call parsers, and the session
 * that builds each prompt as `prompt ⊕ completion ⊕ delta` without re-tokenising the history.
 * @module
 */
export { loadTokenModel, type RenderOptions, TokenModel, type TokenModelFiles } from "./model.ts";
export { findInHubCache, hubCacheDirs } from "./hf_cache.ts";
export { type DecodedTurn, type Delta, TokenSession, type TokenSessionOptions } from "./token_session.ts";
export { checkTokenIds, TokenIdError } from "./token_ids.ts";
export { contentText, templateMessages } from "./chat_messages.ts";
export { pyJson } from "./py_json.ts";
export { REASONING_PARSERS, reasoningParser, TOOL_PARSERS, toolParser } from "./parsers/registry.ts";
export type { ParsedCall, ParsedCompletion, ReasoningParser, ToolParser } from "./parsers/types.ts";
