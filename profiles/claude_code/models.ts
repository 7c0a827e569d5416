/**
 * What claude-code 2.1.332 changes with the model name (`--model`), read from its binary (the bundled JS of
 * `npm:@anthropic-ai/claude-code-linux-x64@2.1.332:claude`) and checked against recordings with `stub-model`,
 * `claude-sonnet-4-5`, `claude-opus-4-1` and `claude-3-7-sonnet`. A name it does not know is taken for its newest
 * model (the lean prompt, the environment as a system-role message, adaptive thinking, effort high, tools loaded
 * through ToolSearch): that is this profile's own dialect, recorded with `stub-model`. For names in its table the
 * generation settings (thinking, effort, max_tokens, context management) are followed here; the legacy prompt and its
 * long tool descriptions, the environment moved into the user message and Claude 3's 25 inline tools are not.
 * `claude-opus-4-0`/`4-1` are sent as `claude-opus-5-5` (unless CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP=1).
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

const BIN = "npm:@anthropic-ai/claude-code-linux-x64@2.1.332:claude";

/** The names that get the legacy (long) system prompt and tool descriptions. */
const LEGACY_PROMPT = {
  any: [
    { regex: "claude-3-" },
    {
      names: [
        "claude-haiku-4-5",
        "claude-sonnet-4-0",
        "claude-sonnet-4-5",
        "claude-sonnet-4-6",
        "claude-sonnet-5",
        "claude-opus-4-0",
        "claude-opus-4-1",
        "claude-opus-4-5",
        "claude-opus-4-6",
        "claude-opus-4-7",
      ],
    },
  ],
};

/** The model dependence of claude-code 2.1.332. */
export const CLAUDE_CODE_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "a built-in table of 24 models decides the prompt (lean or legacy), where the environment goes, thinking, " +
    "effort, max_tokens, context management and deferred tools; an unknown name is taken for the newest model",
  aliases: {
    "claude-opus-4-0": "claude-opus-5-5",
    "claude-opus-4-1": "claude-opus-5-5",
    "claude-opus-4-20250514": "claude-opus-5-5",
    "claude-opus-4-1-20250805": "claude-opus-5-5",
  },
  rules: [
    {
      name: "claude-3",
      doc: "Claude 3 names: no thinking, no effort, no context management",
      when: { regex: "claude-3-" },
      change: { removeGeneration: ["thinking", "context_management", "output_config"] },
      sources: [`${BIN} (thinking, context management and effort gates)`],
    },
    {
      name: "budget-thinking",
      doc: "claude-sonnet-4-5: thinking with a budget of max_tokens - 1, no effort",
      when: { names: ["claude-sonnet-4-5"] },
      change: {
        removeGeneration: ["thinking", "output_config"],
        generation: { thinking: { budget_tokens: 31999, type: "enabled", display: "omitted" } },
      },
      sources: [`${BIN} (adaptive thinking gate; the thinking budget)`],
    },
    {
      name: "opus-5-5",
      doc: "claude-opus-5-5 (and the opus 4.0/4.1 names remapped to it): 128000 output tokens, effort medium",
      when: { names: ["claude-opus-5-5"] },
      change: { generation: { max_tokens: 128000, output_config: { effort: "medium" } } },
      sources: [`${BIN} (the model table: max_output_tokens, default_effort; the legacy remap)`],
    },
  ],
  unmodeled: [
    {
      when: LEGACY_PROMPT,
      what: "the system prompt and tool descriptions (the legacy ones) and the environment's place (reminders in " +
        "the user message)",
      sources: [`${BIN} (lean_prompt; mid_conversation_system)`],
    },
    {
      when: { names: ["claude-opus-5-5"] },
      what: "the Bash tool's description (its prompt bundle)",
      sources: [`${BIN} (the model table: opus_5_5_prompt_bundle)`],
    },
    {
      when: { regex: "claude-3-(?:opus|sonnet|haiku|5-sonnet|5-haiku|7-sonnet)" },
      what: "the tools (25 inline, no ToolSearch)",
      sources: [`${BIN} (tengu_tool_search_unsupported_models)`],
    },
    {
      when: { regex: "^claude-(?:opus|sonnet|haiku)-" },
      what: "the model identity line and the commit attribution (its marketing name, knowledge cutoff)",
      sources: [`${BIN} (the identity line)`],
    },
  ],
};

/** What claude-code sends beside messages and tools for a name it takes for its newest model (`stub-model`). */
export const CLAUDE_CODE_GENERATION = {
  max_tokens: 32000,
  thinking: { type: "adaptive", display: "omitted" },
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  output_config: { effort: "high" },
};
