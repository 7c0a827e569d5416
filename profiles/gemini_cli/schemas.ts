/**
 * The emulated tools' parameter schemas exactly as gemini-cli 0.61.0 sent them (`-m stub-model`, reduced to
 * tests/golden/gemini-cli/tool_parameters.jsonl), and their descriptions: the short ones verbatim, the long ones
 * (read_file, replace, run_shell_command) paraphrased.
 */

/** `list_directory`'s `parametersJsonSchema`, as recorded. */
export const LS_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "dir_path": {
      "description": "The path to the directory to list",
      "type": "string",
    },
    "ignore": {
      "description": "List of glob patterns to ignore",
      "items": {
        "type": "string",
      },
      "type": "array",
    },
    "file_filtering_options": {
      "description": "Optional: Whether to respect ignore patterns from .gitignore or .geminiignore",
      "type": "object",
      "properties": {
        "respect_git_ignore": {
          "description":
            "Optional: Whether to respect .gitignore patterns when listing files. Only available in git repositories. Defaults to true.",
          "type": "boolean",
        },
        "respect_gemini_ignore": {
          "description": "Optional: Whether to respect .geminiignore patterns when listing files. Defaults to true.",
          "type": "boolean",
        },
      },
    },
  },
  "required": [
    "dir_path",
  ],
};

/** `read_file`'s `parametersJsonSchema`, as recorded. */
export const READ_FILE_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "file_path": {
      "description": "The path to the file to read.",
      "type": "string",
    },
    "start_line": {
      "description": "Optional: The 1-based line number to start reading from.",
      "type": "integer",
      "minimum": 1,
    },
    "end_line": {
      "description": "Optional: The 1-based line number to end reading at (inclusive).",
      "type": "integer",
      "minimum": 1,
    },
  },
  "required": [
    "file_path",
  ],
};

/** `grep_search`'s `parametersJsonSchema`, as recorded. */
export const GREP_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "pattern": {
      "description":
        "The regular expression (regex) pattern to search for within file contents (e.g., 'function\\s+myFunction', 'import\\s+\\{.*\\}\\s+from\\s+.*').",
      "type": "string",
    },
    "dir_path": {
      "description":
        "Optional: The absolute path to the directory to search within. If omitted, searches the current working directory.",
      "type": "string",
    },
    "include_pattern": {
      "description":
        "Optional: A glob pattern to filter which files are searched (e.g., '*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files (respecting potential global ignores).",
      "type": "string",
    },
    "exclude_pattern": {
      "description":
        "Optional: A regular expression pattern to exclude from the search results. If a line matches both the pattern and the exclude_pattern, it will be omitted.",
      "type": "string",
    },
    "names_only": {
      "description":
        "Optional: If true, only the file paths of the matches will be returned, without the line content or line numbers. This is useful for gathering a list of files.",
      "type": "boolean",
    },
    "max_matches_per_file": {
      "description":
        "Optional: Maximum number of matches to return per file. Use this to prevent being overwhelmed by repetitive matches in large files.",
      "type": "integer",
      "minimum": 1,
    },
    "total_max_matches": {
      "description":
        "Optional: Maximum number of total matches to return. Use this to limit the overall size of the response. Defaults to 100 if omitted.",
      "type": "integer",
      "minimum": 1,
    },
  },
  "required": [
    "pattern",
  ],
};

/** `glob`'s `parametersJsonSchema`, as recorded. */
export const GLOB_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "pattern": {
      "description": "The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
      "type": "string",
    },
    "dir_path": {
      "description":
        "Optional: The absolute path to the directory to search within. If omitted, searches the root directory.",
      "type": "string",
    },
    "case_sensitive": {
      "description": "Optional: Whether the search should be case-sensitive. Defaults to false.",
      "type": "boolean",
    },
    "respect_git_ignore": {
      "description":
        "Optional: Whether to respect .gitignore patterns when finding files. Only available in git repositories. Defaults to true.",
      "type": "boolean",
    },
    "respect_gemini_ignore": {
      "description": "Optional: Whether to respect .geminiignore patterns when finding files. Defaults to true.",
      "type": "boolean",
    },
  },
  "required": [
    "pattern",
  ],
};

/** `replace`'s `parametersJsonSchema`, as recorded. */
export const REPLACE_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "file_path": {
      "description": "The path to the file to modify.",
      "type": "string",
    },
    "instruction": {
      "description":
        'A clear, semantic instruction for the code change, acting as a high-quality prompt for an expert LLM assistant. It must be self-contained and explain the goal of the change.\n\nA good instruction should concisely answer:\n1.  WHY is the change needed? (e.g., "To fix a bug where users can be null...")\n2.  WHERE should the change happen? (e.g., "...in the \'renderUserProfile\' function...")\n3.  WHAT is the high-level change? (e.g., "...add a null check for the \'user\' object...")\n4.  WHAT is the desired outcome? (e.g., "...so that it displays a loading spinner instead of crashing.")\n\n**GOOD Example:** "In the \'calculateTotal\' function, correct the sales tax calculation by updating the \'taxRate\' constant from 0.05 to 0.075 to reflect the new regional tax laws."\n\n**BAD Examples:**\n- "Change the text." (Too vague)\n- "Fix the bug." (Doesn\'t explain the bug or the fix)\n- "Replace the line with this new line." (Brittle, just repeats the other parameters)\n',
      "type": "string",
    },
    "old_string": {
      "description":
        "The exact literal text to replace, preferably unescaped. For single replacements (default), include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. If this string is not the exact literal text (i.e. you escaped it) or does not match exactly, the tool will fail.",
      "type": "string",
    },
    "new_string": {
      "description":
        "The exact literal text to replace `old_string` with, preferably unescaped. Provide the EXACT text. Ensure the resulting code is correct and idiomatic. Do not use omission placeholders like '(rest of methods ...)', '...', or 'unchanged code'; provide exact literal code.",
      "type": "string",
    },
    "allow_multiple": {
      "type": "boolean",
      "description":
        "If true, the tool will replace all occurrences of `old_string`. If false (default), it will only succeed if exactly one occurrence is found.",
    },
  },
  "required": [
    "file_path",
    "instruction",
    "old_string",
    "new_string",
  ],
};

