/**
 * What hermes' terminal says about commands that outlive a call (tools/terminal_tool.py @01224e79): the guard that
 * turns a foreground command with shell-level backgrounding or a dev server away (`_foreground_background_guidance`),
 * the hints a `background=true` result carries, the PTY opt-out for stdin-driven commands; and the text helpers the
 * process tool shares with the terminal (`strip_ansi`, Python's `str.splitlines()`, truthiness).
 */

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** tools/ansi_strip.py `strip_ansi` (CSI, OSC and two-character escapes). */
export const stripAnsi = (s: string): string => s.replace(ANSI, "");

// Python's line boundaries for str.splitlines().
const BREAKS = "\\n\\r\\v\\f\\x1c\\x1d\\x1e\\x85\\u2028\\u2029";
const SPLIT = new RegExp(`\\r\\n|[${BREAKS}]`), ENDS_BROKEN = new RegExp(`[${BREAKS}]$`);

/** Python's `str.splitlines()` (no keepends). */
export function splitlines(s: string): string[] {
  if (!s) return [];
  const parts = s.split(SPLIT);
  if (ENDS_BROKEN.test(s)) parts.pop();
  return parts;
}

/** Python's truthiness of a JSON value (`if background:`). */
export function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

/** `" ".join(command.lower().split())`. */
const normalized = (command: string) => command.toLowerCase().split(/\s+/).filter(Boolean).join(" ");

const SHELL_LEVEL_BACKGROUND = /(?:^|[;&|]\s*|&&\s*|\|\|\s*|\$\(\s*)(?:nohup|disown|setsid)\b/im;
const INLINE_BACKGROUND_AMP = /\s&\s/;
// Python's `$` (no MULTILINE) also matches before a final newline.
const TRAILING_BACKGROUND_AMP = /\s&\s*(?:#.*)?\n?$/;
const LONG_LIVED_FOREGROUND = [
  /\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|watch)\b/i,
  /\bdocker\s+compose\s+up\b/i,
  /\bnext\s+dev\b/i,
  /\bvite(?:\s|$)/i,
  /\bnodemon\b/i,
  /\buvicorn\b/i,
  /\bgunicorn\b/i,
  /\bpython(?:3)?\s+-m\s+http\.server\b/i,
];

/** `_strip_quotes`: quoted text emptied so keywords inside strings do not count. */
function stripQuotes(command: string): string {
  return command.replace(/'[^']*'/g, "''").replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/`[^`]*`/g, "``");
}

/** `_looks_like_help_or_version_command`. */
function helpOrVersion(command: string): boolean {
  const n = normalized(command);
  return n.includes(" --help") || n.endsWith(" -h") || n.includes(" --version") || n.endsWith(" -v");
}

/** `_foreground_background_guidance`: why a foreground command should run with background=true, if it should. */
export function foregroundGuidance(command: string): string | undefined {
  if (helpOrVersion(command)) return undefined;
  const unquoted = stripQuotes(command);
  if (SHELL_LEVEL_BACKGROUND.test(unquoted)) {
    return "Foreground command uses shell-level background wrappers (nohup/disown/setsid). Use " +
      "terminal(background=true) so Hermes can track the process, then run readiness checks and tests in separate " +
      "commands.";
  }
  if (INLINE_BACKGROUND_AMP.test(unquoted) || TRAILING_BACKGROUND_AMP.test(unquoted)) {
    return "Foreground command uses '&' backgrounding. Use terminal(background=true) for long-lived processes, then " +
      "run health checks and tests in follow-up terminal calls.";
  }
  if (LONG_LIVED_FOREGROUND.some((p) => p.test(unquoted))) {
    return "This foreground command appears to start a long-lived server/watch process. Run it with " +
      "background=true, verify readiness (health endpoint/log signal), then execute tests in a separate command.";
  }
  return undefined;
}

/** `_command_requires_pipe_stdin`: PTY mode would break a command that waits for EOF on piped stdin. */
export function requiresPipeStdin(command: string): boolean {
  const n = normalized(command);
  return n.startsWith("gh auth login") && n.includes("--with-token");
}

/** `pty_disabled_reason`, reported as `pty_note` when PTY mode was turned off for such a command. */
export const PTY_NOTE = "PTY disabled for this command because it expects piped stdin/EOF (for example gh auth login " +
  "--with-token). For local background processes, call process(action='close') after writing so it receives EOF.";

/** The nudge on every background start without notify_on_complete or watch_patterns. */
const SILENT_HINT = "background=true without notify_on_complete=true means this process runs SILENTLY — you will " +
  "not be told when it exits. If this is a bounded task (test suite, build, CI poller, deploy, anything with a " +
  "defined end), you almost certainly wanted notify_on_complete=true so the system pings you on exit. Re-launch " +
  "with notify_on_complete=true, or call process(action='poll') / process(action='wait') yourself to learn the " +
  "outcome. Only ignore this hint for genuine long-lived processes that never exit (servers, watchers, daemons).";

/** The nudge on a homebrewed CI poller (`gh pr view --json statusCheckRollup`, `gh pr checks | jq`). */
const CI_POLLER_HINT = "This looks like a homebrewed CI poller built from `gh pr view --json statusCheckRollup` " +
  "and/or `gh pr checks | jq`. That shape has burned us repeatedly in hermes-agent dev work (PRs #31329, #31448, " +
  "#31695, #31709, #31745, #32264, #33131) — stdout buffering kills output capture, jq null-key edge cases " +
  "silently exit the loop, conclusion-vs-status field confusion exits early with bogus all-green verdicts, " +
  "TTY-only summary banners never appear when piped. Use the canonical snippets in the green-ci-policy skill " +
  "instead: the exit-code-driven `gh pr checks $PR >/dev/null` (rc 0 = green, 8 = pending, else fail) for " +
  "exit-on-first-fail behavior, or the column-2 awk-on-tabs poller " +
  String.raw`(` + "`" + String.raw`awk -F"\t" "$2==\"pending\""` + "`" + ") for sharded matrices. Load " +
  "skill_view(name='github/hermes-agent-dev', file_path='references/green-ci-policy.md') for the verbatim " +
  "snippets. If you must roll a custom loop with rich structured output, write each tick to a known file " +
  "(`tee -a /tmp/ci.log`) and rely on `process(action='log')` to read THAT file — do not rely on " +
  "background-process stdout capture for line-buffered shell loops.";

/** The `hint` of a background start (notify_on_complete and watch_patterns are never set here). */
export function backgroundHint(command: string): string {
  const gh = command.includes("gh pr view") || command.includes("gh pr checks");
  const jq = command.includes(" jq ") || command.includes("| jq") || command.includes("$(jq");
  const badShape = command.includes("statusCheckRollup") || (gh && jq);
  return badShape ? `${SILENT_HINT}\n\n${CI_POLLER_HINT}` : SILENT_HINT;
}
