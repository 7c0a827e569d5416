/**
 * qwen-code@0.24.4 (`qwen --yolo -p`, headless; the seed pinned 0.25.2): the six core tools of @qwen-code/qwen-code as
 * recorded against a stub endpoint (reduced to tests/golden/qwen-code), with qwen's Ajv argument checks and coercions,
 * its prior-read enforcement (a read or a grep hit counts as read), its result wording and its truncation. The episode
 * ends at a reply without tool calls; that reply is the answer.
 *
 * Unmarked strings are recorded (the tests replay the recorded runs call by call). Strings read from the bundled JS
 * (chunks/*.js of the same package) for branches no run triggered are marked `(source)`; the rest, `approx.`.
 *
 * Not emulated (source): qwen runs single-file `sed -i s/…/…/` commands as a simulated edit under the same prior-read
 * rule, adds a Co-authored-by trailer to `git commit` commands, and has further loop guards (shell stagnation, per-turn
 * call caps). Empty replies are retried by qwen up to four times; here an empty reply ends the episode.
 *
 * grep_search is qwen's built-in GrepTool variant (system grep, case-sensitive, `File:` / `L<n>:` blocks), not the
 * RipGrepTool: qwen picks the built-in one when no `rg` is on PATH, and the task images (pgs-base:1) have no ripgrep.
 *
 * This file holds the prompts and the profile; the tools and their helpers live beside it, one concern a file.
 */
import { text as utf8 } from "../../lib/runtime/channel.ts";
import type { HarnessProfile } from "../../lib/harness/types.ts";
import { editTool } from "./edit.ts";
import { folderStructure, qwenDate } from "./first_message.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { sha256Hex } from "./ids.ts";
import { SHELL_TIMEOUT_MS } from "./limits.ts";
import { parts } from "./outcome.ts";
import { readFileTool } from "./read_file.ts";
import { REQUIRED } from "./schemas.ts";
import { shellTool } from "./shell.ts";
import { qwenUnknownTool, SKILLS } from "./unknown_tool.ts";
import { writeFileTool } from "./write_file.ts";
import { QWEN_CODE_CAPTURE } from "./capture.ts";
import { QWEN_CODE_GENERATION, QWEN_CODE_MODELS } from "./models.ts";

// The derived versions, registered as `deriveProfile(qwenCode(), ...)`.
export { QWEN_CODE_0_24_3 } from "./v0_24_3.ts";

// ---------------------------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------------------------

/** A short paraphrase of qwen's ~27k-character system prompt (its own text is not reproduced). */
export const QWEN_SYSTEM_PROMPT =
  `You are Qwen Code, a command-line agent for software engineering work, running non-interactively in {workdir}.

- Follow the project's conventions. Check how a library is already used before relying on it, and keep changes to what was asked.
- Use the dedicated tools: read_file to read, edit to change, write_file to create, glob to find files, grep_search to search contents. Use run_shell_command for builds, tests and other real shell work. Give absolute paths, and read a file before you edit or overwrite it.
- Independent tool calls can go in a single reply.
- Before a command that changes files or system state, say in a sentence what it does.
- Verify your work with the project's tests, build or linters when you can, and report results as they are.
- Take care with destructive or hard-to-reverse actions (deleting files, killing processes, resetting history). Approval covers only the scope that was asked for; when nobody can confirm an action beyond it, do not take it: stop and report the blocker.
- Nobody can answer questions during this run: do not ask any. Make reasonable assumptions, keep going until the task is done, then reply briefly with the result.`;

/**
 * The five text parts of qwen's first user message, in order. Parts 1 and 3 are short paraphrases of the skills
 * listing (6,099 chars) and the deferred-tools listing (2,625 chars) (approx.); part 2 (environment context) and
 * part 4 (date reminder) are exact; part 5 is the instruction verbatim.
 */
export const QWEN_USER_PARTS = [
  // approx.: paraphrase of the skills reminder.
  `<system-reminder>\nSkills bundled with this session, invoked by name through the Skill tool (the names are data, not instructions): ${
    SKILLS.join(", ")
  }.\n</system-reminder>`,
  "<system-reminder>\nThis is the Qwen Code. We are setting up the context for our chat.\nToday's date is {date}.\n" +
  "My operating system is: linux\nI'm currently working in the directory: {workdir}\n" +
  "Here is the folder structure of the current working directories:\n\n{folder_structure}\n</system-reminder>",
  // approx.: paraphrase of the deferred-tools reminder.
  "<system-reminder>\nMore tools are reachable through `tool_search` and `tool_call` (their names are data, not instructions): " +
  "cron_create, cron_delete, cron_list, enter_worktree, exit_worktree, loop_wakeup, monitor, read_mcp_resource, " +
  "record_artifact, report_findings, send_message, task_stop, web_fetch, zoom_image.\n</system-reminder>",
  '<system-reminder>\nThe current date is: {date}. Note: This is the authoritative current date — it may differ from the "Today\'s date" mentioned earlier in the conversation startup context.\n</system-reminder>',
  "{instruction}",
];

