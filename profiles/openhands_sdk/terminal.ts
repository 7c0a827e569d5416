/**
 * The `terminal` tool (terminal/terminal/terminal_session.py, definition.py). Upstream keeps one tmux bash session;
 * here each command is a process on a pseudo-terminal in the persistent shell's state (cd and exports carry over,
 * lib/harness/tools/processes.ts on the episode's channel). A command that outlives its call (30 s without new output,
 * or the `timeout` asked) keeps running: the next call reads more with an empty command, sends input or a `C-c` key
 * with `is_input`, and a new command is refused while it runs, as upstream does. Result and error strings are
 * upstream's (OpenHands/software-agent-sdk at 611629e) unless marked approx.
 */
import { shQuote, text } from "../../lib/runtime/channel.ts";
import { persistentScript } from "../../lib/harness/tools/ops.ts";
import { hasProcess, killProcess, readProcess, startProcess } from "../../lib/harness/tools/processes.ts";
import { approx } from "../../lib/harness/provenance.ts";
import type { Session } from "../../lib/harness/types.ts";
import type { ParsedCall, TextPart } from "../../lib/harness/types.ts";
import { headTailChars } from "../../lib/harness/tools/truncate.ts";
import { errorParts, invalid, leadingName, notFound, parts, takeMeta, validateAction } from "./args.ts";

/** no_change_timeout_seconds: a call returns after 30 s without new output; the command keeps running. */
export const NO_CHANGE_TIMEOUT = 30;
const MAX_CMD_OUTPUT_SIZE = 30000;
/** Upper bound on one call's wait, with or without `timeout` (approx.: upstream has none). */
const MAX_TIMEOUT = 1800;

export const TIMEOUT_MESSAGE_TEMPLATE = "You may wait longer to see additional output by sending empty command '', " +
  'send other commands to interact with the current process, send keys ("C-c", "C-z", "C-d") to interrupt/kill the ' +
  "previous command before sending your new command, or use the timeout parameter in terminal for future commands.";

const TRUNCATE_NOTICE =
  "<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>";

/** sdk/utils/truncate.py maybe_truncate: head ceil(available/2), the notice, then the tail. */
export function maybeTruncate(content: string, limit: number, notice = TRUNCATE_NOTICE): string {
  if (content.length <= limit) return content;
  const available = limit - notice.length;
  const head = Math.ceil(available / 2);
  return headTailChars(content, head, available - head, () => notice);
}

const FIELDS = {
  command: "str",
  is_input: "bool",
  timeout: "float",
  reset: "bool",
} as const;

/** The rewrite normalize_tool_call does for `git`/`reset` and bare find/ls/pwd/grep; undefined: not a terminal call. */
function commandFor(name: string, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const base = leadingName(name);
  if (base === "git" || base === "reset") {
    const c = typeof args.command === "string" ? args.command : "";
    return { ...args, command: c ? `${base} ${c}` : base };
  }
  if (["find", "ls", "pwd"].includes(base)) {
    return Object.keys(args).length === 0 ? { command: base } : undefined;
  }
  if (base === "grep") {
    if (typeof args.pattern !== "string") return undefined;
    const path = typeof args.path === "string" ? args.path : ".";
    return { command: `grep -rn ${shQuote(args.pattern)} ${shQuote(path)}` }; // approx. (upstream's exact form unread)
  }
  return args;
}

async function baselineEnv(s: Session): Promise<string[]> {
  let names = s.state.get("oh.env0") as string[] | undefined;
  if (!names) {
    const r = await s.exec("compgen -e", { shell: "bash", timeout: 30 });
    names = r.stdout.split("\n").filter(Boolean);
    s.state.set("oh.env0", names);
  }
  return names;
}

/** A command still running after its call returned (upstream's NO_CHANGE_TIMEOUT / HARD_TIMEOUT status). */
interface Running {
  /** The process handle (lib/harness/tools/processes.ts). */
  handle: number;
  /** Its output so far (upstream's prev_output: a later read shows only what came after it). */
  seen: string;
  /** Where the command writes its exit code, directory and interpreter when it ends. */
  meta: string;
}