/** `write_file`'s `parametersJsonSchema`, as recorded. */
export const WRITE_FILE_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "file_path": {
      "description": "The path to the file to write to.",
      "type": "string",
    },
    "content": {
      "description":
        "The content to write to the file. Do not use omission placeholders like '(rest of methods ...)', '...', or 'unchanged code'; provide complete literal content.",
      "type": "string",
    },
  },
  "required": [
    "file_path",
    "content",
  ],
};

/** `run_shell_command`'s `parametersJsonSchema`, as recorded. */
export const SHELL_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "Exact bash command to execute as `bash -c <command>`",
    },
    "description": {
      "type": "string",
      "description":
        "Brief description of the command for the user. Be specific and concise. Ideally a single sentence. Can be up to 3 sentences for clarity. No line breaks.",
    },
    "dir_path": {
      "type": "string",
      "description":
        "(OPTIONAL) The path of the directory to run the command in. If not provided, the project root directory is used. Must be a directory within the workspace and must already exist.",
    },
    "is_background": {
      "type": "boolean",
      "description":
        "Set to true if this command should be run in the background (e.g. for long-running servers or watchers). The command will be started, allowed to run for a brief moment to check for immediate errors, and then moved to the background.",
    },
    "delay_ms": {
      "type": "integer",
      "description":
        "Optional. Delay in milliseconds to wait after starting the process in the background. Useful to allow the process to start and generate initial output before returning.",
    },
  },
  "required": [
    "command",
  ],
};

/** `write_todos`'s `parametersJsonSchema`, as recorded with `-m gemini-2.5-pro` (only Gemini 2 names get the tool). */
export const WRITE_TODOS_PARAMS: Record<string, unknown> = {
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The complete list of todo items. This will replace the existing list.",
      "items": {
        "type": "object",
        "description": "A single todo item.",
        "properties": {
          "description": { "type": "string", "description": "The description of the task." },
          "status": {
            "type": "string",
            "description": "The current status of the task.",
            "enum": ["pending", "in_progress", "completed", "cancelled", "blocked"],
          },
        },
        "required": ["description", "status"],
        "additionalProperties": false,
      },
    },
  },
  "required": ["todos"],
  "additionalProperties": false,
};

/** The descriptions, by tool: recorded text when short, a paraphrase when long. */
export const DESCRIPTIONS = {
  list_directory:
    "Lists the names of files and subdirectories directly within a specified directory path. Can optionally ignore entries matching provided glob patterns.",
  // Paraphrase of the 444-character description.
  read_file:
    "Reads a file and returns its content; large files are truncated, with a note on how to read further with 'start_line' and 'end_line'. Text files can be read by line range; images, audio and PDF files are handled too.",
  grep_search: "Searches for a regular expression pattern within file contents. Max 100 matches.",
  glob:
    "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, `**/*.md`), returning absolute paths sorted by modification time (newest first). Ideal for quickly locating files based on their name or path structure, especially in large codebases.",
  // Paraphrase of the 2063-character description.
  replace:
    "Replaces text in a file: exactly one occurrence of `old_string` unless `allow_multiple` is true (then every occurrence). `old_string` must be the literal text, unescaped, with enough surrounding context (about 3 lines before and after) to be unique; `new_string` is its literal replacement and must differ. `instruction` says what the change is and why. Read the file first, and prefer several small edits to one large one.",
  write_file:
    "Writes content to a specified file in the local filesystem.\n\n      The user has the ability to modify `content`. If modified, this will be stated in the response.",
  // Paraphrase of the 4894-character description (sent with Gemini 2 names only).
  write_todos:
    "Keeps the list of subtasks of a complex request (several steps; not for simple ones) and shows the user your progress. Each call sends the whole list; a task is pending, in_progress (one at a time), completed, cancelled or blocked. Mark a task in_progress before starting it and update the list as soon as anything changes.",
  // Paraphrase of the 1154-character description.
  run_shell_command:
    "Runs a command as `bash -c <command>` in its own process group (stop it with `kill -- -PGID`); `&` starts background processes. Prefer quiet flags and disable pagers (`git --no-pager`, `PAGER=cat`). Returns the combined stdout/stderr as Output (or `(empty)`), plus Exit Code when non-zero, Error on a spawn failure, Signal when killed by one, Background PIDs when any were started, and the Process Group PGID.",
};
