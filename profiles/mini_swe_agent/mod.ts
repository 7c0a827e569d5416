/**
 * mini-swe-agent 2.4.6: one `bash` tool (`mini.yaml`, tool-calling mode, the default) or one ```mswea_bash_command
 * block per turn (`mini_textbased.yaml`, text mode). Every action is a fresh `/bin/sh -c` with stderr merged into stdout
 * and a 30 s timeout (LocalEnvironment); the episode ends when a command's first output line is
 * COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, and what follows it is the submission.
 *
 * Written from the v2.4.6 source (tag a83fcae8): observation and format-error templates rendered as jinja2 renders them,
 * argument errors worded and ordered as `parse_toolcall_actions`, execution as `environments/local.py::_run`.
 */
import { shQuote } from "../../lib/runtime/channel.ts";
import type { ExecOut } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { jinjaToJson, pyJsonLoads, pyLen, pySlice, pyType } from "../../lib/harness/lang/python_text.ts";
import { pyStrValue } from "../../lib/harness/lang/python_values.ts";
import { fnSchema, type HarnessProfile, type ParsedCall, type ToolSpec } from "../../lib/harness/types.ts";
import type { ModelDialects } from "../../lib/harness/model_dialect.ts";

/** The version emulated. */
export const MINI_SWE_AGENT_VERSION = "2.4.6";
/** The submission sentinel (`_check_finished`). */
export const MSWEA_SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

const SOURCES = [
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/config/{mini,mini_textbased}.yaml (tag v2.4.6)",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/models/utils/actions_toolcall.py",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/models/utils/actions_text.py",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/models/{litellm_model,litellm_textbased_model}.py",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/agents/default.py",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/environments/{local,docker}.py",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/exceptions.py",
  "SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/config/benchmarks/{swebench,swebench_backticks}.yaml",
  "tests/golden/mini-swe-agent/gen.py (renders the observation and format-error goldens with jinja2 from the v2.4.6 " +
  "templates)",
];

// ---------------------------------------------------------------------------------------------------------------------
// Prompts: concise paraphrases of mini.yaml / mini_textbased.yaml, never the upstream text.

const SYSTEM_NATIVE = "You are a helpful assistant that operates a Linux computer through a single tool, `bash`.";

const SYSTEM_TEXT = "You are a helpful assistant that operates a Linux computer by writing shell commands.\n\n" +
  "Every response explains your reasoning first and then gives exactly ONE command (several may be joined with && " +
  "or ||) in a single fenced block tagged mswea_bash_command, like this:\n\n" +
  "```mswea_bash_command\nls -la\n```\n\nResponses with no block or with more than one block are rejected.";

