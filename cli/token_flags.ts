/** The token-mode flags `env serve` and `harness serve` share: --tokenizer, --tool-parser, --reasoning-parser. */
import { UsageError } from "../lib/base/errors.ts";
import type { TokenModel } from "../lib/tokens/model.ts";
import { loadTokenModel } from "../lib/tokens/model.ts";
import { reasoningParser, toolParser } from "../lib/tokens/parsers/registry.ts";
import type { ReasoningParser, ToolParser } from "../lib/tokens/parsers/types.ts";

/** The flags' definitions, for parseFlags. */
export const TOKEN_FLAGS = {
  tokenizer: { type: "string" },
  "tool-parser": { type: "string" },
  "reasoning-parser": { type: "string" },
} as const;

/** Help lines for the flags. */
export const TOKEN_FLAGS_HELP =
  `  --tokenizer DIR           token mode: a model folder (tokenizer.json, tokenizer_config.json or
                            chat_template.jinja), or a hub id found in the local HF cache (never downloaded)
  --tool-parser P           token mode: the model's tool-call format: hermes (default), qwen3_coder
  --reasoning-parser P      token mode: the model's think block: qwen3, deepseek_r1 (default none)`;

/** The loaded model and parsers, or undefined without --tokenizer; a one-line UsageError naming the flag. */
export async function tokenModeFlags(
  command: string,
  values: { tokenizer?: string; "tool-parser"?: string; "reasoning-parser"?: string },
): Promise<{ tokenizer: TokenModel; toolParser: ToolParser; reasoningParser?: ReasoningParser } | undefined> {
  if (!values.tokenizer) {
    if (values["tool-parser"] || values["reasoning-parser"]) {
      throw new UsageError(`${command}: --tool-parser and --reasoning-parser need --tokenizer`);
    }
    return undefined;
  }
  let parsers;
  try {
    parsers = {
      toolParser: toolParser(values["tool-parser"] ?? "hermes"),
      reasoningParser: values["reasoning-parser"] ? reasoningParser(values["reasoning-parser"]) : undefined,
    };
  } catch (e) {
    throw new UsageError(`${command}: ${(e as Error).message}`);
  }
  try {
    return { tokenizer: await loadTokenModel(values.tokenizer), ...parsers };
  } catch (e) {
    throw new UsageError(`${command}: --tokenizer ${(e as Error).message}`);
  }
}
