/**
 * terminus-2's terminal: one persistent tmux pane (`terminus-2`, 160×40, `bash --login`), keystrokes sent as Harbor's
 * `TmuxSession.send_keys` sends them (the whole string as one `send-keys` argument, so tmux names such as `C-c` are
 * keys and a newline types Enter), and output read as `get_incremental_output` reads it.
 *
 * Waits are deterministic, not Harbor's sleep: after a batch item the pane is polled until its shell has no child
 * process and the screen is stable, for at most min(duration, 60) seconds.
 */
import type { Session } from "../../lib/harness/types.ts";
import { limitOutputLength } from "../../lib/harness/protocols/terminus_json.ts";
import { pyStrip } from "../../lib/harness/lang/python_values.ts";
import { Tmux } from "./tmux.ts";
import type { KeyCommand } from "../../lib/harness/types.ts";
import { pyLen, pySlice } from "../../lib/harness/lang/python_text.ts";

const PANE = "terminus-2.pane";
const PREVIOUS = "terminus-2.previous_buffer";
/** Harbor's `_TMUX_SEND_KEYS_MAX_COMMAND_LENGTH` (bytes). */
const MAX_COMMAND = 16_000;

function pane(s: Session): Tmux {
  const t = s.state.get(PANE);
  if (!(t instanceof Tmux)) throw new Error("terminus-2: the tmux pane was not started");
  return t;
}

/** Starts the pane (`TmuxSession.start`, without the asciinema recording). */
export async function startPane(s: Session): Promise<void> {
  s.state.set(
    PANE,
    await Tmux.start(s.box, { session: "terminus-2", width: 160, height: 40, command: "bash --login" }),
  );
}

const utf8 = new TextEncoder();

/** Splits keys whose `send-keys` command would pass tmux's limit into pieces typed one after another (approx.). */
function pieces(keys: string): string[] {
  if (utf8.encode(keys).length <= MAX_COMMAND - 64) return [keys];
  const out: string[] = [];
  let cur = "";
  for (const ch of keys) {
    if (utf8.encode(cur + ch).length > MAX_COMMAND / 2) {
      out.push(cur);
      cur = "";
    }
    cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/** Sends one batch item and waits for it, deterministically, at most min(duration, 60) seconds. */
export async function sendCommand(s: Session, cmd: KeyCommand): Promise<void> {
  const t = pane(s);
  // An empty string types nothing: only the wait remains.
  if (cmd.keystrokes !== "") { for (const p of pieces(cmd.keystrokes)) await t.keys([p]); }
  const d = Math.min(cmd.duration, 60);
  await t.wait(d > 0 ? d : 0);
}

/**
 * `get_incremental_output`: the first call shows the visible screen; later calls the scrollback from the last line of
 * the previous capture on (Harbor takes that offset within the previous buffer, kept here as it is), else the screen.
 */
export async function incrementalOutput(s: Session): Promise<string> {
  const t = pane(s);
  const current = await t.capture(true);
  const previous = s.state.get(PREVIOUS) as string | undefined;
  s.state.set(PREVIOUS, current);
  if (previous === undefined) return `Current Terminal Screen:\n${await t.capture()}`;
  const pb = pyStrip(previous);
  let fresh: string | undefined;
  if (current.includes(pb)) {
    // Code-point offsets, as Python's str.index / rfind give them.
    let idx = pyLen(current.slice(0, current.indexOf(pb)));
    if (pb.includes("\n")) idx = pyLen(pb.slice(0, pb.lastIndexOf("\n")));
    fresh = pySlice(current, idx);
  }
  if (fresh !== undefined && pyStrip(fresh)) return `New Terminal Output:\n${fresh}`;
  return `Current Terminal Screen:\n${await t.capture()}`;
}

/** `_execute_commands`: runs the batch in order, then the output limited to 10,000 bytes. */
export async function runBatch(s: Session, commands: KeyCommand[]): Promise<string> {
  for (const c of commands) await sendCommand(s, c);
  return limitOutputLength(await incrementalOutput(s));
}
