/**
 * The six tools' parameter schemas, exactly as recorded (artifacts/tools.builtin-grep.json), their paraphrased
 * descriptions, and each tool's first required parameter.
 */

/** edit's parameters. */
export const EDIT_PARAMS = {
  properties: {
    file_path: { description: "The absolute path to the file to modify. Must start with '/'.", type: "string" },
    old_string: {
      description:
        "The exact literal text to replace, preferably unescaped. For single replacements (default), include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. If this string is not the exact literal text (i.e. you escaped it) or does not match exactly, the tool will fail.",
      type: "string",
    },
    new_string: {
      description:
        "The exact literal text to replace `old_string` with, preferably unescaped. Provide the EXACT text. Ensure the resulting code is correct and idiomatic.",
      type: "string",
    },
    replace_all: { type: "boolean", description: "Replace all occurrences of old_string (default false)." },
  },
  required: ["file_path", "old_string", "new_string"],
  type: "object",
};

/** glob's parameters. */
export const GLOB_PARAMS = {
  properties: {
    pattern: { description: "The glob pattern to match files against", type: "string" },
    path: {
      description:
        'The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.',
      type: "string",
    },
  },
  required: ["pattern"],
  type: "object",
};

/** grep_search's parameters. */
export const GREP_PARAMS = {
  properties: {
    pattern: { type: "string", description: "The regular expression pattern to search for in file contents" },
    glob: { type: "string", description: 'Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}")' },
    path: {
      type: "string",
      description: "File or directory to search in. Defaults to current working directory.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      description:
        "Limit output to first N matching lines. Must be a positive integer. Optional - shows all matches if not specified.",
    },
  },
  required: ["pattern"],
  type: "object",
};

/** read_file's parameters. */
export const READ_PARAMS = {
  properties: {
    file_path: {
      description:
        "The absolute path to the file to read (e.g., '/home/user/project/file.txt'). Relative paths are not supported. You must provide an absolute path.",
      type: "string",
    },
    offset: {
      description:
        "Optional: For text files, the 0-based line number to start reading from. Requires 'limit' to be set. Use for paginating through large files. Omit or set to null for Jupyter notebooks (.ipynb); null is treated as omitted.",
      type: ["integer", "null"],
    },
    limit: {
      description:
        "Optional: For text files, maximum number of lines to read. Use with 'offset' to paginate through large files. If omitted, reads the entire file (if feasible, up to a default limit). Omit or set to null for Jupyter notebooks (.ipynb); null is treated as omitted.",
      type: ["integer", "null"],
    },
    pages: {
      description:
        "Optional: For PDF files, the page range to extract as text (e.g., '1-5', '3', '10-20'). Pages are 1-indexed. Max 20 pages per request. Open-ended ranges like '3-' are not supported. Use this for large PDFs or when the model does not support native PDF input. Omit or set to null for Jupyter notebooks (.ipynb); null is treated as omitted.",
      type: ["string", "null"],
    },
  },
  required: ["file_path"],
  type: "object",
};

/** read_file's parameters in 0.24.3 (recorded): no null, and the notebook sentence absent from each description. */
export const READ_PARAMS_0_24_3 = {
  properties: {
    file_path: READ_PARAMS.properties.file_path,
    offset: {
      description:
        "Optional: For text files, the 0-based line number to start reading from. Requires 'limit' to be set. Use for paginating through large files.",
      type: "integer",
    },
    limit: {
      description:
        "Optional: For text files, maximum number of lines to read. Use with 'offset' to paginate through large files. If omitted, reads the entire file (if feasible, up to a default limit).",
      type: "integer",
    },
    pages: {
      description:
        "Optional: For PDF files, the page range to extract as text (e.g., '1-5', '3', '10-20'). Pages are 1-indexed. Max 20 pages per request. Open-ended ranges like '3-' are not supported. Use this for large PDFs or when the model does not support native PDF input.",
      type: "string",
    },
  },
  required: ["file_path"],
  type: "object",
};

/** run_shell_command's parameters. */
export const SHELL_PARAMS = {
  type: "object",
  properties: {
    command: { type: "string", description: "Exact bash command to execute as `bash -c <command>`" },
    is_background: {
      type: "boolean",
      description:
        "Optional: Whether to run the command in background. If not specified, defaults to false (foreground execution). Explicitly set to true for long-running processes like development servers, watchers, or daemons that should continue running without blocking further commands.",
    },
    timeout: {
      type: "integer",
      minimum: 1,
      maximum: 600000,
      description: "Optional timeout in milliseconds (max 600000)",
    },
    description: {
      type: "string",
      description:
        "Brief description of the command for the user. Be specific and concise. Ideally a single sentence. Can be up to 3 sentences for clarity. No line breaks.",
    },
    directory: {
      type: "string",
      description:
        "(OPTIONAL) The absolute path of the directory to run the command in. If not provided, the project root directory is used. Must be a directory within the workspace and must already exist.",
    },
  },
  required: ["command"],
};

/** write_file's parameters. */
export const WRITE_PARAMS = {
  properties: {
    file_path: {
      description:
        "The absolute path to the file to write to (e.g., '/home/user/project/file.txt'). Relative paths are not supported.",
      type: "string",
    },
    content: { description: "The content to write to the file.", type: "string" },
    record_as_artifact: {
      description:
        "Set false for intermediate files that should not appear as session artifacts, such as HTML used only to print a PDF. Defaults to true for artifact-like extensions.",
      type: "boolean",
    },
  },
  required: ["file_path", "content"],
  type: "object",
};

/** Paraphrased tool descriptions (qwen sends 0.5–5k characters each). */
export const DESCRIPTIONS = {
  edit:
    "Replace text in a file. old_string must match the file exactly, whitespace included, and occur once unless replace_all is true; give a few lines of surrounding context so it is unique. Read the file first. An empty old_string creates a new file.",
  glob:
    'Find files by glob pattern (e.g. "**/*.py", "src/**/*.ts"). Returns absolute paths, most recently modified first.',
  grep_search:
    'Search file contents with a regular expression (e.g. "def \\w+"); filter files with glob and narrow with path. Matches are listed per file with line numbers.',
  read_file:
    "Read a file given its absolute path. Long files come back in part; page through them with offset (0-based line) and limit.",
  run_shell_command:
    "Run a command as `bash -c <command>` in the project directory and return its output, exit code and signal. timeout is in milliseconds (default 120000, at most 600000); set is_background for servers and other processes that keep running.",
  write_file:
    "Write content to a file at an absolute path, creating parent directories. An existing file must have been read in this session before it is overwritten.",
};

/** Each tool's first required parameter, named when arguments are not a JSON object. */
export const REQUIRED: Record<string, string> = {
  edit: "file_path",
  glob: "pattern",
  grep_search: "pattern",
  read_file: "file_path",
  run_shell_command: "command",
  write_file: "file_path",
};
