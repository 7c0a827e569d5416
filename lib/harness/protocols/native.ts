/**
 * Native tool calls: the request carries the tools' schemas, the policy's turn carries `tool_calls`, and each result
 * is a tool message whose keys follow the harness's order. A turn without a call is the answer under a `no_call` stop
 * rule (or a `finish` rule that ends on text), and a format error otherwise.
 */
import type { ChatMessage, ToolCall, ToolMessageKey } from "../types.ts";
import type { ProtocolDef } from "./protocol.ts";

const DEFAULT_TOOL_MESSAGE_KEYS: ToolMessageKey[] = ["content", "tool_call_id"];

/** The native protocol. */
export const NATIVE: ProtocolDef<{ kind: "native" }> = {
  kind: "native",
  native: true,
  describe: () => "native",
  async turn(ctx, _p, turn, calls) {
    const profile = ctx.session.profile;
    if (calls.length === 0) {
      const stop = profile.stop;
      if (stop.kind === "no_call") {
        ctx.finish(turn.content ?? "");
        return [];
      }
      if (stop.kind === "finish" && stop.endOnText && (turn.content ?? "").trim()) {
        ctx.finish(null);
        return [];
      }
      return ctx.formatError("no tool call");
    }
    const invalid = profile.validate?.(calls, ctx.session);
    if (invalid !== undefined) return ctx.formatError(invalid);
    const out: ChatMessage[] = [];
    for (const call of calls) {
      const result = await ctx.run(call);
      if (ctx.done) break;
      // Keys are added in the harness's order: the request's JSON (and so its tokens) keeps it.
      const values = { content: result, tool_call_id: call.id, name: ctx.toolName(call.name) };
      const msg: Record<string, unknown> = { role: "tool" };
      for (const key of profile.toolMessageKeys ?? DEFAULT_TOOL_MESSAGE_KEYS) msg[key] = values[key];
      out.push(msg as unknown as ChatMessage);
    }
    // Notes the bindings asked for (claude-code's system-role messages) follow the turn's results.
    out.push(...ctx.session.pendingMessages.splice(0));
    return out;
  },
  encode(_p, tool, args, id, content) {
    const call: ToolCall = { id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } };
    return { content, finish_reason: "tool_calls", tool_calls: [call] };
  },
  // Native turns are read from their tool_calls, not from text.
  atifCalls: () => ({ calls: [] }),
};