function userTemplate(text: boolean): string {
  const act = text ? "exactly one mswea_bash_command block" : "at least one bash tool call";
  return `Please solve this task: {instruction}

You can run shell commands and edit files to make the changes the task needs.

Suggested way to work, one step at a time:
1. Find and read the relevant files.
2. Reproduce the problem, e.g. with a small script.
3. Change the code or files.
4. Run your check again to confirm the fix.
5. Try edge cases.
6. When you are done, run \`echo ${MSWEA_SENTINEL}\` as a command of its own. You cannot do anything after it.

Rules:
- Start each response with a short explanation of what you are doing and why, then give ${act}.
- Each command runs in a new subshell: \`cd\` and environment variables do not carry over. Prefix a command instead
  (\`cd /some/dir && ...\`) or keep state in files.
- Use non-interactive commands only; create files with heredocs (\`cat <<'EOF' > file\`) and edit them with \`sed -i\`.

<system_information>
{system_information}
</system_information>`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Python-compatible string helpers (lengths and slices count code points, as Python's str does).

/** What `LocalEnvironment.execute` returns. */
export interface MsweaOutput {
  output: string;
  returncode: number;
  /** "" when the command ran. */
  exceptionInfo: string;
}

// mini.yaml's environment.env, merged over the agent process's own environment.
const ENV_EXPORTS = "export PAGER=cat MANPAGER=cat LESS=-R PIP_PROGRESS_BAR=off TQDM_DISABLE=1";
// Linux's limit on one argv string (MAX_ARG_STRLEN, with its NUL): Popen fails with E2BIG beyond it.
const MAX_ARG_BYTES = 131072;

/** Python's `str()` of a command that is not a str (for the timeout message). */
const pyStr = pyStrValue;

function failed(message: string): MsweaOutput {
  return { output: "", returncode: -1, exceptionInfo: `An error occurred while executing the command: ${message}` };
}

/**
 * Runs an action the way `LocalEnvironment._run` does: `subprocess.Popen(command, shell=True, text=True,
 * stderr=STDOUT)` (so `/bin/sh -c command`, universal newlines), killed at the timeout with its partial output kept.
 * Sets `s.lastExec` to what `_check_finished` sees, so the engine's sentinel rule reads the same text and return code.
 */
export async function msweaExecute(s: Session, command: unknown): Promise<MsweaOutput> {
  // Popen(shell=True): a str is one argument of `/bin/sh -c`; any other value is iterated into the argument list.
  let argv: string[];
  if (typeof command === "string") argv = [command];
  else if (command && typeof command === "object") {
    argv = [];
    for (const a of Array.isArray(command) ? command : Object.keys(command)) {
      if (typeof a !== "string") return failed(`expected str, bytes or os.PathLike object, not ${pyType(a)}`);
      argv.push(a);
    }
  } else return failed(`'${pyType(command)}' object is not iterable`);
  if (argv.some((a) => a.includes("\0"))) return failed("embedded null byte");
  const enc = new TextEncoder();
  if (argv.some((a) => enc.encode(a).length >= MAX_ARG_BYTES)) {
    return failed("[Errno 7] Argument list too long: '/bin/sh'");
  }
  // `exec /bin/sh -c`: $0, error prefixes (`/bin/sh: 1: foo: not found`) and line numbers as under Popen.
  const script = `${ENV_EXPORTS}\nexec /bin/sh -c ${argv.map(shQuote).join(" ")}`;
  const r = await s.exec(script, { shell: "sh", merge: true });
  // text=True: universal newlines (communicate() turns \r\n and \r into \n).
  const output = r.output.replace(/\r\n?/g, "\n");
  let result: MsweaOutput;
  if (r.timedOut) {
    const cmd = typeof command === "string" ? command : pyStr(command);
    result = {
      output,
      returncode: -1,
      // subprocess.TimeoutExpired: "Command '%s' timed out after %s seconds" % (cmd, timeout)
      exceptionInfo: `An error occurred while executing the command: Command '${cmd}' timed out after ${
        pyStr(s.profile.execTimeout)
      } seconds`,
    };
  } else result = { output, returncode: r.exitCode, exceptionInfo: "" };
  const seen: ExecOut = { ...r, output, exitCode: result.returncode };
  s.lastExec = seen;
  return result;
}

// ---------------------------------------------------------------------------------------------------------------------
// Observation templates.

/** mini.yaml's `observation_template` (tool mode), as jinja2 renders it. */
export function renderToolObservation(o: MsweaOutput): string {
  const exc = o.exceptionInfo ? `, "exception_info": ${jinjaToJson(o.exceptionInfo)}` : "";
  const len = pyLen(o.output);
  if (len < 10000) return `{\n  "returncode": ${o.returncode},\n  "output": ${jinjaToJson(o.output)}${exc}\n}`;
  return `{\n  "returncode": ${o.returncode},\n  "output_head": ${jinjaToJson(pySlice(o.output, 0, 5000))},\n` +
    `  "output_tail": ${jinjaToJson(pySlice(o.output, len - 5000))},\n  "elided_chars": ${len - 10000},\n` +
    `  "warning": "Output too long."${exc}\n}`;
}

const TEXT_WARNING = "<warning>\nThe output of your last command was too long.\n" +
  "Please try a different command that produces less output.\n" +
  "If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.\n" +
  "If you're using grep or find and it produced too much output, you can use a more selective search pattern.\n" +
  "If you really need to see something from the full command's output, you can redirect output to a file and then " +
  "search in that file.\n</warning>";

/** mini_textbased.yaml's `observation_template` (text mode), as jinja2 renders it. */
export function renderTextObservation(o: MsweaOutput): string {
  let out = o.exceptionInfo ? `<exception>${o.exceptionInfo}</exception>\n` : "";
  out += `<returncode>${o.returncode}</returncode>\n`;
  const len = pyLen(o.output);
  if (len < 10000) return `${out}<output>\n${o.output}</output>`;
  return `${out}${TEXT_WARNING}<output_head>\n${pySlice(o.output, 0, 5000)}\n</output_head>\n` +
    `<elided_chars>\n${len - 10000} characters elided\n</elided_chars>\n` +
    `<output_tail>\n${pySlice(o.output, len - 5000)}\n</output_tail>`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Format errors.

/** The error `parse_toolcall_actions` raises for a response without tool calls. */
export const NO_TOOL_CALLS = "No tool calls found in the response. Every response MUST include at least one tool call.";

/** mini.yaml's `format_error_template` (v2.4.5+), the branch without a finish_reason of "length". */
export function renderToolFormatError(error: string): string {
  return `Tool call error:

<error>
${error}
</error>

Here is general guidance on how to submit correct toolcalls:

Every response needs to use the 'bash' tool at least once to execute commands.

Call the bash tool with your command as the argument:
- Tool: bash
- Arguments: {"command": "your_command_here"}

If you want to end the task, please issue the following command: \`echo ${MSWEA_SENTINEL}\`
without any other command.`;
}

/** The templates' first branch: the reply was cut at the token limit (tool mode, then text mode). */
export function renderCutOff(finishReason: string, text: boolean): string {
  return `Your previous response reached the output token limit (finish_reason=${finishReason}) before you produced ` +
    (text
      ? "a complete action, so it was cut off. Respond more concisely and provide exactly one action in the required " +
        "format. If you need to think more, do so briefly."
      : "a tool call, so it was cut off. Respond more concisely and finish with exactly one bash tool call. If you " +
        "need to think more, do so briefly.");
}

/** mini_textbased.yaml's `format_error_template`, the branch without a finish_reason of "length". */
export function renderTextFormatError(error: string, nActions: number): string {
  return `Format error:

<error>
${error}
</error>

Here is general guidance on how to format your response:

Please always provide EXACTLY ONE action in triple backticks, found ${nActions} actions.

Please format your action in triple backticks as shown in <response_example>.

<response_example>
Here are some thoughts about why you want to perform the action.

\`\`\`mswea_bash_command
<action>
\`\`\`
</response_example>

If you have completed your assignment, please consult the first message about how to
submit your solution (you will not be able to continue working on this task after that).`;
}

/** mini-swe-agent 2.4.6's model dependence (both modes), read from its code: declared, not followed. */
export const MINI_SWE_AGENT_MODELS: ModelDialects = {
  recordedWith: "stub-model",
  note: "prompts and the bash tool are fixed; Anthropic-like names put a cache-control marker on the last message",
  rules: [],
  unmodeled: [{
    when: { regex: "anthropic|sonnet|opus|claude", flags: "i" },
    what: "the last message's content (a cache_control marker)",
    sources: ["SWE-agent/mini-swe-agent@a83fcae82d2a:src/minisweagent/models/__init__.py (set_cache_control)"],
  }],
};

/**
 * `parse_toolcall_actions`' per-call checks, in its order: the first call with an error rejects the whole turn. A call
 * Python accepts but JSON.parse does not (NaN, Infinity) gets Python's value.
 */
export function validateToolCalls(calls: ParsedCall[]): string | undefined {
  for (const call of calls) {
    let error = "";
    let args: unknown = {};
    const parsed = pyJsonLoads(call.raw);
    if ("error" in parsed) error = `Error parsing tool call arguments: ${parsed.error}.`;
    else args = parsed.value;
    if (call.name !== "bash") error += `Unknown tool '${call.name}'.`;
    if (!args || typeof args !== "object" || Array.isArray(args) || !Object.hasOwn(args, "command")) {
      error += "Missing 'command' argument in bash tool call.";
    }
    if (error) return error.trim();
    if (call.args === null) {
      call.args = args as Record<string, unknown>;
      delete call.error;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------------
// The profiles.

const BASH_SCHEMA = fnSchema("bash", "Execute a bash command", {
  command: { type: "string", description: "The bash command to execute" },
}, ["command"]);

function bashTool(render: (o: MsweaOutput) => string): ToolSpec {
  return {
    schema: BASH_SCHEMA,
    bind: async (s, a) => render(await msweaExecute(s, Object.hasOwn(a, "command") ? a.command : "")),
  };
}

function base(): Omit<HarnessProfile, "name" | "system" | "user" | "tools" | "protocol"> {
  return {
    version: MINI_SWE_AGENT_VERSION,
    stop: { kind: "sentinel", text: MSWEA_SENTINEL },
    // The submission (what follows the sentinel line) is the reply the verifier gets.
    answer: { kind: "stop_answer", fallback: "none" },
    // v2.4.0+: RepeatedFormatError after max_consecutive_format_errors = 3.
    maxFormatErrors: 3,
    shell: { tool: "bash", arg: "command" },
    // The words of the observation templates (text and JSON).
    truncationMark: [
      String.raw`<elided_chars>`,
      String.raw`\d+ characters elided`,
      String.raw`"elided_chars": \d+`,
      String.raw`output of your last command was too long`,
      String.raw`"warning": "Output too long\."`,
    ].join("|"),
    execTimeout: 30,
    context: "none: the whole history is sent every turn",
    models: MINI_SWE_AGENT_MODELS,
    emulates: { harness: "mini-swe-agent", version: MINI_SWE_AGENT_VERSION, sources: SOURCES },
  };
}

/** mini-swe-agent@2.4.6, tool-calling mode (`mini.yaml`, model class `litellm`). */
export function miniSweAgent(): HarnessProfile {
  return {
    ...base(),
    name: "mini-swe-agent",
    system: SYSTEM_NATIVE,
    user: userTemplate(false),
    protocol: { kind: "native" },
    tools: [bashTool(renderToolObservation)],
    // The engine reports a turn without calls as "no tool call"; everything else comes from validateToolCalls.
    formatError(error, s) {
      // mini.yaml (v2.4.5+): "length", or "tool_calls" with no tool call in the reply.
      const fr = s.finishReason;
      if (fr === "length" || (fr === "tool_calls" && error === "no tool call")) return renderCutOff(fr, false);
      return renderToolFormatError(error === "no tool call" ? NO_TOOL_CALLS : error);
    },
    validate: (calls) => validateToolCalls(calls),
  };
}

/** mini-swe-agent-text@2.4.6, text mode (`mini_textbased.yaml`, model class `litellm_textbased`). */
export function miniSweAgentText(): HarnessProfile {
  return {
    ...base(),
    name: "mini-swe-agent-text",
    system: SYSTEM_TEXT,
    user: userTemplate(true),
    protocol: { kind: "fenced", lang: "mswea_bash_command", tool: "bash", arg: "command" },
    tools: [bashTool(renderTextObservation)],
    formatError(error, s) {
      const fr = s.finishReason;
      if (fr === "length" || fr === "tool_calls") return renderCutOff(fr, true);
      return renderTextFormatError(error, Number(error.match(/found (\d+)\./)?.[1] ?? 0));
    },
  };
}
