/**
 * pi 0.73.1 does not change what it sends with the model name under an openai-completions provider of the user's own
 * (as `capture --local` configures it): only the request's `model` field follows it. A custom model gets
 * `reasoning: false` and `maxTokens: 16384` whatever its id, and the provider's compatibility flags come from the
 * provider and base URL, never the id (recorded with `stub-model` and `gpt-5.5`: the same prompt, tools and settings).
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** pi's model dependence: none. */
export const PI_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "no dependence under an openai-completions provider: only the request's model field follows the name",
  rules: [],
};

/** What pi sends beside messages and tools (recorded with `stub-model` and `gpt-5.5` alike). */
export const PI_GENERATION = { store: false, max_completion_tokens: 16384 };
