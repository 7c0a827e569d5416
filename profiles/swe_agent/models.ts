/**
 * The model dependence of this harness, read from its code at the cited commit (not recorded under several names
 * here): declared, not followed; `--harness-model` warns about it.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** SWE-agent main 3ea751c. */
export const SWE_AGENT_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "prompts and tools are fixed; max_tokens is sent for Anthropic models (LiteLLM's table)",
  rules: [],
  unmodeled: [{
    when: { regex: "claude|anthropic", flags: "i" },
    what: "max_tokens (from LiteLLM's model table)",
    sources: ["SWE-agent/SWE-agent@3ea751c087f3:sweagent/agent/models.py (the completion call)"],
  }],
};
