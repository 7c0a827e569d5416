/**
 * The schemas of claude-code 2.1.332's Bash, Edit, Read and Write tools: parameters exactly as recorded (the
 * Messages `input_schema`, in tests/golden/claude-code/tools.json), descriptions paraphrased (each is over 200
 * characters of upstream prose).
 */
import type { ToolSchema } from "../../lib/harness/types.ts";

function tool(name: string, description: string, parameters: Record<string, unknown>): ToolSchema {
  return { type: "function", function: { name, description, parameters } };
}

/** `Bash` (description paraphrased). */
export const BASH: ToolSchema = tool(
  "Bash",
  "Executes a bash command and returns its output. `cd` persists only inside the working directory (outside it the shell returns to the start folder); env vars do not persist. `timeout` is in milliseconds (default 120000, max 600000). Prefer the dedicated tools over cat/head/tail/sed/awk/echo. Commit or push only when the user asks; end commits and PRs with the attribution lines of the conversation's system-reminder.",
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "command": { "description": "The command to execute", "type": "string" },
      "timeout": {
        "description": "Optional timeout in milliseconds (max 600000 for a foreground command)",
        "type": "number",
      },
      "description": {
        "description":
          'Clear, concise description of what this command does in active voice. Never use words like "complex" or "risk" in the description - just describe what it does.\n\nSay what the command does in plain words: do not echo the command\'s text, its flags, or file paths - the user reads this description, often without seeing the command.\n\nFor simple commands (git, npm, standard CLI tools), keep it brief (5-10 words):\n- ls → "List files in current directory"\n- git status → "Show working tree status"\n- npm install → "Install package dependencies"\n\nFor commands that are harder to parse at a glance (piped commands, obscure flags, etc.), add enough context to clarify what it does:\n- find . -name "*.tmp" -exec rm {} \\; → "Find and delete all .tmp files recursively"\n- git reset --hard origin/main → "Discard all local changes and match remote main"\n- curl -s url | jq \'.data[]\' → "Fetch JSON from URL and extract data array elements"',
        "type": "string",
      },
      "run_in_background": {
        "description":
          "Set to true to run this command in the background. With it, `timeout` limits how long the command may run in the background before it is stopped (default 600000 ms, max 7200000 ms).",
        "type": "boolean",
      },
      "dangerouslyDisableSandbox": {
        "description": "Set this to true to dangerously override sandbox mode and run commands without sandboxing.",
        "type": "boolean",
      },
    },
    "required": ["command"],
    "additionalProperties": false,
  },
);

/** `Edit` (description paraphrased). */
export const EDIT: ToolSchema = tool(
  "Edit",
  "Performs exact string replacement in a file. `old_string` must match the file exactly (indentation included, without the Read line-number prefix) and be unique unless `replace_all: true` replaces every occurrence.",
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "file_path": { "description": "The absolute path to the file to modify", "type": "string" },
      "old_string": { "description": "The text to replace", "type": "string" },
      "new_string": {
        "description": "The text to replace it with (must be different from old_string)",
        "type": "string",
      },
      "replace_all": {
        "description": "Replace all occurrences of old_string (default false)",
        "default": false,
        "type": "boolean",
      },
    },
    "required": ["file_path", "old_string", "new_string"],
    "additionalProperties": false,
  },
);

/** `Read` (description paraphrased). */
export const READ: ToolSchema = tool(
  "Read",
  "Reads a file from the local filesystem (an absolute `file_path`), in cat -n format with line numbers starting at 1. Use `offset` and `limit` to read part of a large file. A directory, a missing file or an empty file gives an error or a system reminder instead of content.",
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "file_path": { "description": "The absolute path to the file to read", "type": "string" },
      "offset": {
        "description": "The line number to start reading from. Only provide if the file is too large to read at once",
        "type": "integer",
        "minimum": 0,
        "maximum": 9007199254740991,
      },
      "limit": {
        "description": "The number of lines to read. Only provide if the file is too large to read at once.",
        "type": "integer",
        "exclusiveMinimum": 0,
        "maximum": 9007199254740991,
      },
      "pages": {
        "description":
          'Page range for PDF files (e.g., "1-5", "3", "10-20"). Only applicable to PDF files. Maximum 20 pages per request.',
        "type": "string",
      },
      "allow_large": {
        "description":
          "Set to true to read a text file, or a line range of one, that is over the usual size limits, up to what still fits in your context. Only use this when you genuinely need all of it or the user asked for the whole file; otherwise read it in parts with offset and limit, or search it.",
        "type": "boolean",
      },
    },
    "required": ["file_path"],
    "additionalProperties": false,
  },
);

/** `Write` (description paraphrased). */
export const WRITE: ToolSchema = tool(
  "Write",
  "Writes a file to the local filesystem, overwriting it if it exists: for creating a new file or fully replacing one you have read. For partial changes use Edit.",
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "file_path": {
        "description": "The absolute path to the file to write (must be absolute, not relative)",
        "type": "string",
      },
      "content": { "description": "The content to write to the file", "type": "string" },
    },
    "required": ["file_path", "content"],
    "additionalProperties": false,
  },
);
