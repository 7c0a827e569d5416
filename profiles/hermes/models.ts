/**
 * The model dependence of this harness, read from its code at the cited commit (not recorded under several names
 * here): declared, not followed; `--harness-model` warns about it.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** hermes-agent. */
export const HERMES_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "substring lists add tool-use and execution guidance to the system prompt (gpt, codex, grok, qwen, glm, " +
    "deepseek, ...), and a Google block for gemini and gemma",
  rules: [],
  unmodeled: [{
    when: { regex: "gpt|codex|grok|qwen|glm|deepseek|gemini|gemma", flags: "i" },
    what: "the system prompt (model-family guidance blocks)",
    sources: ["NousResearch/hermes-agent@00067189dfec:agent/prompt_builder.py (a later revision than the pin)"],
  }],
};
