/**
 * The text side of run_shell_command: stripShellWrapper, the command-substitution block (detectBashSubstitution),
 * strip-ansi's pattern, the `<untrusted_context>` wrapper, and the llmContent gemini builds from a finished command.
 */

/** stripShellWrapper: `bash -c '...'` (and sh, zsh, cmd, powershell forms) runs as its inner command. */
export function stripShellWrapper(command: string): string {
  const m = command.match(
    /^\s*(?:(?:(?:\S+\/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+\/c|powershell(?:\.exe)?\s+(?:-NoProfile\s+)?-Command|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+/i,
  );
  if (!m) return command.trim();
  let inner = command.substring(m[0].length).trim();
  const quoted = inner.length >= 2 &&
    ((inner.startsWith('"') && inner.endsWith('"')) || (inner.startsWith("'") && inner.endsWith("'")));
  if (!quoted) return inner;
  const body = inner.substring(1, inner.length - 1);
  // shell-quote's parse of one double-quoted word (approx.: its escapes as POSIX double quotes have them).
  if (m[0].trim().endsWith("-c") && inner.startsWith('"') && !/(^|[^\\])"/.test(body)) {
    inner = body.replace(/\\(["\\$`])/g, "$1");
  } else inner = body;
  return inner;
}

/** detectBashSubstitution: `$(`, backticks, `<(` or `>(` outside single quotes (escapes honoured). */
export function hasCommandSubstitution(command: string): boolean {
  let single = false, double = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "'" && !double) {
      single = !single;
      continue;
    }
    if (c === '"' && !single) {
      double = !double;
      continue;
    }
    if (single) continue;
    if (c === "\\" && i + 1 < command.length) {
      if (!double || ["$", "`", '"', "\\", "\n"].includes(command[i + 1])) {
        i++;
        continue;
      }
    }
    if (c === "$" && command[i + 1] === "(") return true;
    if (!double && (c === "<" || c === ">") && command[i + 1] === "(") return true;
    if (c === "`") return true;
  }
  return false;
}

/** What a blocked command gets back (as output, not as an error). */
export const SUBSTITUTION_BLOCKED =
  "Command injection detected: command substitution syntax ($(), backticks, <() or >()) found in command arguments. On PowerShell, @() array subexpressions and $() subexpressions are also blocked. This is a security risk and the command was blocked.";

// ansi-regex as the bundle builds it: OSC sequences up to their terminator, then CSI and other escapes.
const ST = "(?:\\u0007|\\u001B\\u005C|\\u009C)";
const ANSI = new RegExp(
  `(?:\\u001B\\][\\s\\S]*?${ST})|[\\u001B\\u009B][[\\]()#;?]*(?:\\d{1,4}(?:[;:]\\d{0,4})*)?[\\dA-PR-TZcf-nq-uy=><~]`,
  "g",
);

/** strip-ansi, with the ansi-regex the bundle carries. */
export const stripAnsi = (s: string): string => s.replace(ANSI, "");

/** wrapUntrusted: tool output the model must treat as data. */
export function wrapUntrusted(text: string): string {
  return `<untrusted_context>\n${
    text.replaceAll("</untrusted_context>", "&lt;/untrusted_context&gt;")
  }\n</untrusted_context>`;
}

/** A finished command, as the launcher reports it (output already decoded, stripped and trimmed). */
export interface ShellResult {
  output: string;
  pid: number | null;
  code: number | null;
  signal: number | null;
  aborted: boolean;
  bgpids: number[];
}

/** The minutes of the inactivity timeout, as gemini prints them. */
const IDLE_MINUTES = "5.0";

/** ShellToolInvocation.execute's llmContent for a foreground command (before wrapUntrusted). */
export function shellContent(r: ShellResult): string {
  if (r.aborted) {
    const head =
      `Command was automatically cancelled because it exceeded the timeout of ${IDLE_MINUTES} minutes without output.`; // (source)
    return r.output.trim()
      ? `${head} Below is the output before it was cancelled:\n${r.output}`
      : `${head} There was no output before it was cancelled.`;
  }
  const parts = [`Output: ${r.output || "(empty)"}`];
  if (r.code !== null && r.code !== 0) parts.push(`Exit Code: ${r.code}`);
  if (r.signal) parts.push(`Signal: ${r.signal}`);
  const bg = r.bgpids.filter((p) => p !== r.pid);
  if (bg.length) parts.push(`Background PIDs: ${bg.join(", ")}`);
  if (r.pid) parts.push(`Process Group PGID: ${r.pid}`);
  return parts.join("\n");
}
