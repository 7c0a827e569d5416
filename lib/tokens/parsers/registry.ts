/** The registered reasoning and tool-call parsers, by the names vLLM's flags use. Adding one is one line here. */
import { hermesTools } from "./hermes.ts";
import { qwen3CoderTools } from "./qwen3_coder.ts";
import { deepseekR1Reasoning, qwen3Reasoning } from "./reasoning.ts";
import type { ReasoningParser, ToolParser } from "./types.ts";

/** Tool-call parsers by name (`--tool-parser`). */
export const TOOL_PARSERS: ReadonlyMap<string, ToolParser> = new Map(
  [hermesTools, qwen3CoderTools].map((p) => [p.name, p]),
);

/** Reasoning parsers by name (`--reasoning-parser`). */
export const REASONING_PARSERS: ReadonlyMap<string, ReasoningParser> = new Map(
  [qwen3Reasoning, deepseekR1Reasoning].map((p) => [p.name, p]),
);

/** The tool parser `name`; throws an Error naming the flag and the known names. */
export function toolParser(name: string): ToolParser {
  const p = TOOL_PARSERS.get(name);
  if (!p) throw new Error(`--tool-parser ${name}: unknown (known: ${[...TOOL_PARSERS.keys()].join(", ")})`);
  return p;
}

/** The reasoning parser `name`; throws an Error naming the flag and the known names. */
export function reasoningParser(name: string): ReasoningParser {
  const p = REASONING_PARSERS.get(name);
  if (!p) throw new Error(`--reasoning-parser ${name}: unknown (known: ${[...REASONING_PARSERS.keys()].join(", ")})`);
  return p;
}
