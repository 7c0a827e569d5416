/**
 * hermes' tool schemas, the compact subset its design asks for: `terminal(command, background, timeout, pty)`,
 * `process`, `read_file`, `write_file`, `patch` (replace mode only) and `search_files(pattern, target, path,
 * file_glob, limit, offset)`. hermes sends plain `{name, description, parameters}` dicts wrapped as OpenAI function
 * tools.
 *
 * read_file and write_file property schemas and descriptions are hermes' own (tools/file_tools.py), terminal's
 * `background` and `pty` tools/terminal_tool.py's @01224e79, `process` tools/process_registry.py's (the
 * 0xble/hermes-agent-upstream mirror @70e637b4); the advanced parameters (`cross_profile`, terminal
 * `workdir`/`notify_on_complete`/`watch_patterns`, patch's V4A `patch`, search `output_mode`/`context`) are left out.
 * The terminal description (a paraphrase of TERMINAL_TOOL_DESCRIPTION) and the trimmed patch/write descriptions are
 * short paraphrases (approx.).
 */
import type { ToolSchema } from "../../lib/harness/types.ts";

function tool(name: string, description: string, properties: Record<string, unknown>, required: string[]) {
  return {
    type: "function",
    function: { name, description, parameters: { type: "object", properties, required } },
  } satisfies ToolSchema;
}

/** terminal(command, background?, timeout?, pty?). */
export const TERMINAL_SCHEMA: ToolSchema = tool(
  "terminal",
  // approx.: a paraphrase of TERMINAL_TOOL_DESCRIPTION.
  "Execute a shell command on the Linux environment. The shell is persistent: the working directory and exported " +
    "variables carry over between calls. Returns JSON with output, exit_code and error. Do not start interactive " +
    "programs; use read_file, write_file, patch and search_files for file work. Run servers and other long-lived " +
    'processes with background=true and manage them with process(action="poll"/"wait").',
  {
    command: { type: "string", description: "The command to execute on the VM" },
    background: {
      type: "boolean",
      description: "Run the command in the background. Almost always pair with notify_on_complete=true — without " +
        "it, the process runs silently and you'll have no way to learn it finished short of calling " +
        "process(action='poll') yourself (easy to forget, leading to silent blindness on long jobs). Two legitimate " +
        "patterns: (1) Long-lived processes that never exit (servers, watchers, daemons) — these stay silent " +
        "because there's no exit to notify on. (2) Long-running bounded tasks (tests, builds, deploys, CI pollers, " +
        "batch jobs) — these MUST set notify_on_complete=true. For short commands, prefer foreground with a " +
        "generous timeout instead.",
      default: false,
    },
    timeout: {
      type: "integer",
      description: "Max seconds to wait (default: 180, foreground max: 600). Returns INSTANTLY when command " +
        "finishes — set high for long tasks, you won't wait unnecessarily. Foreground timeout above 600s is " +
        "rejected; use background=true for longer commands.",
      minimum: 1,
    },
    pty: {
      type: "boolean",
      description: "Run in pseudo-terminal (PTY) mode for interactive CLI tools like Codex, Claude Code, or Python " +
        "REPL. Only works with local and SSH backends. Default: false.",
      default: false,
    },
  },
  ["command"],
);

/** process(action, session_id?, data?, timeout?, offset?, limit?): hermes' PROCESS_SCHEMA verbatim. */
export const PROCESS_SCHEMA: ToolSchema = tool(
  "process",
  "Manage background processes started with terminal(background=true). poll: status + new output. log: full " +
    "output, paged. wait: block until exit or timeout (partial output on timeout). write vs submit: submit appends " +
    "Enter — use it to answer prompts; write sends raw bytes, no newline. close: EOF stdin. kill: terminate.",
  {
    action: { type: "string", enum: ["list", "poll", "log", "wait", "kill", "write", "submit", "close"] },
    session_id: {
      type: "string",
      description: "From terminal background output; any unique prefix works ('4dae' for proc_4dae56ca81f6). " +
        "Required except for 'list'.",
    },
    data: { type: "string", description: "Stdin text for write/submit." },
    timeout: { type: "integer", description: "Max seconds for 'wait'.", minimum: 1 },
    offset: { type: "integer", description: "Log line offset (default: last 200)." },
    limit: { type: "integer", description: "Max log lines.", minimum: 1 },
  },
  ["action"],
);