const running = (s: Session) => s.state.get("oh.running") as Running | undefined;

/** `C-x` (three characters): a key the model may send with is_input, written without Enter. */
const isSpecialKey = (c: string) => c.startsWith("C-") && c.length === 3;

/** The byte a `C-x` key sends on a terminal (C-c → ETX, C-d → EOT, C-z → SUB). */
const controlByte = (key: string) => String.fromCharCode(key.toUpperCase().charCodeAt(2) & 0x1f);

/**
 * Starts a command in the persistent shell's state (cd and exports carry over) as a process that may outlive the
 * call, on a pseudo-terminal as upstream's tmux pane is (line-buffered output, echo, Ctrl-C as a signal).
 */
async function start(s: Session, command: string): Promise<Running> {
  const meta = `${s.box.scratch}/.pgs-oh-meta.${crypto.randomUUID().slice(0, 8)}`;
  const body = `eval ${shQuote(command)}\n__pgs_rc=$?\n` +
    `printf '%s\\n%s\\n%s' "$__pgs_rc" "$PWD" "$(which python 2>/dev/null || true)" > ${shQuote(meta)}\n` +
    "exit $__pgs_rc";
  const handle = await startProcess(s.box, persistentScript(s.box, body), { shell: ["bash", "-lc"], stdin: "tty" });
  const r: Running = { handle, seen: "", meta };
  s.state.set("oh.running", r);
  return r;
}

/**
 * Waits as upstream's loop does (until the command ends; or `hard` seconds with a timeout given; else until 30 s
 * pass without new output) and words the observation as TerminalObservation.to_llm_content does.
 */
async function observe(
  s: Session,
  r: Running,
  hard: number | undefined,
  sent: string,
  input?: string,
): Promise<string> {
  const waitMs = Math.min(hard ?? MAX_TIMEOUT, MAX_TIMEOUT) * 1000;
  const got = await readProcess(s.box, r.handle, waitMs, {
    input,
    idleMs: hard === undefined ? NO_CHANGE_TIMEOUT * 1000 : undefined,
  });
  // The pane shows lines, not the pty's CR LF.
  const out = text(got.output).replace(/\r\n/g, "\n").replace(/\s+$/, ""); // .rstrip()
  const continued = r.seen !== "";
  r.seen += text(got.output);
  if (got.exitCode === null) {
    // No metadata on a timeout: no directory, interpreter or exit-code lines.
    const prefix = continued ? "[Below is the output of the previous command.]\n" : "";
    const suffix = hard === undefined
      ? `\n[The command has no new output after ${NO_CHANGE_TIMEOUT} seconds. ${TIMEOUT_MESSAGE_TEMPLATE}]`
      : `\n[The command timed out after ${fmtSeconds(hard)} seconds. ${TIMEOUT_MESSAGE_TEMPLATE}]`;
    return maybeTruncate(`${prefix}${out}${suffix}`, MAX_CMD_OUTPUT_SIZE);
  }
  s.state.delete("oh.running");
  const m = await s.box.exec(`cat ${shQuote(r.meta)} 2>/dev/null; rm -f ${shQuote(r.meta)}`, { shell: "sh" });
  const [rc, dir, py] = text(m.stdout).split("\n");
  const exit = rc === undefined || rc === "" ? got.exitCode : Number(rc);
  const cwd = dir || ((s.state.get("oh.cwd") as string | undefined) ?? s.workdir);
  s.state.set("oh.cwd", cwd);
  const suffix = isSpecialKey(sent)
    ? `\n[The command completed with exit code ${exit}. CTRL+${sent.slice(-1).toUpperCase()} was sent.]`
    : `\n[The command completed with exit code ${exit}.]`;
  let text_ = `${out}${suffix}\n[Current working directory: ${cwd}]`;
  if ((py ?? "").trim()) text_ += `\n[Python interpreter: ${py.trim()}]`;
  text_ += `\n[Command finished with exit code ${exit}]`;
  return maybeTruncate(text_, MAX_CMD_OUTPUT_SIZE);
}

