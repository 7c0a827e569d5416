/**
 * run_shell_command (ShellTool) without a pseudo-terminal, as gemini runs it headless (recorded: `tty` says "not a
 * tty"): the command, unwrapped from a `bash -c` and refused when it substitutes commands, runs through
 * shell.py (gemini's wrapper, a new session, merged streams, the 5-minute inactivity timeout); its output is decoded,
 * stripped of ANSI sequences and trimmed, then worded as `Output:` / `Exit Code:` / `Signal:` / `Background PIDs:` /
 * `Process Group PGID:` lines inside `<untrusted_context>`, and capped by the scheduler (truncate.ts).
 * `is_background` leaves the command running in the container and answers after `delay_ms` (default 200).
 * approx.: the environment is the container's plus gemini's additions (no sanitising of secret-looking variables);
 * the first bytes' binary sniff empties the output when a NUL byte turns up in the first 512.
 */
import { posix } from "node:path";
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import type { ParsedCall, Session } from "../../lib/harness/types.ts";
import { probe } from "./fs.ts";
import { pathAccessError } from "./paths.ts";
import { SHELL_PARAMS } from "./schemas.ts";
import { SHELL_PY } from "./shell_py.ts";
import {
  hasCommandSubstitution,
  shellContent,
  stripAnsi,
  stripShellWrapper,
  SUBSTITUTION_BLOCKED,
  wrapUntrusted,
} from "./shell_text.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";
import { capShellOutput } from "./truncate.ts";

/** getShellToolInactivityTimeout's default, seconds. */
export const IDLE_SECONDS = 300;
/** MAX_CHILD_PROCESS_BUFFER_SIZE: the output gemini keeps (its tail). */
const BUFFER_BYTES = 16 * 1024 * 1024;
/** BACKGROUND_DELAY_MS. */
const BACKGROUND_DELAY_MS = 200;

/** prepareExecution's additions to the environment: no pagers, no prompts, git without user or system config. */
const GIT_OVERRIDES: [string, string][] = [
  ["credential.helper", ""],
  ["core.fsmonitor", ""],
  ["core.hooksPath", ""],
  ["core.sshCommand", ""],
  ["core.pager", "cat"],
  ["core.editor", ""],
  ["sequence.editor", ""],
  ["diff.external", ""],
];
const EXTRA_ENV: Record<string, string> = {
  GEMINI_CLI: "1",
  TERM: "xterm-256color",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_SYSTEM: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  ...Object.fromEntries(
    GIT_OVERRIDES.flatMap(([k, v], i) => [[`GIT_CONFIG_KEY_${i}`, k], [`GIT_CONFIG_VALUE_${i}`, v]]),
  ),
  GIT_CONFIG_COUNT: String(GIT_OVERRIDES.length),
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GH_PROMPT_DISABLED: "1",
  GCM_INTERACTIVE: "never",
  DISPLAY: "",
  DBUS_SESSION_BUS_ADDRESS: "",
};

interface Meta {
  pid: number | null;
  code: number | null;
  signal: number | null;
  aborted: boolean;
  truncated: boolean;
  error: string | null;
  bgpids: string;
}

async function check(s: Session, a: Args): Promise<string | null> {
  if (!str(a.command).trim()) return "Command cannot be empty.";
  if (!a.dir_path) return null;
  const dir = posix.resolve(s.workdir, str(a.dir_path));
  return pathAccessError(s, (await probe(s, dir)).real, dir);
}

async function launch(s: Session, command: string, cwd: string, bgMs: number): Promise<{ out: Uint8Array; m: Meta }> {
  const argv = [SHELL_PY, command, cwd, String(IDLE_SECONDS), String(BUFFER_BYTES), JSON.stringify(EXTRA_ENV)];
  const r = await s.box.exec(
    `command -v python3 >/dev/null || exit 127\npython3 -c ${argv.map(shQuote).join(" ")} ${bgMs}`,
    { shell: "sh", timeoutSec: s.profile.execTimeout, maxOutputBytes: BUFFER_BYTES + 4096 },
  );
  const err = utf8(r.stderr);
  const json = err.slice(err.lastIndexOf("{"));
  let m: Meta;
  try {
    m = JSON.parse(json);
  } catch {
    // No python3 (exit 127) or a killed launcher: the command's exit status is all there is (approx.).
    m = { pid: null, code: r.exitCode, signal: null, aborted: r.timedOut, truncated: false, error: null, bgpids: "" };
  }
  return { out: r.stdout, m };
}

/** The decoded output as handleExit keeps it: the binary sniff, the 16 MB note, strip-ansi, trim. */
function outputText(out: Uint8Array, truncated: boolean): string {
  if (out.subarray(0, 512).includes(0)) return "";
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(out);
  if (truncated) text += "\n[GEMINI_CLI_WARNING: Output truncated. The buffer is limited to 16MB.]"; // (source)
  return stripAnsi(text).trim();
}

async function exec(s: Session, a: Args, call: ParsedCall): Promise<Outcome> {
  const command = stripShellWrapper(str(a.command));
  if (hasCommandSubstitution(command)) return ok(SUBSTITUTION_BLOCKED);
  const cwd = a.dir_path ? posix.resolve(s.workdir, str(a.dir_path)) : s.workdir;
  const denied = pathAccessError(s, (await probe(s, cwd)).real, cwd);
  if (denied) return fail(denied);
  if (a.is_background === true) {
    const delay = typeof a.delay_ms === "number" ? a.delay_ms : BACKGROUND_DELAY_MS;
    const { m } = await launch(s, command, cwd, Math.max(0, delay));
    if (m.error) return fail(m.error);
    return ok(wrapUntrusted(`Command moved to background (PID: ${m.pid}). Output hidden. Press Ctrl+B to view.`));
  }
  const { out, m } = await launch(s, command, cwd, -1);
  if (m.error) return fail(m.error);
  const bgpids = m.bgpids.split("\n").map((l) => l.trim()).filter(Boolean).map(Number);
  const content = wrapUntrusted(shellContent({ ...m, output: outputText(out, m.truncated), bgpids }));
  return ok(await capShellOutput(s, content, call.id));
}

/** The run_shell_command tool. */
export const shellTool = geminiTool({ name: "run_shell_command", params: SHELL_PARAMS, check, exec });
