/**
 * pi@0.73.1 (`@mariozechner/pi-coding-agent`, its `openai-completions` provider): native calls to read, bash, edit
 * and write; the episode ends on a reply without tool calls and that reply is the answer.
 *
 * Written from a recording of pi 0.73.1 against a stub (reduced to tests/golden/pi: tools.json, run1.json) and the
 * published packages' source (`emulates.sources`: dist/core/tools/{read,bash,edit,write,truncate,...}.js, pi-ai's
 * utils/{validation,json-parse}.js and providers/openai-completions.js, pi-agent-core's agent-loop.js). Every
 * result and error string in `pi/` is pi's own (or Node 20's: the fs errors of mkdir EEXIST/ENOTDIR, writeFile
 * EISDIR and access ENOENT were probed with the recorded Node 20.20.2) unless its comment says `approx.`. The system
 * prompt is a short paraphrase, never pi's text.
 *
 * This file is the profile (prompt, tool list, hooks); the tools and their helpers live beside it.
 */
import { PI_EDIT } from "./edit_match.ts";
import { approx } from "../../lib/harness/provenance.ts";
import type { HarnessProfile, ToolSpec } from "../../lib/harness/types.ts";
import { isObject, parseArguments, prepareEditArguments, validateArguments } from "./args.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { readTool } from "./read.ts";
import { BASH_SCHEMA, EDIT_SCHEMA, READ_SCHEMA, WRITE_SCHEMA } from "./schemas.ts";
import { tool } from "./tool.ts";
import { writeTool } from "./write.ts";
import { PI_CAPTURE } from "./capture.ts";
import { PI_GENERATION, PI_MODELS } from "./models.ts";

// The derived versions, registered as `deriveProfile(pi(), ...)`.
export { PI_0_73_0 } from "./v0_73_0.ts";

/** A short paraphrase of pi's prompt (never its text), ending in pi's last two lines. */
const SYSTEM_PROMPT = `You are a coding assistant working inside a terminal harness: you read files, run commands, \
edit code and write new files for the user.

Tools:
- read: show a file's contents
- bash: run a bash command (ls, grep, find, ...)
- edit: replace exact text in a file; put several disjoint changes in one call through edits[]
- write: create or overwrite a file

Guidelines:
- List and search with bash; view files with read rather than cat or sed.
- Every edits[].oldText must match the original file exactly, be unique, and not overlap another edit.
- Use write only for new files or complete rewrites.
- Answer briefly and name the files you touch.
Current date: {date}
Current working directory: {workdir}`;
const TOOLS: ToolSpec[] = [
  tool(READ_SCHEMA, readTool),
  tool(BASH_SCHEMA, bashTool),
  tool(EDIT_SCHEMA, editTool, prepareEditArguments),
  tool(WRITE_SCHEMA, writeTool),
];

/** The profile. */
export function pi(): HarnessProfile {
  return {
    name: "pi",
    version: "0.73.1",
    system: SYSTEM_PROMPT,
    user: "{instruction}",
    userContent: "parts",
    tools: TOOLS,
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null,
    unknownTool: (name) => `Tool ${name} not found`,
    // pi-ai repairs malformed JSON and runs the call; what it parsed is what it echoes back.
    parseArguments(raw: string) {
      const v = parseArguments(raw);
      return isObject(v) ? { args: v } : { error: "arguments are not a JSON object" };
    },
    echoArguments: "parsed",
    // Arguments that parse to something other than an object (`5`, `[1]`, `null`) fail pi's validation.
    badArguments(name, raw) {
      const spec = TOOLS.find((t) => t.schema.function.name === name)!;
      const v = validateArguments(spec.schema, parseArguments(raw));
      // The first branch is unreachable (the arguments are not an object).
      return v.ok ? approx(`Tool ${name} received arguments it cannot run`) : v.error;
    },
    answerChannel: true,
    shell: { tool: "bash", arg: "command" },
    // pi has no default timeout; this bounds every command (approx.).
    // The words of pi/bash.ts and read.ts.
    truncationMark: String.raw`Showing lines \d+-\d+ of \d+`,
    execTimeout: 600,
    context: "pi compacts only after the final answer, when the last usage exceeds contextWindow - 16384 " +
      "(111616 tokens with the defaults), in one extra request without tools; mid-episode only on a context-overflow " +
      "error. Not emulated.",
    // edit's exact match, then pi's whitespace- and quote-normalised one; `+exact-edit` keeps only the first.
    edits: { matcher: PI_EDIT },
    models: PI_MODELS,
    generation: PI_GENERATION,
    capture: PI_CAPTURE,
    emulates: {
      harness: "pi (@mariozechner/pi-coding-agent)",
      version: "0.73.1",
      seedPin: "1.3.0",
      sources: [
        "tests/golden/pi/tools.json (recorded: pi 0.73.1 on Node 20.20.2, openai-completions against a stub)",
        "tests/golden/pi/run1.json (recorded run1: each call and what pi answered)",
        "npm:@mariozechner/pi-coding-agent@0.73.1:dist/core/tools/{read,bash,edit,edit-diff,write,truncate," +
        "output-accumulator,path-utils}.js",
        "npm:@mariozechner/pi-coding-agent@0.73.1:dist/utils/{shell,mime}.js",
        "npm:@mariozechner/pi-ai@0.73.1:dist/utils/{validation,json-parse}.js",
        "npm:@mariozechner/pi-ai@0.73.1:dist/providers/{openai-completions,transform-messages}.js",
        "npm:@mariozechner/pi-agent-core@0.73.1:dist/agent-loop.js",
        "npm:typebox@1.4.3:build/value/convert/convert.mjs",
        "npm:partial-json@0.1.7:dist/index.js",
      ],
    },
  };
}
