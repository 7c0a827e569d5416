/**
 * small-agent@1: pgs's own harness for small models (an 8B through Ollama), not an emulation. Built from the lessons
 * of the small-model harness comparison: a text protocol (one ```action block per turn, because a small model cannot
 * be relied on for tool-call JSON), a signature outline instead of a bare file list (`map`), a recoverable edit (an
 * exact Find wins, a whitespace near-miss is re-indented, a miss answers with the closest real lines), a loop guard on
 * repeated reads, and the project's own AGENTS.md ranked above the task. A turn without an action block ends the
 * episode, and its text is the answer.
 */
import { SMALL_AGENT_EDIT } from "./edit_match.ts";
import { fnSchema, type HarnessProfile } from "../../lib/harness/types.ts";
import { act } from "./actions.ts";
import { ACTIONS } from "./parse.ts";
import { projectDocs } from "./project_docs.ts";

/** The profile's version. */
export const SMALL_AGENT_VERSION = "1";

const FENCE = "```";

/** The system prompt: every action with an example, the edit format, and how to finish. */
export const SMALL_AGENT_SYSTEM = `You are a coding agent. You work in the directory {workdir} by taking actions, one \
per turn. Write each action in a fenced block tagged action, like this:

${FENCE}action
read wc.py
${FENCE}

The result comes back in the next message. The actions, each with an example:

- map: list the files, with the functions and classes in each and their line numbers. Start with it.
  Example: map
- read PATH or read PATH START-END: show a file with line numbers.
  Example: read wc.py 10-40
- edit PATH: change part of a file (see below).
- append PATH: add the lines after the first line to the end of the file (it is created if missing).
  Example: append test_wc.py, then the lines to add on the next lines of the block
- write PATH: create or overwrite the file with the lines after the first line.
  Example: write hello.py, then the file's whole text on the next lines of the block
- run COMMAND: run a shell command in the working directory and see its exit code and output. cd and export carry \
over to the next run.
  Example: run python3 -m unittest -v

To edit, write edit PATH, then a line Find: followed by the exact lines to change, then a line Replace: followed by \
the new lines, to the end of the block:

${FENCE}action
edit wc.py
Find:
    return len(words)
Replace:
    return len(set(words))
${FENCE}

Copy the Find: lines from read's output without the line numbers; they must match one place in the file.

Rules:
- One action per turn: exactly one action block in each reply.
- Paths are relative to {workdir}.
- Check your change with run (the tests, or the program itself) before you finish.
- When you are done, reply without an action block. That reply is your answer: put in it what the task asks for.`;

/** The profile. */
export function smallAgent(): HarnessProfile {
  return {
    name: "small-agent",
    version: SMALL_AGENT_VERSION,
    system: SMALL_AGENT_SYSTEM,
    // The project's own rules (and a heading for the task) when the working directory has them, else nothing.
    user: "{project_docs}{instruction}",
    protocol: { kind: "fenced", lang: "action", tool: "act", arg: "action" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    // The oracle's command goes into a `run` action.
    shell: { tool: "act", arg: "action", prefix: "run " },
    // The words of its own cut.
    truncationMark: String.raw`\[… \d+ characters cut …\]`,
    execTimeout: 120,
    edits: { matcher: SMALL_AGENT_EDIT },
    context: "none: the whole history is sent every turn",
    async start(s) {
      return { project_docs: await projectDocs(s) };
    },
    formatError(error) {
      const found = Number(/found (\d+)\./.exec(error)?.[1] ?? 0);
      return `Error: one action per turn, and this reply has ${found} action blocks. Send exactly one ${FENCE}action ` +
        `block, or reply without one when you are done.`;
    },
    emulates: {
      harness: "pgs's own small-model harness (not an emulation)",
      version: SMALL_AGENT_VERSION,
      sources: [
        "pgs: small-agent's own dialect, from the small-model harness lessons (text protocol, signature map, " +
        "recoverable edit, loop guard, project docs)",
      ],
    },
    tools: [
      {
        // The engine needs a schema; the model never sees it (the prompt teaches the text form).
        schema: fnSchema("act", `One action: ${ACTIONS.join(", ")}.`, {
          action: { type: "string", description: "The action block's body: the action word, then its lines." },
        }, ["action"]),
        bind: (s, a) => act(s, typeof a.action === "string" ? a.action : ""),
      },
    ],
  };
}
