/**
 * opencode@1.18.33 (the seed pins 1.19.2, which could not be installed here): opencode's `build` agent as
 * `opencode run --auto` drives it, recorded against a scripted stub (runs A-H, reduced to tests/golden/opencode:
 * parameters.json, results.json). Where the recording needed explaining, the JavaScript bundled in the same binary
 * (npm opencode-linux-x64@1.18.33, bin/opencode) was read.
 *
 * Exact: the tools array (bash, edit, glob, grep, read, write in the recorded order, parameter schemas byte for byte
 * with `$schema` and opencode's bounds); the quoted user message; `""` as the content of an echoed tool-call turn;
 * every result and error string the recording shows. Paraphrased: the system prompt and the tool descriptions. The
 * skill, task, todowrite and webfetch tools are left out (spec). Strings seen in neither the recording nor the
 * source are marked `approx.`.
 *
 * glob and grep shell out to ripgrep in opencode; the task images have no ripgrep, so a python3 script in the
 * container emulates its walk (`opencode/ripgrep.ts`: walk order and regex syntax approx.) and opencode words the
 * results.
 *
 * Not emulated: the echo rewrites (opencode re-serialises the arguments, renames a repaired call to its lower-case
 * name and an unknown or unparseable one to `invalid`; the engine echoes turns as sent); the extra user message after
 * reading an image; LSP diagnostics and AGENTS.md reminders (none in the recording).
 *
 * This file is the profile (prompt, tool list, error hooks); the tools and their helpers live beside it.
 */
import { OPENCODE_EDIT } from "./edit_match.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { write } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import type { HarnessProfile, ToolSpec } from "../../lib/harness/types.ts";
import { checkArgs, formatValue, schemaError } from "./args.ts";
import { bash } from "./bash.ts";
import { DEFAULT_TIMEOUT_MS } from "./common.ts";
import { edit } from "./edit.ts";
import { glob } from "./glob.ts";
import { grep } from "./grep.ts";
import { jscJsonError } from "./json_error.ts";
import { read } from "./read.ts";
import { schema } from "./schemas.ts";
import { toolId, truncateHead } from "./truncate.ts";
import { writeTool } from "./write.ts";
import { OPENCODE_CAPTURE } from "./capture.ts";
import { OPENCODE_GENERATION, OPENCODE_MODELS } from "./models.ts";

/** How `opencode run` passes its message: args with a space are wrapped in `"…"`, inner `"` escaped. */
export function quoteArg(a: string): string {
  return a.includes(" ") ? `"${a.replace(/"/g, '\\"')}"` : a;
}

const SYSTEM =
  `You are opencode, a command-line agent for software engineering work. You act through the tools you are \
given and answer in short plain text, since your replies are shown in a terminal.

Work on what the user asked for and nothing more. Look at the code before you change it and follow its existing style; \
prefer the file tools (read, edit, write, glob, grep) over shell commands for files, and make independent tool calls \
in the same turn. Verify what you changed (run the tests or the command) when you can. Do not invent URLs. When the \
task is done, reply with a brief summary and no tool call.

<env>
Working directory: {workdir}
Workspace root folder: /
Is directory a git repo: {git_repo}
Platform: linux
Today's date: {date}
</env>`;

type Bind = (s: Session, a: Record<string, unknown>) => Promise<string>;

/** The profile. */
export function opencode(): HarnessProfile {
  // Per episode: $HOME for files the `invalid` tool's truncation names, and saves still to be written.
  let home = "/root";
  const pending: { path: string; content: string }[] = [];

  const flush = async (s: Session) => {
    while (pending.length) {
      const p = pending.shift()!;
      await write(s.box, p.path, p.content).catch(() => {});
    }
  };
  const tool = (name: string, run: Bind): ToolSpec => ({
    schema: schema(name),
    async bind(s, a) {
      await flush(s);
      return checkArgs(name, a) ?? await run(s, a);
    },
  });
  /** The invalid tool's output, through the generic truncation (the saved copy is written before the next call). */
  const invalid = (error: string): string => {
    const out = `The arguments provided to the tool are invalid: ${error}`;
    const path = `${home}/.local/share/opencode/tool-output/${toolId()}`;
    const text = truncateHead(out, path);
    if (text !== out) pending.push({ path, content: out });
    return text;
  };

  return {
    name: "opencode",
    version: "1.18.33",
    system: SYSTEM,
    user: "{instruction}",
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: "",
    echoArguments: "parsed",
    // Left out by design (docs/spec-notes.md): skills, subagents, todo lists and web fetches are not part of the task.
    omittedTools: ["skill", "task", "todowrite", "webfetch"],
    shell: { tool: "bash", arg: "command" },
    // The words of its bash tool's cut.
    truncationMark: String.raw`\.\.\.output truncated\.\.\.`,
    execTimeout: DEFAULT_TIMEOUT_MS / 1000,
    chatTemplateKwargs: null,
    async start(s, values) {
      const r = await s.exec('printf %s "$HOME"', { shell: "sh", timeout: 30 });
      home = r.stdout.trim() || "/root";
      // Harbor passes instruction.md whole ("<instruction>\n") and `opencode run` quotes it.
      return { instruction: quoteArg(values.instruction) };
    },
    alias: (name) => name.toLowerCase(),
    unknownTool(name, names, args) {
      const available = [...names, "invalid"].sort().join(", ");
      if (name === "invalid" && args && typeof args === "object" && !Array.isArray(args)) {
        const a = args as Record<string, unknown>;
        return checkArgs("invalid", a) ?? invalid(a.error as string);
      }
      return invalid(`Model tried to call unavailable tool '${name}'. Available tools: ${available}.`);
    },
    badArguments(name, raw) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return invalid(
          `Invalid input for tool ${name}: JSON parsing failed: Text: ${raw}.\nError message: ${jscJsonError(raw)}`,
        );
      }
      // approx.: JSON that is not an object fails opencode's schema decode; the expected-type wording is a guess.
      return approx(schemaError(name, `Expected object, got ${formatValue(parsed)}`));
    },
    tools: [
      tool("bash", bash),
      tool("edit", edit),
      tool("glob", glob),
      tool("grep", grep),
      tool("read", read),
      tool("write", writeTool),
    ],
    // edit's nine replacers after an exact miss; `+exact-edit` keeps only the first (simple).
    edits: { matcher: OPENCODE_EDIT },
    models: OPENCODE_MODELS,
    generation: OPENCODE_GENERATION,
    capture: OPENCODE_CAPTURE,
    emulates: {
      harness: "opencode",
      version: "1.18.33",
      seedPin: "1.19.2",
      sources: [
        "tests/golden/opencode/parameters.json (recorded: opencode-ai 1.18.33, `opencode run --auto` against a " +
        "scripted stub)",
        "tests/golden/opencode/results.json (the recorded calls and results of runs A, B, C, D and H)",
        "npm:opencode-linux-x64@1.18.33:bin/opencode (JavaScript bundled in the binary: tool wrappers, " +
        "read/edit/glob/grep/bash, Truncate, Effect Schema messages; read to explain the recording)",
      ],
    },
  };
}
