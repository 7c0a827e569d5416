/**
 * What codex 0.171.0 changes with the model name (`-m`): a catalogue of 14 models compiled into its binary
 * (`npm:@openai/codex@0.171.0-linux-x64:vendor/x86_64-unknown-linux-musl/bin/codex`, the `models` JSON) gives each its
 * own developer prompt, tool surface and reasoning settings; a name outside it gets the fallback metadata (and a
 * warning), which is this profile's own dialect, recorded with `stub-model`. Checked against recordings with
 * `stub-model`, `gpt-5.5`, `gpt-6.2-sol` and `gpt-6-sol`: `gpt-5.5` adds apply_patch as a freeform tool and
 * tool_search, with effort medium and verbosity low; the code-mode models (gpt-6.x, gpt-5.6) send no top-level tools
 * but an `additional_tools` input item (exec, wait, collaboration), no parallel tool calls and reasoning over all
 * turns. None of that is followed here: record the name and use an overlay.
 */
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

const BIN = "npm:@openai/codex@0.171.0-linux-x64:vendor/x86_64-unknown-linux-musl/bin/codex (the models catalogue)";

/** A name that starts with one of `slugs`. */
const prefixOf = (slugs: string[]) => ({ regex: `^(?:${slugs.map((s) => s.replaceAll(".", "\\.")).join("|")})` });

/**
 * Each catalogue entry's settings: `default_reasoning_level`, `default_verbosity`, and whether it is a code-mode model
 * (`tool_mode: code_mode_only`, whose requests reason over all turns without parallel tool calls: recorded for
 * gpt-6.2-sol and gpt-6-sol, the rest read from the same fields). `default_reasoning_summary` is `none` for all: no
 * summary is asked for, as the fallback's `auto` is.
 */
const SETTINGS: [slug: string, effort: string, verbosity: string, codeMode: boolean][] = [
  ["gpt-6.2-sol", "low", "low", true],
  ["gpt-6.2-astra", "low", "low", true],
  ["gpt-6-astra", "low", "low", true],
  ["gpt-6.1-sol", "low", "low", true],
  ["gpt-6.1-terra", "low", "low", true],
  ["gpt-6-sol", "medium", "low", true],
  ["gpt-6-luna", "medium", "low", true],
  ["gpt-5.6-sol", "low", "low", true],
  ["gpt-5.6-terra", "medium", "low", true],
  ["gpt-5.6-luna", "medium", "low", true],
  ["gpt-daybreak-blue-latest", "low", "low", true],
  ["gpt-daybreak-red-latest", "medium", "high", true],
  ["gpt-5.5", "medium", "low", false],
  ["codex-auto-review", "medium", "low", true],
];

/** The catalogue's slugs; a name is matched by its longest slug prefix. */
const CATALOGUE = SETTINGS.map(([slug]) => slug);

/** The catalogue's code-mode models. */
const CODE_MODE = SETTINGS.filter(([, , , codeMode]) => codeMode).map(([slug]) => slug);

/** The model dependence of codex 0.171.0. */
export const CODEX_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "a catalogue of 14 models decides the developer prompt, the tools and the reasoning settings; any other " +
    "name gets the fallback metadata this profile follows",
  rules: SETTINGS.map(([slug, effort, verbosity, codeMode]) => ({
    name: `settings-${slug}`,
    doc: `${slug}: reasoning effort ${effort}, verbosity ${verbosity}` +
      (codeMode ? ", reasoning over all turns, no parallel tool calls" : ""),
    when: prefixOf([slug]),
    change: {
      removeGeneration: ["reasoning"],
      generation: {
        reasoning: codeMode ? { effort, context: "all_turns" } : { effort },
        text: { verbosity },
        ...(codeMode ? { parallel_tool_calls: false } : {}),
      },
    },
    sources: [BIN],
  })),
  unmodeled: [
    {
      when: prefixOf(CATALOGUE),
      what: "the developer prompt and the tools (its catalogue entry)",
      sources: [BIN],
    },
    {
      when: prefixOf(CODE_MODE),
      what: "the tool surface itself (code mode: an additional_tools input item, no parallel tool calls)",
      sources: [BIN],
    },
  ],
};

/** What codex sends beside messages and tools with the fallback metadata (recorded with `stub-model`). */
export const CODEX_GENERATION = {
  tool_choice: "auto",
  parallel_tool_calls: true,
  reasoning: { summary: "auto" },
  store: false,
  include: ["reasoning.encrypted_content"],
};
