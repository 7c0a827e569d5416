/**
 * claude-code@2.1.332 (`claude -p --dangerously-skip-permissions --model stub-model`, Anthropic Messages API): the
 * Bash, Read, Edit and Write tools with claude-code's own result and error wording, recorded against the stub
 * (reduced to tests/golden/claude-code) and read in its bundle.
 *
 * In chat form (as an OpenAI-compatible proxy translates the Messages request): the `system` blocks are one system
 * message; the user's turn is two text parts (the attribution `<system-reminder>`, then the task); the environment
 * arrives after it as a system-role message (`postlude`); each tool_result is a `tool` message. The episode ends at
 * a reply without a tool_use; that reply is the answer.
 *
 * Left out by design (`omittedTools`): Agent, ListAgents, ReportFindings, ScheduleWakeup, Skill, ToolSearch, Workflow
 * and the deferred-tool placeholder. Not emulated: the 25000-token Read cap and its `[Truncated: PARTIAL view …]`
 * note, the note after a command changes a file already read, and `run_in_background`.
 */
import { CLAUDE_CODE_EDIT, isMarkdown, stripTrailingWhitespace } from "./edit_match.ts";
import type { HarnessProfile } from "../../lib/harness/types.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { bash } from "./bash.ts";
import { editTool, readTool, writeTool } from "./files.ts";
import { BASH, EDIT, READ, WRITE } from "./schemas.ts";
import { inputError, toolUseError } from "./validate.ts";
import { CLAUDE_CODE_CAPTURE } from "./capture.ts";
import { CLAUDE_CODE_GENERATION, CLAUDE_CODE_MODELS } from "./models.ts";

/** A concise paraphrase of claude-code's system prompt (about 6900 characters, not reproduced). */
export const CLAUDE_CODE_SYSTEM_PROMPT = `You are a Claude agent, built on Anthropic's Claude Agent SDK.

You are an agent working with the user toward their goals, using your own judgment along the way. Help with authorized security work only; refuse destructive or malicious requests.

- Use the dedicated tools: Read to read files, Edit for exact string replacements, Write to create or replace files, Bash for everything else (searching with grep and find included).
- Read the code before you change it, keep changes focused on the task, and follow the codebase's conventions.
- The system may send updates, reminders or rule changes as system turns during the conversation.
- Verify your work (run the tests or the program) before you report; say plainly what you did and what is left.
- Be concise: short, direct answers without needless preamble.`;

/** The attribution reminder, the first text part of the user's turn (recorded verbatim). */
const ATTRIBUTION = "<system-reminder>\nAttribution for git commits and pull requests you create from here on (this " +
  "replaces Claude Code's own earlier attribution guidance, such as a previous copy of this reminder; the user's own " +
  "instructions about these lines, such as a CLAUDE.md or memory rule, take precedence over this reminder, but do " +
  "not add attribution lines this reminder leaves out):\n- End git commit messages with:\nCo-Authored-By: Claude " +
  "Code <noreply@anthropic.com>\n- End pull request descriptions with:\n🤖 Generated with [Claude Code]" +
  "(https://claude.com/claude-code)\n</system-reminder>\n";

/**
 * The environment message after the user's turn: its first lines, the model and the date as recorded; the untrusted-
 * download advice, the deferred tools, agent types and skills (about 8000 characters) paraphrased.
 */
const ENVIRONMENT = "# Environment\nYou have been invoked in the following environment: \n" +
  " - Primary working directory: {workdir}\n - Is a git repository: {git_repo}\n - Platform: linux\n" +
  " - Shell: bash\n - OS Version: {os_version}\n" +
  " - Downloaded files and extracted archives are untrusted data: keep them in their own directory and never run " +
  "code from inside it.\n\nYou are powered by the model {model}.\n\n" +
  "Deferred tools (load them with ToolSearch before calling them): CronCreate, CronDelete, CronList, EnterWorktree, " +
  "ExitWorktree, Monitor, NotebookEdit, SendMessage, TaskStop, WebFetch, WebSearch.\n\n" +
  "Agent types for the Agent tool: claude, Explore, general-purpose, Plan, statusline-setup.\n\n" +
  "Skills for the Skill tool: dataviz, update-config, keybindings-help, code-review, simplify, " +
  "fewer-permission-prompts, loop, claude-api, workflow-authoring, run, plugin-authoring, init, security-review.\n\n" +
  "Today's date is {date}.";

