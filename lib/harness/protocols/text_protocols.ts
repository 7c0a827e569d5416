/**
 * Text protocols: how a policy's plain-text turn is read into tool calls. Each parser returns the calls found, or a
 * format error in the protocol's own words. Only protocols a profile uses live here: mini-swe-agent-text's fenced
 * block (terminus-2's JSON protocol has its own parser). A model family's own tool-call text (hermes `<tool_call>`,
 * qwen3-coder XML) is the token mode's tool parser, not a harness protocol.
 */
import type { ParsedCall, Protocol } from "../types.ts";

/**
 * Calls read from a text turn, or why none could be read; `none` marks a turn with no action at all (as opposed to a
 * malformed one), which a `no_call` stop rule takes as the final reply.
 */
export type TextParse = { calls: ParsedCall[] } | { error: string; none?: true };

/** Reads the calls of a text turn under a text protocol. */
export function parseTextTurn(p: Protocol, text: string): TextParse {
  switch (p.kind) {
    case "fenced": {
      const re = new RegExp("```" + p.lang + "\\s*\\n(.*?)\\n```", "gs");
      const found = [...text.matchAll(re)].map((m) => m[1].trim());
      if (found.length === 0) return { error: "Expected exactly 1 action, found 0.", none: true };
      if (found.length !== 1) return { error: `Expected exactly 1 action, found ${found.length}.` };
      return { calls: [{ id: "t0", name: p.tool, args: { [p.arg]: found[0] }, raw: found[0] }] };
    }
    default:
      return { error: `protocol ${p.kind} has no text parser` };
  }
}
