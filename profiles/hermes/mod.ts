/**
 * hermes@main-e6899c8 (NousResearch/hermes-agent; Harbor installs main, pinned here to e6899c8): native calls to a
 * compact subset of the hermes-cli toolset, `terminal` (persistent; `background=true` starts a tracked process),
 * `process` (poll, log, wait, kill, write, submit, close, list), `read_file`, `write_file` (read first), `patch`
 * (exact match) and `search_files`, every result a JSON string as hermes' result classes shape it (`json.dumps(...,
 * ensure_ascii=False)`). The episode ends on a reply without tool calls and that reply is the answer.
 *
 * Written from hermes' source (NousResearch/hermes-agent at the per-file commits in `emulates.sources`):
 * tools/file_tools.py, tools/file_operations.py, tools/file_operations_common.py, tools/fuzzy_match.py (patch's
 * strategies), tools/terminal_tool.py, tools/process_registry.py and tools/tool_output_limits.py, at revisions later
 * than the pin (the pin's own files could not be read; process_registry.py from a mirror of upstream, whose own
 * stored copies are either older or already renamed the tool `process_manage`). Strings marked `approx.` or `approx()` in `hermes/` were seen in neither. The
 * system prompt is a short paraphrase, never hermes' text.
 */
import { HERMES_EDIT } from "./edit_match.ts";
import { approx } from "../../lib/harness/provenance.ts";
import type { HarnessProfile, ToolSpec } from "../../lib/harness/types.ts";
import { patchTool, readFileTool, writeFileTool } from "./files.ts";
import { toolError } from "./json.ts";
import {
  PATCH_SCHEMA,
  PROCESS_SCHEMA,
  READ_FILE_SCHEMA,
  SEARCH_FILES_SCHEMA,
  TERMINAL_SCHEMA,
  WRITE_FILE_SCHEMA,
} from "./schemas.ts";
import { processTool } from "./process.ts";
import { searchFilesTool } from "./search.ts";
import { MAX_FOREGROUND_TIMEOUT, terminalTool } from "./terminal.ts";
import { HERMES_MODELS } from "./models.ts";

/** A short paraphrase of hermes' agent identity and tool-use guidance. */
const SYSTEM_PROMPT = `You are Hermes Agent, an AI assistant that completes tasks on a Linux machine through tools.
Today is {date}. The working directory is {workdir}.

Use the file tools rather than the terminal for files: read_file to read (LINE_NUM|CONTENT), write_file to create or
overwrite (read an existing file first), patch for exact find-and-replace edits, search_files to find text or files.
Use terminal for everything else; its working directory and exported variables persist between calls.
Verify your work, and when the task is done reply with a short final answer without calling a tool.`;

const TOOLS: ToolSpec[] = [
  { schema: TERMINAL_SCHEMA, bind: (s, a) => terminalTool(s, a) },
  { schema: PROCESS_SCHEMA, bind: (s, a) => processTool(s, a) },
  { schema: READ_FILE_SCHEMA, bind: (s, a) => readFileTool(s, a) },
  { schema: WRITE_FILE_SCHEMA, bind: (s, a) => writeFileTool(s, a) },
  { schema: PATCH_SCHEMA, bind: (s, a) => patchTool(s, a) },
  { schema: SEARCH_FILES_SCHEMA, bind: (s, a) => searchFilesTool(s, a) },
];

/** The profile. */
export function hermes(): HarnessProfile {
  return {
    name: "hermes",
    version: "main-e6899c8",
    system: SYSTEM_PROMPT,
    user: "{instruction}",
    tools: TOOLS,
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null,
    // approx.: the dispatcher's wording for a tool outside the enabled toolsets.
    unknownTool: (name) => approx(toolError(`Unknown tool: ${name}`)),
    // approx.: hermes' wording for argument text that is not a JSON object.
    badArguments: (name, _raw, error) => approx(toolError(`Invalid JSON arguments for ${name}: ${error}`)),
    answerChannel: true,
    shell: { tool: "terminal", arg: "command" },
    // The foreground maximum bounds every call; a call without `timeout` gets hermes' 180 s default.
    // The words of hermes/terminal.ts's marker and files.ts's long lines.
    truncationMark: String.raw`\[OUTPUT TRUNCATED - \d+ chars omitted|\.\.\. \[truncated\]`,
    execTimeout: MAX_FOREGROUND_TIMEOUT,
    context: "hermes compresses the middle of the conversation when the context nears the model's limit and resets " +
      "its read dedup afterwards. Not emulated.",
    // patch's nine fuzzy strategies after an exact miss; `+exact-edit` keeps only the first.
    edits: { matcher: HERMES_EDIT },
    models: HERMES_MODELS,
    emulates: {
      harness: "hermes-agent (NousResearch/hermes-agent, hermes-cli toolsets terminal and file)",
      version: "main-e6899c8",
      sources: [
        "NousResearch/hermes-agent@00d5a8de:tools/file_tools.py (later than the pin, whose files could not be read)",
        "NousResearch/hermes-agent@000429aa:tools/file_operations.py",
        "NousResearch/hermes-agent@02f275d4:tools/file_operations_common.py",
        "NousResearch/hermes-agent@02022048:tools/fuzzy_match.py (patch's nine strategies and their errors)",
        "NousResearch/hermes-agent@01224e79:tools/terminal_tool.py (background branch, foreground guard, hints)",
        "0xble/hermes-agent-upstream@70e637b4:tools/process_registry.py (a mirror of upstream: the last revision " +
        "seen that names the tool process; upstream's own stored copies are 544ac55e, older, and 00038d73, " +
        "renamed process_manage)",
        "NousResearch/hermes-agent@17206cf2:tools/tool_output_limits.py",
      ],
    },
  };
}
