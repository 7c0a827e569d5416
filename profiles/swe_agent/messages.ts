/**
 * SWE-agent's own message texts (config/default.yaml, agents.py TemplateConfig, parsing.py FunctionCallingParser,
 * tools.py ToolFilterConfig), rendered as jinja2 renders them.
 */
import { pyBlank, pyLen, pySlice } from "./py.ts";

/** `TemplateConfig.max_observation_length`. */
export const MAX_OBSERVATION_LENGTH = 100_000;
/** `ToolConfig.execution_timeout`, seconds. */
export const EXECUTION_TIMEOUT = 30;
/** `ToolConfig.max_consecutive_execution_timeouts`. */
export const MAX_CONSECUTIVE_TIMEOUTS = 3;
/** `DefaultAgent.max_requeries`. */
export const MAX_REQUERIES = 3;

/** `next_step_no_output_template` (default.yaml). */
export const NO_OUTPUT = "Your command ran successfully and did not produce any output.";

/** The observation message: no-output, truncated (`Observation:`, class default) or `OBSERVATION:\n` (default.yaml). */
export function observation(obs: string): string {
  if (pyBlank(obs)) return NO_OUTPUT;
  const n = pyLen(obs);
  if (n > MAX_OBSERVATION_LENGTH) {
    return `Observation: ${pySlice(obs, 0, MAX_OBSERVATION_LENGTH)}<response clipped><NOTE>Observations should not ` +
      `exceeded ${MAX_OBSERVATION_LENGTH} characters. ${n - MAX_OBSERVATION_LENGTH} characters were elided. Please ` +
      "try a different command that produces less output or use head/tail/grep/redirect the output to a file. Do not " +
      "use interactive pagers.</NOTE>";
  }
  return `OBSERVATION:\n${obs}`;
}

/** `command_cancelled_timeout_template`. */
export function timeoutMessage(command: string, timeout: number): string {
  return `The command '${command}' was cancelled because it took more than ${timeout} seconds. Please try a different ` +
    "command that completes more quickly. Note: A common source of this error is if the command is interactive or " +
    "requires user input (it is impossible to receive user input in the current environment, so the command will " +
    "never complete).";
}

/** `shell_check_error_template`. */
export function syntaxErrorMessage(stdout: string, stderr: string): string {
  return "Your bash command contained syntax errors and was NOT executed. Please fix the syntax errors and try again. " +
    "This can be the result of not adhering to the syntax for multi-line commands. Here is the output of `bash -n`:\n" +
    `${stdout}\n${stderr}`;
}

/** FunctionCallingParser.error_message, error_code "missing" (a turn without tool calls). */
export const MISSING_CALL = "Your last output did not use any tool calls!\n" +
  "Please make sure your output includes exactly _ONE_ function call!\n" +
  "You must invoke the function directly using the function call format.\n" +
  "You cannot invoke commands with ```, you have to use the function call format.\n" +
  "If you think you have already resolved the issue, please submit your changes by running the `submit` command.\n" +
  "If you think you cannot solve the problem, please run `exit_forfeit` (if available) or `submit`.\n" +
  "Else, please continue with a new tool call!";

/**
 * FunctionCallingParser.error_message, error_code "multiple": SWE-agent takes exactly one call per turn and re-asks
 * when a turn has several (parsing.py `__call__`, checked before any call is parsed).
 */
export const MULTIPLE_CALLS = "Your last output included multiple tool calls!\n" +
  "Please make sure your output includes a thought and exactly _ONE_ function call.";

/** FunctionCallingParser.error_message for the other codes (note the doubled period and the trailing newline). */
export function parseError(message: string): string {
  return `Your action could not be parsed properly: ${message}.\n`;
}

/** FunctionCallingParser.error_message, error_code "unexpected_arg". */
export function unexpectedArgError(message: string): string {
  return `Your action could not be parsed properly: ${message}.\nMake sure your function call doesn't include any ` +
    "extra arguments that are not in the allowed arguments, and only use the allowed commands.";
}

/** ToolFilterConfig.blocklist_error_template. */
export function blockedMessage(action: string): string {
  return `Operation '${action}' is not supported by this environment.`;
}

const BLOCKLIST = ["vim", "vi", "emacs", "nano", "nohup", "gdb", "less", "tail -f", "python -m venv", "make"];
const BLOCKLIST_STANDALONE = [
  "python",
  "python3",
  "ipython",
  "bash",
  "sh",
  "/bin/bash",
  "/bin/sh",
  "nohup",
  "vi",
  "vim",
  "emacs",
  "nano",
  "su",
];
const BLOCK_UNLESS_REGEX: Record<string, RegExp> = {
  radare2: /\b(?:radare2)\b.*\s+-c\s+.*/,
  r2: /\b(?:radare2)\b.*\s+-c\s+.*/,
};

/** `ToolHandler.should_block_action` on the stripped action. */
export function shouldBlock(action: string): boolean {
  const a = action.trim();
  if (!a) return false;
  if (BLOCKLIST.some((f) => a.startsWith(f))) return true;
  if (BLOCKLIST_STANDALONE.includes(a)) return true;
  const name = a.split(/\s+/)[0];
  return name in BLOCK_UNLESS_REGEX && !BLOCK_UNLESS_REGEX[name].test(a);
}
