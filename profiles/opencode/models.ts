/**
 * What opencode 1.18.33 changes with the model id (`provider/MODEL`), read from its binary
 * (`npm:opencode-linux-x64@1.18.33:bin/opencode`, the bundled JS) and checked against recordings with `stub-model`,
 * `gpt-5.5`, `gemini-3.1-pro`, `claude-sonnet-4-5` and `kimi-k2`: the generation settings (followed here); and the
 * system prompt, chosen by substring from eight (this profile paraphrases the default one, which `stub-model` gets),
 * and for `gpt-` ids the apply_patch tool in place of edit and write, which it does not follow.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

const BIN = "npm:opencode-linux-x64@1.18.33:bin/opencode";

/** The model dependence of opencode 1.18.33. */
export const OPENCODE_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "the system prompt (by substring: gpt, gemini-, claude, kimi, ...), apply_patch instead of edit and write " +
    "for gpt- ids, reasoning_effort for gpt-5 and top_p for Gemini 2.5/3 follow the id",
  rules: [
    {
      name: "reasoning-effort",
      doc: "gpt-5 ids (not -chat, not -pro): reasoning_effort medium",
      when: { all: [{ regex: "gpt-5" }, { not: { regex: "gpt-5-(?:chat|pro)" } }] },
      change: { generation: { reasoning_effort: "medium" } },
      sources: [`${BIN} (ProviderTransform.options)`],
    },
    {
      name: "top-p",
      doc: "Gemini 2.5, 3 flash/pro, 3.1 and 3.5 flash ids: top_p 0.95",
      when: {
        all: [
          { regex: "gemini", flags: "i" },
          {
            regex:
              "gemini-2[.-]5(?:[.-]|$)|gemini-3-(?:flash|pro)(?:[.-]|$)|gemini-3[.-]1(?:[.-]|$)|gemini-3[.-]5-flash(?!-lite)(?:[.-]|$)",
            flags: "i",
          },
        ],
      },
      change: { generation: { top_p: 0.95 } },
      sources: [`${BIN} (ProviderTransform.topP)`],
    },
  ],
  unmodeled: [
    {
      when: { regex: "gpt|o1|o3|gemini-|claude|trinity|kimi", flags: "i" },
      what: "the system prompt (another of opencode's eight, chosen by substring)",
      sources: [`${BIN} (SystemPrompt.provider)`],
    },
    {
      when: { all: [{ regex: "gpt-" }, { not: { regex: "oss|gpt-4" } }] },
      what: "the tools (apply_patch in place of edit and write)",
      sources: [`${BIN} (ToolRegistry.tools)`],
    },
  ],
};

/** What opencode sends beside messages and tools for a name that selects nothing (recorded with `stub-model`). */
export const OPENCODE_GENERATION = { max_tokens: 32000, tool_choice: "auto" };