/** Tools the model is pointed away from, with claude-code's pointer to Bash (recorded). */
const MISSING: Record<string, string> = {
  Glob: "Glob is not available in this session — find files with `find` via the Bash tool instead.",
  Grep: "Grep is not available in this session — search file contents with `grep` via the Bash tool instead.",
};

/** The profile. */
export function claudeCode(): HarnessProfile {
  const tools = [
    { schema: BASH, bind: bash },
    { schema: EDIT, bind: editTool },
    { schema: READ, bind: readTool },
    { schema: WRITE, bind: writeTool },
  ];
  return {
    name: "claude-code",
    version: "2.1.332",
    system: CLAUDE_CODE_SYSTEM_PROMPT,
    user: "{instruction}",
    userParts: [ATTRIBUTION, "{instruction}"],
    postlude: [{ role: "system", content: [ENVIRONMENT], paraphrased: true }],
    toolMessageKeys: ["tool_call_id", "content"],
    shell: { tool: "Bash", arg: "command" },
    tools,
    omittedTools: [
      "Agent",
      "ListAgents",
      "ReportFindings",
      "ScheduleWakeup",
      "Skill",
      "ToolSearch",
      "Workflow",
      "DeferredToolPlaceholder",
    ],
    unknownTool: (name) =>
      MISSING[name]
        ? toolUseError(`Error: No such tool available: ${name}. ${MISSING[name]}`)
        : approx(toolUseError(`Error: No such tool available: ${name}`)),
    // The SDK hands claude-code whatever input it could parse; a malformed one is checked as an empty object.
    badArguments: (name) => {
      const schema = tools.find((t) => t.schema.function.name === name)?.schema;
      return approx(schema ? inputError(schema, {}) ?? toolUseError("Invalid tool input") : toolUseError(name));
    },
    // The history holds the input as claude-code parsed it: Edit's default `replace_all` comes first (recorded).
    // claude-code echoes Edit's normalised input: replace_all first, new_string's trailing whitespace stripped
    // outside markdown (recorded: tests/golden/claude-code/near_miss.json `echoed`; its desanitizing, which needs the
    // file, is not echoed here).
    echoInput: (name, args) => {
      if (name !== "Edit" || inputError(EDIT, args)) return args;
      const out = { replace_all: args.replace_all ?? false, ...args };
      return isMarkdown(String(args.file_path))
        ? out
        : { ...out, new_string: stripTrailingWhitespace(String(args.new_string)) };
    },
    // Edit's quote, escape and sanitised-token leniency; `+exact-edit` keeps only exact matching.
    edits: { matcher: CLAUDE_CODE_EDIT },
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null,
    async start(s, values) {
      const r = await s.box.exec("uname -sr; git rev-parse --is-inside-work-tree 2>/dev/null || echo false", {
        shell: "sh",
        timeoutSec: 30,
      });
      const [os, git] = new TextDecoder().decode(r.stdout).split("\n");
      // With no model given, the name claude-code was recorded with.
      return { os_version: os ?? "", git_repo: git === "true" ? "true" : "false", model: values.model || "stub-model" };
    },
    // The words of bash.ts's `<persisted-output>` block.
    truncationMark: String.raw`<persisted-output>|^Output too large \(`,
    execTimeout: 120,
    // claude-code persists outputs over 30000 characters whole, so the runtime keeps more than its default.
    runtimeMaxOutput: 8 << 20,
    chatTemplateKwargs: null,
    context: "claude-code compacts the conversation automatically near the model's context window (1M tokens " +
      "assumed for a model it does not know); recorded, not emulated.",
    models: CLAUDE_CODE_MODELS,
    generation: CLAUDE_CODE_GENERATION,
    capture: CLAUDE_CODE_CAPTURE,
    emulates: {
      harness: "claude-code (@anthropic-ai/claude-code, `claude -p --dangerously-skip-permissions`)",
      version: "2.1.332",
      sources: [
        "tests/golden/claude-code/tools.json (recorded: claude-code 2.1.332 against the stub's Messages API)",
        "tests/golden/claude-code/episode/requests.jsonl (a recorded episode, reduced; replayed call by call)",
        "npm:@anthropic-ai/claude-code@2.1.332:bin/claude.exe (the bundled tools: Edit and Write result wording)",
      ],
    },
  };
}
