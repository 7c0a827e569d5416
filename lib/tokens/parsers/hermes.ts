/**
 * The `hermes` tool-call format, Qwen2.5's and Qwen3's: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`.
 * Parsing follows vLLM's Hermes2Pro parser: every block (an unclosed last one included) must be JSON, else the whole
 * text is content and there are no calls; the content is the text before the first block; arguments are re-dumped
 * as Python's `json.dumps(…, ensure_ascii=False)`. Writing follows Qwen3's chat template.
 */
import { pyJson } from "../py_json.ts";
import type { ParsedCall, ToolParser } from "./types.ts";

const OPEN = "<tool_call>";
const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)/g;

/** Hermes `<tool_call>` JSON blocks. */
export const hermesTools: ToolParser = {
  name: "hermes",
  source: "vllm-project/vllm@02bb669bf661df8b946121215ecb213468247b22:vllm/tool_parsers/hermes_tool_parser.py",
  parse(text) {
    const start = text.indexOf(OPEN);
    if (start < 0) return { content: text, calls: [] };
    const calls: ParsedCall[] = [];
    for (const m of text.matchAll(BLOCK)) {
      let call: unknown;
      try {
        call = JSON.parse(m[1] ?? m[2]);
      } catch {
        return { content: text, calls: [] };
      }
      const c = call as { name?: unknown; arguments?: unknown };
      if (!c || typeof c !== "object" || typeof c.name !== "string") return { content: text, calls: [] };
      calls.push({ name: c.name, arguments: pyJson(c.arguments ?? null) });
    }
    const content = text.slice(0, start);
    return { content: content || null, calls };
  },
  format(content, calls) {
    const blocks = calls.map((c) => `${OPEN}\n{"name": "${c.name}", "arguments": ${c.arguments}}\n</tool_call>`);
    return (content && blocks.length ? `${content}\n` : content) + blocks.join("\n");
  },
};
