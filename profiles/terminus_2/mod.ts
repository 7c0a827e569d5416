/**
 * terminus-2 (Harbor's own agent, `src/harbor/agents/terminus_2/`): no tools, no system message; the first user message
 * is the whole protocol. Each turn is one JSON object {analysis, plan, commands[{keystrokes, duration}], task_complete}
 * read by Harbor's tolerant parser; the keystrokes go to a persistent tmux pane; `task_complete` twice in a row ends the
 * episode, with a confirmation question in between. There is no channel for a final reply.
 *
 * Written from the harbor source (v0.9.0, 1b1dbc43; the prompt, loop and parser are unchanged in v0.22.0 but for the
 * empty-keystrokes newline warning): `terminus_2.py` (`_handle_llm_interaction`, `_run_agent_loop`,
 * `_limit_output_length`, `_get_completion_confirmation_message`), `terminus_json_plain_parser.py`, `tmux_session.py`.
 * Approximated: waits (deterministic, see `terminus_2/pane.ts`), no asciinema recording (so no `clear` before the first
 * screen), the split of over-long keystrokes, summarisation (not emulated).
 */
import {
  limitOutputLength,
  terminusConfirmation,
  terminusErrorPrompt,
  terminusObservation,
} from "../../lib/harness/protocols/terminus_json.ts";
import type { HarnessProfile } from "../../lib/harness/types.ts";
import { incrementalOutput, runBatch, startPane } from "./pane.ts";
import { TERMINUS_JSON_PLAIN } from "./prompt.ts";
import { TERMINUS_2_MODELS } from "./models.ts";

/** The version read, and the one the seed asked for. */
export const TERMINUS_2_VERSION = "harbor-0.22.0";

/** The terminus-2 profile (JSON parser, the default `parser_name`). */
export function terminus2(): HarnessProfile {
  return {
    name: "terminus-2",
    version: TERMINUS_2_VERSION,
    system: "",
    user: TERMINUS_JSON_PLAIN,
    tools: [],
    protocol: { kind: "terminus_json" },
    stop: { kind: "flag", confirm: true },
    answer: { kind: "stop_answer", fallback: "none" },
    answerChannel: false,
    // A parse error executes nothing and asks again; Harbor never gives up on format errors.
    formatError: (feedback) => terminusErrorPrompt(feedback),
    terminal: {
      run: runBatch,
      // Harbor limits the (already limited) output once more here, but not in the confirmation.
      observe: (output, feedback) => terminusObservation(feedback, limitOutputLength(output)),
      confirm: terminusConfirmation,
    },
    start: async (s) => {
      await startPane(s);
      return { terminal_state: limitOutputLength(await incrementalOutput(s)) };
    },
    execTimeout: 60,
    context:
      "terminus-2 summarises (summary, questions, answers sub-agents) when free tokens fall under 8,000 or on a " +
      "context error; recorded, not emulated",
    models: TERMINUS_2_MODELS,
    emulates: {
      harness: "terminus-2",
      version: TERMINUS_2_VERSION,
      seedPin: "harbor-0.24.0",
      sources: [
        "JackGuan99/harbor@1b1dbc43:src/harbor/agents/terminus_2/templates/terminus-json-plain.txt (harbor v0.9.0, " +
        "read in this fork of harbor-framework/harbor)",
        "JackGuan99/harbor@1b1dbc43:src/harbor/agents/terminus_2/terminus_json_plain_parser.py",
        "JackGuan99/harbor@1b1dbc43:src/harbor/agents/terminus_2/terminus_2.py",
        "JackGuan99/harbor@1b1dbc43:src/harbor/agents/terminus_2/tmux_session.py",
        "JackGuan99/harbor@1b1dbc43:tests/golden/terminus_2/hello-world-invalid-json.trajectory.json",
        "harbor-framework/harbor@39b85872:src/harbor/agents/terminus_2/terminus_2.py (v0.22.0, compared by an " +
        "earlier research step, not read here; path not confirmed)",
      ],
    },
  };
}
