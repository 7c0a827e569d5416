/**
 * goose@1.55.0 (block/goose, the developer platform extension): native calls to write, edit, shell and tree; the
 * episode ends on a reply without tool calls and that reply is the answer.
 *
 * Written from goose's source files (block/goose, crates/goose/src/, at the commits in `emulates.sources`):
 * agents/platform_extensions/developer/{mod.rs @0dcb08ac, edit.rs @bc55f686, shell.rs @2f4773c1, tree.rs @a7f8ca48},
 * agents/extension_manager.rs @005a5658 and providers/formats/openai/messages.rs @e216e6d9 (the argument-parse error).
 * Result and error strings in `goose/` are goose's own unless marked `approx.`. The system prompt is a short
 * paraphrase, never goose's text. The toolshim is not emulated.
 */
import { approx } from "../../lib/harness/provenance.ts";
import type { HarnessProfile, ParsedCall, ToolSchema, ToolSpec } from "../../lib/harness/types.ts";
import type { Session } from "../../lib/harness/types.ts";
import { type Field, fromValue, serdeParse } from "./args.ts";
import { editTool, writeTool } from "./files.ts";
import { EDIT_SCHEMA, SHELL_SCHEMA, TREE_SCHEMA, WRITE_SCHEMA } from "./schemas.ts";
import { shellTool } from "./shell.ts";
import { treeTool } from "./tree.ts";
import { GOOSE_MODELS } from "./models.ts";

/** A short paraphrase of goose's system prompt and the developer extension's instructions. */
const SYSTEM_PROMPT = `You are goose, a general-purpose AI agent that works on the user's computer through tools.
The current date is {date}. Work in {workdir}.

Developer tools:
- tree: see a directory's layout and file sizes first
- shell: run commands (prefer rg for searching; cat or sed to read files)
- write: create or overwrite a file
- edit: replace one exact, unique piece of text in a file

Read before you edit, keep the number of turns small, verify your changes, and answer concisely when done.`;

/**
 * A developer tool: the call's argument text must parse (serde_json) and deserialise into the params struct before
 * the tool runs; each failure is answered with goose's wording.
 */
function tool(
  schema: ToolSchema,
  fields: Field[],
  run: (s: Session, a: Record<string, unknown>) => Promise<string>,
): ToolSpec {
  return {
    schema,
    async bind(s, args, call: ParsedCall) {
      // The provider rejects argument text serde_json cannot parse: a tool request error goose sends as `Error: {e}`,
      // e being rmcp's ErrorData Display `{code}: {message}` (that Display: approx.).
      if (call.raw.length > 0) {
        const p = serdeParse(call.raw);
        if ("error" in p) {
          return approx(`Error: -32602: Could not interpret tool use parameters for id ${call.id}: ${p.error}`);
        }
      }
      const bad = fromValue(args, fields);
      if (bad !== undefined) return `Error: Failed to parse arguments: ${bad}`;
      return await run(s, args);
    },
  };
}

const TOOLS: ToolSpec[] = [
  tool(
    WRITE_SCHEMA,
    [{ name: "path", type: "string" }, { name: "content", type: "string" }],
    (s, a) => writeTool(s, a.path as string, a.content as string),
  ),
  tool(
    EDIT_SCHEMA,
    [{ name: "path", type: "string" }, { name: "before", type: "string" }, { name: "after", type: "string" }],
    (s, a) => editTool(s, a.path as string, a.before as string, a.after as string),
  ),
  tool(
    SHELL_SCHEMA,
    [{ name: "command", type: "string" }, { name: "timeout_secs", type: "option_u64", optional: true }],
    (s, a) => shellTool(s, a.command as string, a.timeout_secs as number | null | undefined),
  ),
  tool(
    TREE_SCHEMA,
    [{ name: "path", type: "string" }, { name: "depth", type: "u32", optional: true }],
    (s, a) => treeTool(s, a.path as string, (a.depth as number | undefined) ?? 2),
  ),
];

/** The profile. */
export function goose(): HarnessProfile {
  return {
    name: "goose",
    version: "1.55.0",
    system: SYSTEM_PROMPT,
    user: "{instruction}",
    tools: TOOLS,
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null,
    // The extension manager finds no such tool: a dispatch error, sent as `The tool call returned the following
    // error:\n{e}` (`Tool '{name}' not found` from extension_manager.rs @005a5658 `dispatch_tool_call`; ErrorData's
    // code and Display: approx.).
    unknownTool: (name) => approx(`The tool call returned the following error:\n-32602: Tool '${name}' not found`),
    // Argument text serde_json rejects is answered by each tool's bind (it needs the call id); here it parses as
    // an empty object so that the bind runs. JSON that is not an object deserialises as no fields (approx.).
    parseArguments(raw: string) {
      if (raw.length === 0) return { args: {} };
      const p = serdeParse(raw);
      if ("error" in p) return { args: {} };
      const v = p.value;
      return { args: v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {} };
    },
    answerChannel: true,
    shell: { tool: "shell", arg: "command" },
    // goose has no default timeout; this bounds every command (approx.).
    // The words of its shell tool's line limit.
    truncationMark: String.raw`\[Output exceeded [\d,]+ line limit`,
    execTimeout: 600,
    context: "goose summarises the conversation when the context nears the model's limit (its thresholds were not " +
      "read for this profile). Not emulated.",
    models: GOOSE_MODELS,
    emulates: {
      harness: "goose (block/goose, developer platform extension)",
      version: "1.55.0",
      sources: [
        "block/goose@0dcb08ac:crates/goose/src/agents/platform_extensions/developer/mod.rs (release tags of these " +
        "commits unknown)",
        "block/goose@bc55f686:crates/goose/src/agents/platform_extensions/developer/{mod,edit}.rs",
        "block/goose@1b12e60a:crates/goose/src/agents/platform_extensions/developer/edit.rs",
        "block/goose@2f4773c1:crates/goose/src/agents/platform_extensions/developer/shell.rs",
        "block/goose@0edf2305:crates/goose/src/agents/platform_extensions/developer/shell.rs",
        "block/goose@a7f8ca48:crates/goose/src/agents/platform_extensions/developer/tree.rs",
        "block/goose@126fc0e5:crates/goose/src/agents/platform_extensions/mod.rs",
        "block/goose@005a5658:crates/goose/src/agents/extension_manager.rs",
        "block/goose@e216e6d9:crates/goose/src/providers/formats/openai/messages.rs",
      ],
    },
  };
}
