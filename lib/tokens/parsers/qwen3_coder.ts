/**
 * The `qwen3_coder` tool-call format, Qwen3-Coder's XML:
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`. Parsing follows
 * vLLM's Qwen3-Coder parser: one newline is trimmed off each side of a value, and each value is converted by the type
 * the tool's schema gives its parameter (strings stay text; integers, numbers, booleans and null are read; objects
 * and arrays are JSON); the content is the text before the first call. Writing follows Qwen3-Coder's chat template.
 */
import { pyJson } from "../py_json.ts";
import type { ParsedCall, ToolParser } from "./types.ts";

const CALL = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)$/g;
const FUNCTION = /<function=([\s\S]*?)<\/function>|<function=([\s\S]*)$/g;
const PARAMETER = /<parameter=([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|(?=<\/function>)|$)/g;

/** The JSON-schema type of `param` in the tool named `fn`, or undefined. */
function paramType(tools: unknown[], fn: string, param: string): string | undefined {
  for (const t of tools) {
    const f = (t as { function?: { name?: unknown; parameters?: { properties?: Record<string, { type?: unknown }> } } })
      ?.function;
    if (f?.name !== fn) continue;
    const type = f.parameters?.properties?.[param]?.type;
    return typeof type === "string" ? type : undefined;
  }
  return undefined;
}

/**
 * A value converted by its schema type, as vLLM's parser does. Its `ast.literal_eval` fallback (for types it does
 * not know, and objects that are not JSON) is approximated by JSON with Python's literal names.
 */
function convert(value: string, type: string | undefined): unknown {
  if (value.toLowerCase() === "null") return null;
  if (type === undefined) return value; // a parameter the schema does not name
  const t = type.toLowerCase();
  if (["string", "str", "text", "varchar", "char", "enum"].includes(t)) return value;
  if (/^(int|uint|long|short|unsigned)/.test(t)) return /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : value;
  if (/^(num|float)/.test(t)) {
    const n = Number(value);
    return value.trim() !== "" && Number.isFinite(n) ? n : value;
  }
  if (["boolean", "bool", "binary"].includes(t)) return value.trim().toLowerCase() === "true";
  return literal(value);
}

function literal(value: string): unknown {
  for (
    const text of [
      value,
      value.replace(/\bTrue\b/g, "true").replace(/\bFalse\b/g, "false").replace(/\bNone\b/g, "null"),
    ]
  ) {
    try {
      return JSON.parse(text);
    } catch { /* next */ }
  }
  return value;
}

function trimOne(v: string): string {
  return v.replace(/^\n/, "").replace(/\n$/, "");
}

/** Qwen3-Coder's XML calls. */
export const qwen3CoderTools: ToolParser = {
  name: "qwen3_coder",
  source: "vllm-project/vllm@0b13f933b50e82c737922f22455d2392d48b8584:vllm/tool_parsers/qwen3coder_tool_parser.py",
  parse(text, tools) {
    if (!text.includes("<function=")) return { content: text, calls: [] };
    const calls: ParsedCall[] = [];
    const bodies = [...text.matchAll(CALL)].map((m) => m[1] ?? m[2]);
    for (const body of bodies.length ? bodies : [text]) {
      for (const f of body.matchAll(FUNCTION)) {
        const inner = f[1] ?? f[2];
        const gt = inner.indexOf(">");
        if (gt < 0) return { content: text, calls: [] };
        const name = inner.slice(0, gt);
        const args: Record<string, unknown> = {};
        for (const p of inner.slice(gt + 1).matchAll(PARAMETER)) {
          const pgt = p[1].indexOf(">");
          if (pgt < 0) continue;
          const key = p[1].slice(0, pgt);
          args[key] = convert(trimOne(p[1].slice(pgt + 1)), paramType(tools, name, key));
        }
        calls.push({ name, arguments: pyJson(args) });
      }
    }
    if (!calls.length) return { content: text, calls: [] };
    const at = text.indexOf("<tool_call>");
    const content = text.slice(0, at >= 0 ? at : text.indexOf("<function="));
    return { content: content || null, calls };
  },
  format(content, calls) {
    const blocks = calls.map((c, i) => {
      let args: Record<string, unknown> = {};
      try {
        const v = JSON.parse(c.arguments);
        if (v && typeof v === "object" && !Array.isArray(v)) args = v;
      } catch {
        /* malformed arguments: written as one raw parameter-less body */
        return `${i ? "\n" : ""}<tool_call>\n<function=${c.name}>\n${c.arguments}\n</function>\n</tool_call>`;
      }
      const params = Object.entries(args).map(([k, v]) =>
        `<parameter=${k}>\n${typeof v === "string" ? v : pyJson(v)}\n</parameter>\n`
      ).join("");
      const lead = i ? "\n" : content.trim() ? "\n\n" : "";
      return `${lead}<tool_call>\n<function=${c.name}>\n${params}</function>\n</tool_call>`;
    });
    return content + blocks.join("");
  },
};