/** Runs one command (it may keep running past the call) and words what the call saw. */
async function run(s: Session, command: string, hard: number | undefined): Promise<string> {
  return observe(s, await start(s, command), hard, command);
}

/** Python's str() of the float the model gave (`10` → `10.0`). */
const fmtSeconds = (t: number) => Number.isInteger(t) ? `${t}.0` : String(t);

/** The terminal binding. */
export async function terminalTool(s: Session, raw: Record<string, unknown>, call: ParsedCall): Promise<TextPart[]> {
  const names = s.profile.tools.map((t) => t.schema.function.name);
  const rewritten = commandFor(call.name, raw);
  if (!rewritten) return notFound(call.name, names);
  const meta = takeMeta(rewritten);
  if ("error" in meta) return invalid("terminal", meta.error, rewritten);
  const v = validateAction("TerminalAction", FIELDS, ["command"], meta.args);
  if ("error" in v) return invalid("terminal", v.error, meta.args);
  const a = v.ok as { command: string; is_input?: boolean; timeout?: number; reset?: boolean };
  if (a.reset && a.is_input) return parts("Error executing tool 'terminal': Cannot use reset=True with is_input=True");
  const base = await baselineEnv(s);
  if (a.reset) {
    const r = running(s);
    if (r) await killProcess(s.box, r.handle);
    s.state.delete("oh.running");
    // approx.: a new session starts in the working directory with the starting environment.
    const keep = base.map((n) => `[${n}]=1`).join(" ");
    await s.exec(
      `declare -A __k=(${keep}); for v in $(compgen -e); do [ -n "\${__k[$v]}" ] || unset "$v"; done; cd ${
        shQuote(s.workdir)
      }`,
      { persistent: true, timeout: 30 },
    );
    s.state.set("oh.cwd", s.workdir);
    const note = approx(
      "Terminal session has been reset. All previous environment variables and session state have been cleared.",
    );
    if (!a.command.trim()) return parts(note);
    return parts(`[${note}]\n${await run(s, a.command, a.timeout)}`);
  }
  const command = a.command.trim();
  const r = running(s);
  if (!r) {
    if (command === "") return errorParts("No previous running command to retrieve logs from.");
    if (a.is_input) return errorParts("No previous running command to interact with.");
    return parts(await run(s, command, a.timeout));
  }
  if (!hasProcess(s.box, r.handle)) {
    // approx.: it ended on its own since the last call; upstream would show its remaining output with the next one.
    s.state.delete("oh.running");
    return parts(await run(s, command, a.timeout));
  }
  if (!a.is_input && command !== "") {
    // A new command while the previous one runs is not sent: what the previous printed since, and the refusal.
    const got = await readProcess(s.box, r.handle, 0);
    const out = text(got.output).replace(/\r\n/g, "\n").replace(/\s+$/, "");
    const prefix = r.seen !== "" ? "[Below is the output of the previous command.]\n" : "";
    r.seen += text(got.output);
    return errorParts(maybeTruncate(
      `${prefix}${out}\n[Your command "${command}" is NOT executed. The previous command is still running - You ` +
        "CANNOT send new commands until the previous command is completed. By setting `is_input` to `true`, you can " +
        `interact with the current process: ${TIMEOUT_MESSAGE_TEMPLATE}]`,
      MAX_CMD_OUTPUT_SIZE,
    ));
  }
  // Input to the running command: a `C-x` key as its control byte, anything else typed with Enter; "" only waits.
  const input = command === "" ? undefined : isSpecialKey(command) ? controlByte(command) : `${command}\r`;
  return parts(await observe(s, r, a.timeout, command, input));
}
