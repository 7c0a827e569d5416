/**
 * openhands-sdk@1.43.1 (OpenHands software-agent-sdk, `Agent(tools=[terminal, file_editor])`): native calls to
 * terminal, file_editor and the built-ins finish and think (task_tracker is left out). The episode ends on `finish`,
 * whose message is the answer; a reply without a call falls back to the last text.
 *
 * Written from OpenHands/software-agent-sdk at 611629e (≈ v1.43.1; the files in `emulates.sources`): parameter
 * schemas are the pydantic dump in tests/golden/openhands-sdk/parameters.json byte for byte, result and error strings
 * are upstream's unless marked `approx.` in `openhands_sdk/`.
 * The system prompt and the long tool descriptions are short paraphrases, never upstream's text.
 *
 * Engine limits worked around (see the report): a turn without a call is a format error under a `finish` stop, so a
 * plain-text reply ends the episode, an empty one gets the nudge.
 */
import type { HarnessProfile, ToolSpec } from "../../lib/harness/types.ts";
import { alias, invalid, notFound, parseArguments, parts, takeMeta, unparseable, validateAction } from "./args.ts";
import { fileEditorTool } from "./file_editor.ts";
import { FILE_EDITOR_SCHEMA, FINISH_SCHEMA, TERMINAL_SCHEMA, THINK_SCHEMA } from "./schemas.ts";
import { terminalTool } from "./terminal.ts";
import { OPENHANDS_SDK_CAPTURE } from "./capture.ts";
import { OPENHANDS_SDK_MODELS } from "./models.ts";

/** A short paraphrase of OpenHands' system prompt (never its text). */
const SYSTEM_PROMPT = `You are OpenHands agent, an AI assistant that solves tasks by running commands and editing files.

- Work in {workdir}; use absolute paths with file_editor.
- Explore before changing anything; keep edits minimal and focused, and verify them (run the tests if there are any).
- Run one shell command at a time in the terminal; its state (directory, variables) persists between calls.
- Use think to reason through hard steps.
- When the task is done, or cannot be done, call finish with a message that summarises what you did and answers the
  user.`;

/** The empty-reply nudge (agent.py), sent as a user message. */
export const NUDGE =
  "Your last response did not include a function call or a message. Please use a tool to proceed with the task.";

/** A built-in tool whose action validates like the others. */
function builtin(
  schema: ToolSpec["schema"],
  model: string,
  field: string,
  result: (v: string) => string,
): ToolSpec {
  return {
    schema,
    bind(_s, raw) {
      const meta = takeMeta(raw);
      if ("error" in meta) return Promise.resolve(invalid(schema.function.name, meta.error, raw));
      const v = validateAction(model, { [field]: "str" }, [field], meta.args);
      if ("error" in v) return Promise.resolve(invalid(schema.function.name, v.error, meta.args));
      return Promise.resolve(parts(result(v.ok[field] as string)));
    },
  };
}

const TOOLS: ToolSpec[] = [
  { schema: TERMINAL_SCHEMA, bind: terminalTool },
  { schema: FILE_EDITOR_SCHEMA, bind: (s, a) => fileEditorTool(s, a) },
  builtin(FINISH_SCHEMA, "FinishAction", "message", (m) => m),
  builtin(THINK_SCHEMA, "ThinkAction", "thought", () => "Your thought has been logged."),
];

/** The profile. */
export function openhandsSdk(): HarnessProfile {
  return {
    name: "openhands-sdk",
    version: "1.43.1",
    system: SYSTEM_PROMPT,
    user: "{instruction}",
    // Messages are sent in list form when function calling is on (llm/message.py).
    userContent: "parts",
    toolMessageKeys: ["content", "tool_call_id", "name"],
    tools: TOOLS,
    protocol: { kind: "native" },
    stop: { kind: "finish", tool: "finish", field: "message", endOnText: true },
    answer: { kind: "stop_answer", fallback: "last_text" },
    emptyAssistantContent: null,
    parseArguments,
    badArguments: (name, _raw, error) => unparseable(name, error),
    alias,
    unknownTool: (name, names) => notFound(name, names),
    // A turn without a call: a text reply ends the episode (endOnText); an empty one gets the nudge.
    formatError: () => NUDGE,
    answerChannel: true,
    shell: { tool: "terminal", arg: "command" },
    // The no-change timeout: a call without `timeout` is killed after 30 s (upstream returns then, leaving it running).
    // The words of terminal.ts's and file_editor.ts's notices.
    truncationMark: String.raw`<response clipped><NOTE>`,
    execTimeout: 30,
    context: "OpenHands condenses only when a condenser is configured (none by default); max_iteration_per_run 500. " +
      "Not emulated.",
    capture: OPENHANDS_SDK_CAPTURE,
    models: OPENHANDS_SDK_MODELS,
    emulates: {
      harness: "OpenHands software-agent-sdk (openhands-sdk, openhands-tools)",
      version: "1.43.1",
      seedPin: "1.55.1",
      sources: [
        "OpenHands/software-agent-sdk@611629e6999a:openhands-tools/openhands/tools/terminal/definition.py " +
        "(2 commits after v1.43.1)",
        "OpenHands/software-agent-sdk@611629e6999a:openhands-tools/openhands/tools/terminal/terminal/" +
        "terminal_session.py",
        "OpenHands/software-agent-sdk@611629e6999a:openhands-tools/openhands/tools/file_editor/" +
        "{editor,exceptions,utils/constants}.py",
        "OpenHands/software-agent-sdk@611629e6999a:openhands-sdk/openhands/sdk/tool/builtins/{finish,think}.py",
        "OpenHands/software-agent-sdk@611629e6999a:openhands-sdk/openhands/sdk/agent/{agent,utils}.py",
        "OpenHands/software-agent-sdk@611629e6999a:openhands-sdk/openhands/sdk/utils/truncate.py",
        "tests/golden/openhands-sdk/parameters.json (the tools' model_json_schema() dumped with pydantic 2.13.4; " +
        "upstream's lock has 2.12.5)",
      ],
    },
  };
}