/** read_file(path, offset = 1, limit = 500): hermes' READ_FILE_SCHEMA verbatim. */
export const READ_FILE_SCHEMA: ToolSchema = tool(
  "read_file",
  "Read a text file with line numbers and pagination. Use this instead of cat/head/tail in terminal. Output format: " +
    "'LINE_NUM|CONTENT'. Suggests similar filenames if not found. Use offset and limit for large files. Reads " +
    "exceeding ~100K characters are rejected; use offset and limit to read specific sections of large files. " +
    "Jupyter notebooks (.ipynb), Word documents (.docx), and Excel workbooks (.xlsx) are auto-extracted to readable " +
    "text. NOTE: Cannot read images or other binary files — use vision_analyze for images.",
  {
    path: { type: "string", description: "Path to the file to read (absolute, relative, or ~/path)" },
    offset: {
      type: "integer",
      description: "Line number to start reading from (1-indexed, default: 1)",
      default: 1,
      minimum: 1,
    },
    limit: {
      type: "integer",
      description: "Maximum number of lines to read (default: 500, max: 2000)",
      default: 500,
      maximum: 2000,
    },
  },
  ["path"],
);

/** write_file(path, content): hermes' schema without `cross_profile`. */
export const WRITE_FILE_SCHEMA: ToolSchema = tool(
  "write_file",
  "Write content to a file, completely replacing existing content. Use this instead of echo/cat heredoc in terminal. " +
    "Creates parent directories automatically. OVERWRITES the entire file — use 'patch' for targeted edits.",
  {
    path: {
      type: "string",
      description: "Path to the file to write (will be created if it doesn't exist, overwritten if it does)",
    },
    content: { type: "string", description: "Complete content to write to the file" },
  },
  ["path", "content"],
);

/** patch(mode, path, old_string, new_string, replace_all): replace mode only, exact matching. */
export const PATCH_SCHEMA: ToolSchema = tool(
  "patch",
  // approx.: hermes' description trimmed to replace mode (no fuzzy strategies, no V4A mode here).
  "Targeted find-and-replace edits in files. Use this instead of sed/awk in terminal. Returns a unified diff.\n\n" +
    "REPLACE MODE (mode='replace', default): find a unique string and replace it. REQUIRED PARAMETERS: mode, path, " +
    "old_string, new_string.",
  {
    mode: {
      type: "string",
      enum: ["replace"],
      description: "Edit mode. 'replace' (default): requires path + old_string + new_string.",
      default: "replace",
    },
    path: { type: "string", description: "REQUIRED when mode='replace'. File path to edit." },
    old_string: {
      type: "string",
      description: "REQUIRED when mode='replace'. Exact text to find and replace. Must be unique in the file unless " +
        "replace_all=true. Include surrounding context lines to ensure uniqueness.",
    },
    new_string: {
      type: "string",
      description: "REQUIRED when mode='replace'. Replacement text. Pass empty string '' to delete the matched text.",
    },
    replace_all: {
      type: "boolean",
      description: "Replace all occurrences instead of requiring a unique match (default: false)",
      default: false,
    },
  },
  ["mode"],
);

/** search_files(pattern, target, path, file_glob, limit, offset). */
export const SEARCH_FILES_SCHEMA: ToolSchema = tool(
  "search_files",
  "Search file contents or find files by name. Use this instead of grep/rg/find/ls in terminal.\n\n" +
    "Content search (target='content'): Regex search inside files, matches with line numbers.\n\n" +
    "File search (target='files'): Find files by glob pattern (e.g., '*.py', '*config*'). Results sorted by " +
    "modification time.",
  {
    pattern: {
      type: "string",
      description: "Regex pattern for content search, or glob pattern (e.g., '*.py') for file search",
    },
    target: {
      type: "string",
      enum: ["content", "files"],
      description: "'content' searches inside file contents, 'files' searches for files by name",
      default: "content",
    },
    path: {
      type: "string",
      description: "Directory or file to search in (default: current working directory)",
      default: ".",
    },
    file_glob: {
      type: "string",
      description: "Filter files by pattern in grep mode (e.g., '*.py' to only search Python files)",
    },
    limit: { type: "integer", description: "Maximum number of results to return (default: 50)", default: 50 },
    offset: { type: "integer", description: "Skip first N results for pagination (default: 0)", default: 0 },
  },
  ["pattern"],
);
