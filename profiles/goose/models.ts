/**
 * The model dependence of this harness, read from its code at the cited commit (not recorded under several names
 * here): declared, not followed; `--harness-model` warns about it.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** goose 1.55.0's OpenAI format. */
export const GOOSE_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "o-series and gpt-5 names get the developer role and reasoning_effort; gemini names turn subagents off " +
    "in the system prompt",
  rules: [],
  unmodeled: [
    {
      when: { regex: "(?:^|[-/])(?:o[0-9]+(?:$|-)|gpt-5(?:$|[-.]))", flags: "i" },
      what: "the system message's role (developer), reasoning_effort and max_completion_tokens",
      sources: ["block/goose@e216e6d97a88:crates/goose/src/providers/formats/openai/streaming.rs"],
    },
    {
      when: { regex: "^gemini", flags: "i" },
      what: "the system prompt (subagents off)",
      sources: ["block/goose@0086ae654b10:crates/goose/src/agents/prompt_manager.rs (a later revision than the pin)"],
    },
  ],
};
