/**
 * The model dependence of this harness, read from its code at the cited commit (not recorded under several names
 * here): declared, not followed; `--harness-model` warns about it.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** kimi-cli 1.49.0. */
export const KIMI_CLI_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "names with thinking or reason always think; kimi-for-coding and kimi-code may think and get ReadMediaFile",
  rules: [],
  unmodeled: [
    {
      when: { regex: "thinking|reason", flags: "i" },
      what: "the request (thinking enabled)",
      sources: ["MoonshotAI/kimi-cli@4a550effdfcb:src/kimi_cli/llm.py (always_thinking)"],
    },
    {
      when: { names: ["kimi-for-coding", "kimi-code"] },
      what: "the tools (ReadMediaFile added) and thinking",
      sources: ["MoonshotAI/kimi-cli@4a550effdfcb:src/kimi_cli/tools/file/read_media.py"],
    },
  ],
};
