/**
 * What qwen-code 0.24.4 changes with the model name (`OPENAI_MODEL`), read from its bundle and checked against
 * recordings with `stub-model`, `qwen3-coder-plus`, `qwen3-vl-plus`, `deepseek-v3` and `gpt-5.5`: `max_tokens` (the
 * output-limit table, capped at 64000; 32000 for a name it does not know), followed here; and two changes inside text
 * this profile paraphrases, the system prompt's tool-call examples and read_file's description for video-capable
 * models, which it does not follow. No reasoning or sampling setting is sent for any name.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

const LIMITS =
  "npm:@qwen-code/qwen-code@0.24.4:chunks/chunk-P5OXAI4R.js (tokenLimits.ts: OUTPUT_PATTERNS, OUTPUT_TOKEN_CEILING)";
const PROMPTS = "npm:@qwen-code/qwen-code@0.24.4:chunks/chunk-JE3J5HFM.js (prompts.ts: the tool-call example style)";
const MODALITY = "npm:@qwen-code/qwen-code@0.24.4:chunks/chunk-2VS5EEXU.js (read-file.ts: buildReadFileDescription)";

/** The model dependence of qwen-code 0.24.4. */
export const QWEN_CODE_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "max_tokens follows the name's output limit (capped at 64000); the prompt's tool-call examples and " +
    "read_file's description for video models change too (paraphrased text here)",
  rules: [
    {
      name: "max-tokens-qwen",
      doc: "qwen names: 32768 output tokens",
      when: { regex: "^qwen", flags: "i" },
      change: { generation: { max_tokens: 32768 } },
      sources: [LIMITS],
    },
    {
      name: "max-tokens-64k",
      doc: "gpt-5, claude- and gemini-3 names (and deepseek-v4/flash): the 64000 ceiling",
      when: { regex: "^(?:gpt-5|claude-|gemini-3|deepseek-(?:v4|flash))", flags: "i" },
      change: { generation: { max_tokens: 64000 } },
      sources: [LIMITS],
    },
  ],
  unmodeled: [
    {
      when: { regex: "qwen[^-]*-(?:coder|vl)|coder-model|gemma[-_]?4", flags: "i" },
      what: "the system prompt's tool-call examples (XML for coder names, JSON for VL names; paraphrased here)",
      raw: true,
      sources: [PROMPTS],
    },
    {
      when: { regex: "deepseek", flags: "i" },
      what: "the user message (its parts flattened into one string, a text-only provider) and the skills reminder",
      sources: [
        "npm:@qwen-code/qwen-code@0.24.4:chunks/chunk-N3HID7XO.js (provider/deepseek.ts: isDeepSeekProvider, " +
        "flattenContentParts)",
      ],
    },
    {
      when: { regex: "^qwen3?-vl-", flags: "i" },
      what: "read_file's description (video formats added; paraphrased here)",
      sources: [MODALITY],
    },
  ],
};

/** What qwen-code sends beside messages and tools for a name it does not know. */
export const QWEN_CODE_GENERATION = { max_tokens: 32000 };
