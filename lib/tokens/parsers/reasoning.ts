/**
 * Reasoning parsers: `<think>…</think>` split off the content, as vLLM's `--reasoning-parser` does (non-streaming).
 * Both drop a leading `<think>` and split at the first `</think>`, keeping the rest as it is (not stripped), or null
 * when empty. Without a `</think>`, `deepseek_r1` takes all of it as reasoning; `qwen3` takes all of it as content
 * when thinking is off (`enable_thinking: false`), ends the reasoning at a `<tool_call>`, and else takes all of it as
 * reasoning.
 */
import type { ReasoningParser } from "./types.ts";

const START = "<think>";
const END = "</think>";

function afterStart(text: string): string {
  const i = text.indexOf(START);
  return i < 0 ? text : text.slice(i + START.length);
}

function splitAtEnd(rest: string): { reasoning: string | null; content: string | null } {
  const i = rest.indexOf(END);
  return { reasoning: rest.slice(0, i), content: rest.slice(i + END.length) || null };
}

/** Qwen3's parser. */
export const qwen3Reasoning: ReasoningParser = {
  name: "qwen3",
  source: "vllm-project/vllm@00a4c6a1d828f0de294a8eac028c60a2b522efa2:vllm/reasoning/qwen3_reasoning_parser.py",
  split(text, kwargs) {
    const rest = afterStart(text);
    if (rest.includes(END)) return splitAtEnd(rest);
    if (kwargs.enable_thinking === false) return { reasoning: null, content: text };
    const call = rest.indexOf("<tool_call>");
    if (call >= 0) return { reasoning: rest.slice(0, call) || null, content: rest.slice(call) };
    return { reasoning: rest, content: null };
  },
  format: (reasoning) => `${START}\n${reasoning}\n${END}\n\n`,
};

/** DeepSeek-R1's parser (vLLM's base thinking parser). */
export const deepseekR1Reasoning: ReasoningParser = {
  name: "deepseek_r1",
  source: "vllm-project/vllm@9b533e7bd0d4945f0e808ea8fb17e9ceee402a91:vllm/reasoning/basic_parsers.py",
  split(text) {
    const rest = afterStart(text);
    if (!rest.includes(END)) return { reasoning: rest, content: null };
    return splitAtEnd(rest);
  },
  format: (reasoning) => `${START}\n${reasoning}\n${END}\n\n`,
};
