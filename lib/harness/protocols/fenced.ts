/**
 * A fenced text protocol (mini-swe-agent's text mode): each turn holds exactly one ```LANG block, the argument of one
 * tool; the results come back as the next user message, the harness having no tool role. A turn with no block at all
 * is the final reply under a `no_call` stop rule (small-agent); a malformed one is a format error in the harness's
 * words.
 */
import type { ParsedCall } from "../types.ts";
import type { ProtocolDef } from "./protocol.ts";

/** The fenced protocol's data (`Protocol`'s member). */
export type FencedProtocol = { kind: "fenced"; lang: string; tool: string; arg: string };

/** Calls read from a text turn, or why none could be read; `none`: no action at all (not a malformed one). */
export type TextParse = { calls: ParsedCall[] } | { error: string; none?: true };

/** Reads the call of a fenced turn. */
export function parseFenced(p: FencedProtocol, text: string): TextParse {
  const re = new RegExp("```" + p.lang + "\\s*\\n(.*?)\\n```", "gs");
  const found = [...text.matchAll(re)].map((m) => m[1].trim());
  if (found.length === 0) return { error: "Expected exactly 1 action, found 0.", none: true };
  if (found.length !== 1) return { error: `Expected exactly 1 action, found ${found.length}.` };
  return { calls: [{ id: "t0", name: p.tool, args: { [p.arg]: found[0] }, raw: found[0] }] };
}

/** The fenced protocol. */
export const FENCED: ProtocolDef<FencedProtocol> = {
  kind: "fenced",
  native: false,
  describe: (p) => `fenced \`\`\`${p.lang} block`,
  async turn(ctx, p, turn) {
    const text = turn.content ?? "";
    const parsed = parseFenced(p, text);
    const none = "error" in parsed ? parsed.none === true : parsed.calls.length === 0;
    if (none && ctx.session.profile.stop.kind === "no_call") {
      ctx.finish(text);
      return [];
    }
    if ("error" in parsed) return ctx.formatError(parsed.error);
    const results: string[] = [];
    for (const call of parsed.calls) {
      const result = await ctx.run(call);
      if (ctx.done) break;
      results.push(typeof result === "string" ? result : result.map((x) => x.text).join(""));
    }
    return ctx.done && results.length === 0 ? [] : [{ role: "user", content: results.join("\n\n") }];
  },
  encode(p, _tool, args, _id, content) {
    if (args[p.arg] === undefined) return undefined;
    return { content: `${content}\n\n\`\`\`${p.lang}\n${args[p.arg]}\n\`\`\``.trimStart() };
  },
  atifCalls(p, text, turn) {
    const parsed = parseFenced(p, text);
    if ("error" in parsed || parsed.calls.length === 0) return { calls: [] };
    const calls = parsed.calls.map((c, i) => ({
      tool_call_id: `call_${turn}_${i + 1}`,
      function_name: c.name,
      arguments: c.args ?? {},
    }));
    return { calls, answers: calls.length === 1 ? calls[0].tool_call_id : null };
  },
};
