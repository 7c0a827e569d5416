/**
 * The model dependence of this harness, read from its code at the cited commit (not recorded under several names
 * here): declared, not followed; `--harness-model` warns about it.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** terminus-2 (Harbor's LiteLLM wrapper, read at harbor v0.9.0). */
export const TERMINUS_2_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "the prompt templates are fixed; Anthropic names get cache markers on the last three messages (and " +
    "thinking with a budget, when one is set); the context limit comes from LiteLLM's table",
  rules: [],
  unmodeled: [{
    when: { regex: "anthropic|claude", flags: "i" },
    what: "the last three messages' content (cache_control markers)",
    sources: ["JackGuan99/harbor@1b1dbc43:src/harbor/llms/lite_llm.py (add_anthropic_caching)"],
  }],
};
