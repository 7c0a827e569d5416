/**
 * LoopDetectionService's tool-call check (always on in 0.61.0): every call's `name:JSON.stringify(args)` joins a
 * history of 25; a cycle of 1 to 5 calls repeated 5 times in a row is a loop. The first detection drops the turn and
 * sends the model a feedback message (recorded: the 5th identical `glob`); the second stops the run. Recorded: the
 * dropped turn is echoed as the model text `[The previous response was interrupted before it completed.]` (approx.
 * here: the engine echoes the turn as the model sent it, and the feedback follows as a user message).
 *
 * Not emulated: the content-chanting check on streamed text, and the LLM loop check gemini starts after 30 turns
 * (a side request to the model).
 */
import type { ParsedCall, Session } from "../../lib/harness/types.ts";

/** TOOL_CALL_LOOP_THRESHOLD. */
const THRESHOLD = 5;

interface LoopState {
  history: string[];
  detected: number;
  stop: boolean;
}

function state(s: Session): LoopState {
  let st = s.state.get("gemini.loop") as LoopState | undefined;
  if (!st) s.state.set("gemini.loop", st = { history: [], detected: 0, stop: false });
  return st;
}

/** checkToolCallLoop: pushes the call and says whether the history now ends in a repeated cycle. */
function pushAndCheck(st: LoopState, key: string): boolean {
  st.history.push(key);
  if (st.history.length > 5 * THRESHOLD) st.history = st.history.slice(-5 * THRESHOLD);
  const h = st.history, n = h.length;
  for (let k = 1; k <= 5; k++) {
    const need = k * THRESHOLD;
    if (n < need) continue;
    const cycle = h.slice(-k);
    let match = true;
    for (let i = 0; i < need && match; i++) match = h[n - need + i] === cycle[i % k];
    if (match) return true;
  }
  return false;
}

/**
 * The profile's `validate` hook: runs the check over a turn's calls in order. On a first detection the turn is a
 * format error whose text is gemini's feedback; on a second one the turn is let through and its first call stops
 * the episode (`loopStopsHere`).
 */
export function checkLoop(calls: ParsedCall[], s: Session): string | undefined {
  const st = state(s);
  for (const c of calls) {
    const name = c.name.trim() || "generic_tool";
    const args = JSON.stringify(c.args ?? {});
    if (!pushAndCheck(st, `${name}:${args}`)) continue;
    st.detected++;
    if (st.detected > 1) {
      st.stop = true;
      return undefined;
    }
    return `System: Potential loop detected. Details: Repeated tool call: ${name} with arguments ${args}. ` +
      "Please take a step back and confirm you're making forward progress. If not, take a step back, analyze your " +
      "previous actions and rethink how you're approaching the problem. Avoid repeating the same tool calls or " +
      "responses without new results.";
  }
  return undefined;
}

/** True when a second loop detection is pending: the call that sees it ends the episode. */
export function loopStopsHere(s: Session): boolean {
  return state(s).stop;
}
