/**
 * hermes' terminal tool (tools/terminal_tool.py @01224e79): in the foreground a persistent shell (cd and exports
 * carry over), stdout and stderr merged, the output `.strip()`ped and capped at 50_000 chars (head 40 %, the
 * truncation marker, tail 60 %), answered as `{"output", "exit_code", "error"}` plus `exit_code_meaning` for the
 * commands hermes knows exit 1 on a non-error; a foreground command that backgrounds itself or starts a dev server
 * is turned away towards `background=true`, which starts the command as a tracked process (`process.ts`).
 */
import { approx } from "../../lib/harness/provenance.ts";
import type { Session } from "../../lib/harness/types.ts";
import { backgroundHint, foregroundGuidance, PTY_NOTE, pyTruthy, requiresPipeStdin, stripAnsi } from "./background.ts";
import { pyDumps, toolError } from "./json.ts";
import { startBackground } from "./process.ts";

/** tool_output.max_bytes default. */
export const MAX_OUTPUT = 50_000;
/** The default foreground timeout and TERMINAL_MAX_FOREGROUND_TIMEOUT. */
export const DEFAULT_TIMEOUT = 180;
export const MAX_FOREGROUND_TIMEOUT = 600;

/** hermes' truncation: head 40 %, the marker, tail 60 % of `max` characters. */
export function truncateOutput(output: string, max = MAX_OUTPUT): string {
  if (output.length <= max) return output;
  const head = Math.floor(max * 0.4), tail = max - head;
  const omitted = output.length - head - tail;
  return output.slice(0, head) +
    `\n\n... [OUTPUT TRUNCATED - ${omitted} chars omitted out of ${output.length} total] ...\n\n` +
    output.slice(output.length - tail);
}

/** The command whose exit status is reported: the last pipeline stage's first word (approx.). */
function lastCommandWord(command: string): string {
  const seg = command.split(/\|\||&&|;|\||\n/).map((x) => x.trim()).filter(Boolean).pop() ?? "";
  const words = seg.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  return (words[0] ?? "").replace(/^.*\//, "");
}

/** exit_code_meaning for a non-zero status hermes explains (only exit 1 of these commands). */
export function exitCodeMeaning(command: string, code: number): string | undefined {
  if (code !== 1) return undefined;
  const w = lastCommandWord(command);
  if (["grep", "egrep", "fgrep", "rg", "ag", "ack"].includes(w)) return "No matches found (not an error)";
  if (["diff", "cmp"].includes(w)) return "Files differ (expected, not an error)";
  if (w === "test" || w === "[" || w === "[[") return "Condition evaluated to false (expected, not an error)";
  return undefined;
}

/** terminal(command, background, timeout, pty). */
export async function terminalTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const command = args.command;
  if (typeof command !== "string" || command.trim() === "") return approx(toolError("command is required"));
  const background = pyTruthy(args.background);
  const asked = typeof args.timeout === "number" && Number.isFinite(args.timeout) ? Math.floor(args.timeout) : null;
  if (!background && asked !== null && asked > MAX_FOREGROUND_TIMEOUT) {
    return toolError(
      `Foreground timeout ${asked}s exceeds the maximum of ${MAX_FOREGROUND_TIMEOUT}s. Use background=true with ` +
        "notify_on_complete=true for long-running commands.",
    );
  }
  if (!background) {
    const guidance = foregroundGuidance(command);
    if (guidance) return pyDumps({ output: "", exit_code: -1, error: guidance, status: "error" });
  }
  if (background) {
    let pty = pyTruthy(args.pty), ptyNote: string | undefined;
    if (pty && requiresPipeStdin(command)) [pty, ptyNote] = [false, PTY_NOTE];
    const started = await startBackground(s, command, pty);
    if (started.exit_code !== 0) return pyDumps(started);
    return pyDumps({ ...started, pty_note: ptyNote, hint: backgroundHint(command) });
  }
  const timeout = asked !== null && asked >= 1 ? asked : DEFAULT_TIMEOUT;
  const r = await s.exec(command, { persistent: true, merge: true, timeout });
  if (r.timedOut) {
    return pyDumps({ output: "", exit_code: 124, error: `Command timed out after ${timeout} seconds` });
  }
  const output = truncateOutput(stripAnsi(r.output).trim());
  const result: Record<string, unknown> = { output, exit_code: r.exitCode, error: null };
  const meaning = exitCodeMeaning(command, r.exitCode);
  if (meaning) result.exit_code_meaning = meaning;
  return pyDumps(result);
}
