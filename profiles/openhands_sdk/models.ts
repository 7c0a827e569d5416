/**
 * The model dependence of this harness, read from its code at the cited commit (not recorded under several names
 * here): declared, not followed; `--harness-model` warns about it.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** OpenHands software-agent-sdk 611629e. */
export const OPENHANDS_SDK_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "the system prompt's last section, the API (Responses for gpt-5), reasoning, thinking, sampling and cache " +
    "markers follow the model family",
  rules: [],
  unmodeled: [
    {
      when: { regex: "claude|gemini|gpt-5", flags: "i" },
      what: "the system prompt (a model-specific <IMPORTANT> section)",
      sources: [
        "OpenHands/software-agent-sdk@611629e6999a:openhands-sdk/openhands/sdk/context/prompts/sections/static.py " +
        "(ModelSpecificSection)",
      ],
    },
    {
      when: { regex: "gpt-5|codex-mini|o[134]|claude|deepseek|glm", flags: "i" },
      what: "the request (Responses API, reasoning_effort, thinking, cache markers or plain-string tool results)",
      sources: ["OpenHands/software-agent-sdk@611629e6999a:openhands-sdk/openhands/sdk/llm/utils/model_features.py"],
    },
  ],
};
