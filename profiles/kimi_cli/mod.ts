/**
 * kimi-cli@1.49.0 (MoonshotAI/kimi-cli; the seed pins 1.52.0, the final archived release): native calls to Shell,
 * ReadFile, Glob, Grep, WriteFile and StrReplaceFile; every result is wrapped in kimi's `<system>` status tags; the
 * episode ends on a reply without tool calls and that reply is the answer.
 *
 * Written from MoonshotAI/kimi-cli at 4a550effdfcb (release 1.49.0): src/kimi_cli/ soul/message.py, soul/toolset.py,
 * tools/utils.py, tools/shell/__init__.py, tools/file/{read,grep_local}.py and packages/kosong
 * tooling/{__init__,error}.py.
 * Result and error strings in `kimi_cli/` are upstream's unless marked `approx.`. The system prompt is a short
 * paraphrase, never kimi's text.
 */
import { approx } from "../../lib/harness/provenance.ts";
import type { HarnessProfile, ToolSchema, ToolSpec } from "../../lib/harness/types.ts";
import type { Session } from "../../lib/harness/types.ts";
import { readFileTool, strReplaceTool, writeFileTool } from "./files.ts";
import { err, type Ret, toMessage } from "./result.ts";
import {
  GLOB_SCHEMA,
  GREP_SCHEMA,
  READ_FILE_SCHEMA,
  SHELL_SCHEMA,
  STR_REPLACE_FILE_SCHEMA,
  WRITE_FILE_SCHEMA,
} from "./schemas.ts";
import { globTool, grepTool } from "./search.ts";
import { shellTool } from "./shell.ts";
import { type Field, loads, validate } from "./validate.ts";
import { KIMI_CLI_MODELS } from "./models.ts";

/** A short paraphrase of kimi-cli's default agent prompt (approx.). */
const SYSTEM_PROMPT = `You are Kimi CLI, an interactive coding agent running in the user's terminal.
Today is {date}. The working directory is {workdir}.

Use the tools to inspect and change files and to run commands: Shell runs bash commands; ReadFile, Glob and Grep
read and search; WriteFile and StrReplaceFile change files. Tool results carry status notes in <system> tags.
Check your work before you finish, and when the task is done reply without calling tools, concisely.`;

/** A tool: kosong validates the arguments against Params, then the tool runs; the result is wrapped in tags. */
function tool(
  schema: ToolSchema,
  fields: Field[],
  run: (s: Session, p: Record<string, unknown>) => Promise<Ret>,
): ToolSpec {
  return {
    schema,
    async bind(s, args) {
      const v = validate(fields, args);
      if ("error" in v) return toMessage(err(`Error validating JSON arguments: ${v.error}`));
      return toMessage(await run(s, v.params));
    },
  };
}

const FIELDS: Record<string, Field[]> = {
  Shell: [
    { name: "command", type: "str", required: true },
    { name: "timeout", type: "int", ge: 1, le: 86400 },
    { name: "run_in_background", type: "bool" },
    { name: "description", type: "str" },
  ],
  ReadFile: [
    { name: "path", type: "str", required: true },
    {
      name: "line_offset",
      type: "int",
      check: (v) =>
        v === 0
          ? "line_offset cannot be 0; use 1 for the first line or -1 for the last line"
          : (v as number) < -1000
          ? approx("line_offset cannot be less than -1000")
          : undefined,
    },
    { name: "n_lines", type: "int", ge: 1 },
  ],
  Glob: [
    { name: "pattern", type: "str", required: true },
    { name: "directory", type: "str|None" },
    { name: "include_dirs", type: "bool" },
  ],
  Grep: [
    { name: "pattern", type: "str", required: true },
    { name: "path", type: "str" },
    { name: "glob", type: "str|None" },
    { name: "output_mode", type: "str" },
    { name: "-B", type: "int|None" },
    { name: "-A", type: "int|None" },
    { name: "-C", type: "int|None" },
    { name: "-n", type: "bool" },
    { name: "-i", type: "bool" },
    { name: "type", type: "str|None" },
    { name: "head_limit", type: "int|None", ge: 0 },
    { name: "offset", type: "int", ge: 0 },
    { name: "multiline", type: "bool" },
    { name: "include_ignored", type: "bool" },
  ],
  WriteFile: [
    { name: "path", type: "str", required: true },
    { name: "content", type: "str", required: true },
    { name: "mode", type: { literal: ["overwrite", "append"] } },
  ],
  StrReplaceFile: [
    { name: "path", type: "str", required: true },
    { name: "edit", type: "edit", required: true },
  ],
};

const TOOLS: ToolSpec[] = [
  tool(SHELL_SCHEMA, FIELDS.Shell, shellTool),
  tool(READ_FILE_SCHEMA, FIELDS.ReadFile, readFileTool),
  tool(GLOB_SCHEMA, FIELDS.Glob, globTool),
  tool(GREP_SCHEMA, FIELDS.Grep, grepTool),
  tool(WRITE_FILE_SCHEMA, FIELDS.WriteFile, writeFileTool),
  tool(STR_REPLACE_FILE_SCHEMA, FIELDS.StrReplaceFile, strReplaceTool),
];

/** The profile. */
export function kimiCli(): HarnessProfile {
  return {
    name: "kimi-cli",
    version: "1.49.0",
    system: SYSTEM_PROMPT,
    user: "{instruction}",
    tools: TOOLS,
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null, // approx.
    // kosong: ToolNotFoundError (the sheet's wording; later kosong adds "did you mean" suggestions, not emulated).
    unknownTool: (name) => toMessage(err(`Tool \`${name}\` not found`)),
    parseArguments(raw) {
      const r = loads(raw);
      if ("error" in r) return r;
      const v = r.value;
      // A non-object is passed to pydantic, which rejects it; badArguments words that.
      return v && typeof v === "object" && !Array.isArray(v) ? { args: v as Record<string, unknown> } : { error: "" };
    },
    badArguments(_name, raw) {
      const r = loads(raw);
      if ("error" in r) return toMessage(err(`Error parsing JSON arguments: ${r.error}`));
      const v = validate([], r.value);
      return toMessage(err(`Error validating JSON arguments: ${"error" in v ? v.error : ""}`));
    },
    answerChannel: true,
    shell: { tool: "Shell", arg: "command" },
    // The words of its shell tool's note and cut.
    truncationMark: String.raw`Output is truncated to fit in the message|\[\.\.\.truncated\]`,
    execTimeout: 60,
    context: "kimi-cli compacts the context when it nears the model's limit (not emulated); max_steps_per_turn 1000.",
    models: KIMI_CLI_MODELS,
    emulates: {
      harness: "kimi-cli (MoonshotAI/kimi-cli)",
      version: "1.49.0",
      seedPin: "1.52.0",
      sources: [
        "MoonshotAI/kimi-cli@4a550effdfcb:src/kimi_cli/soul/{message,toolset}.py (release 1.49.0)",
        "MoonshotAI/kimi-cli@4a550effdfcb:src/kimi_cli/tools/utils.py",
        "MoonshotAI/kimi-cli@4a550effdfcb:src/kimi_cli/tools/shell/__init__.py",
        "MoonshotAI/kimi-cli@4a550effdfcb:src/kimi_cli/tools/file/{read,grep_local}.py",
        "MoonshotAI/kimi-cli@4a550effdfcb:packages/kosong/src/kosong/tooling/{__init__,error}.py",
        "MoonshotAI/kimi-cli@4a550effdfcb:tests/tools/test_tool_schemas.py (the parameters, checked against it)",
        "tests/golden/kimi-cli/parameters.json",
      ],
    },
  };
}