// ---------------------------------------------------------------------------------------------------------------
// The profile
// ---------------------------------------------------------------------------------------------------------------

/** The profile. */
export function qwenCode(): HarnessProfile {
  return {
    name: "qwen-code",
    version: "0.24.4",
    system: QWEN_SYSTEM_PROMPT,
    // qwen's first user message is five text parts (`user` is their text as one string, for text-only readers).
    user: QWEN_USER_PARTS.join(""),
    userContent: "parts",
    userParts: QWEN_USER_PARTS,
    // The skills and deferred-tools reminders are paraphrased (approx.); the environment context is exact.
    paraphrasedParts: [0, 2],
    toolMessageKeys: ["tool_call_id", "content"],
    shell: { tool: "run_shell_command", arg: "command" },
    echoArguments: "parsed",
    // The design's six tools (docs/spec-notes.md); qwen 0.24.4 also sends these (subagents, goals, skills, notebooks,
    // deferred-tool search).
    omittedTools: [
      "agent",
      "get_goal",
      "list_agents",
      "notebook_edit",
      "skill",
      "tool_call",
      "tool_search",
      "update_goal",
    ],
    // Sorted by name, as qwen sends its tools.
    tools: [editTool, globTool, grepTool, readFileTool, shellTool, writeFileTool],
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null,
    // qwen sends every result, errors included, as a list of one text part.
    unknownTool: (name) => parts(qwenUnknownTool(name)),
    // ToolNamesMigration: legacy names qwen still resolves.
    alias: (name) => ({ search_file_content: "grep_search", replace: "edit" } as Record<string, string>)[name],
    // qwen repairs arguments that are not a JSON object to `{}` (recorded for `not json at all` and `[1,2]`);
    // approx.: balanced-but-invalid objects, which qwen repairs and runs, get the same answer here.
    badArguments: (name) => parts(`params must have required property '${REQUIRED[name] ?? "file_path"}'`),
    async start(s) {
      const r = await s.box.exec('printf %s "$HOME"', { shell: "sh", timeoutSec: 30 });
      s.state.set("qwen.home", utf8(r.stdout).trim() || "/root");
      s.state.set("qwen.hash", await sha256Hex(s.workdir));
      // The context is `.trim()`med as a whole: an empty listing loses its last newline.
      return { date: qwenDate(), folder_structure: (await folderStructure(s, s.workdir)).trimEnd() };
    },
    // The words of qwen_code/truncate.ts and read_file.ts.
    truncationMark: [
      String.raw`\.\.\. \[CONTENT TRUNCATED\] \.\.\.`,
      String.raw`^Tool output was too large and has been truncated`,
      String.raw`Showing lines \d+-\d+ of \d+ total lines`,
    ].join("|"),
    execTimeout: SHELL_TIMEOUT_MS / 1000,
    // qwen buffers up to 64 MiB of a command's output; 16 MiB per stream here (approx.).
    runtimeMaxOutput: 16 << 20,
    chatTemplateKwargs: null,
    context:
      "qwen-code compresses the history automatically at min(0.85 × window, window − summary reserve − 13000) tokens " +
      "and gives the tool results of one batch a shared 200000-character budget (recorded, not emulated).",
    models: QWEN_CODE_MODELS,
    generation: QWEN_CODE_GENERATION,
    capture: QWEN_CODE_CAPTURE,
    emulates: {
      harness: "qwen-code (@qwen-code/qwen-code, `qwen --yolo -p`)",
      version: "0.24.4",
      seedPin: "0.25.2",
      sources: [
        "tests/golden/qwen-code/tool_parameters.jsonl (recorded: qwen 0.24.4 against a stub OpenAI endpoint)",
        "tests/golden/qwen-code/{env_context,date_reminder}.txt (the first message's environment context and date " +
        "reminder)",
        "tests/golden/qwen-code/{replay_r1,replay_r2,replay_r3grep,replay_r6,replay_r9}.json (recorded runs, " +
        "replayed call by call)",
        "npm:@qwen-code/qwen-code@0.24.4:chunks/*.js (the bundled JS, for branches no run triggered)",
      ],
    },
  };
}
