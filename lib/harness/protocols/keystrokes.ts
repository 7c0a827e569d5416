/**
 * The keystroke protocol (`terminus_json`): each turn is one JSON object of keystroke commands for a terminal and a
 * `task_complete` flag, read by Harbor's tolerant parser (`terminus_json.ts`). A turn whose feedback has an error runs
 * nothing and leaves a pending completion as it was; otherwise the batch runs through the profile's terminal hooks,
 * then the flag stop applies (a first completion asks for confirmation, a second in a row ends the episode, any other
 * parsed turn clears it).
 */
import { PROTOCOL_STATE, type ProtocolDef } from "./protocol.ts";
import { parseTerminusJson, terminusFeedback } from "./terminus_json.ts";

/** Where the session keeps a completion that awaits its confirmation. */
const PENDING_FLAG = `${PROTOCOL_STATE}pending_flag`;

/** A keystroke turn's JSON. */
function keystrokeTurn(commands: { keystrokes: string; duration: number }[], complete: boolean) {
  const turn = { analysis: "Done.", plan: complete ? "End the task." : "Run it.", commands, task_complete: complete };
  return { content: JSON.stringify(turn, null, 2) };
}

/** The keystroke protocol. */
export const KEYSTROKES: ProtocolDef<{ kind: "terminus_json" }> = {
  kind: "terminus_json",
  native: false,
  describe: () => "terminus_json",
  async turn(ctx, _p, turn) {
    const s = ctx.session;
    const hooks = s.profile.terminal;
    if (!hooks) throw new Error(`profile ${s.profile.name}: protocol terminus_json needs terminal hooks`);
    const parsed = parseTerminusJson(turn.content ?? "");
    const feedback = terminusFeedback(parsed);
    // Harbor tests the feedback text, not the error field.
    if (feedback.includes("ERROR:")) return ctx.formatError(feedback);
    ctx.countCalls(parsed.commands.length);
    const output = await hooks.run(s, parsed.commands);
    const stop = s.profile.stop;
    if (parsed.taskComplete && stop.kind === "flag") {
      if (!stop.confirm || s.state.get(PENDING_FLAG)) {
        ctx.finish(null);
        return [];
      }
      s.state.set(PENDING_FLAG, true);
      return [{ role: "user", content: hooks.confirm(output) }];
    }
    s.state.delete(PENDING_FLAG);
    return [{ role: "user", content: hooks.observe(output, feedback) }];
  },
  // No tools: a call cannot be written, but a command can be typed.
  encode: () => undefined,
  command: (_p, command) => keystrokeTurn([{ keystrokes: `${command}\n`, duration: 60 }], false),
  flagTurn: () => keystrokeTurn([], true),
  atifCalls(_p, text, turn) {
    const parsed = parseTerminusJson(text);
    // An error runs nothing and is answered by a format error, as in the episode.
    if (terminusFeedback(parsed).includes("ERROR:")) return { calls: [] };
    const calls = parsed.commands.map((c, i) => ({
      tool_call_id: `call_${turn}_${i + 1}`,
      function_name: "bash_command",
      arguments: { keystrokes: c.keystrokes, duration: c.duration } as Record<string, unknown>,
    }));
    if (parsed.taskComplete) {
      calls.push({ tool_call_id: `call_${turn}_task_complete`, function_name: "mark_task_complete", arguments: {} });
    }
    return { calls, answers: null };
  },
};
