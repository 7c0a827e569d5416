/**
 * SWE-agent main @ 3ea751c (v1.1.0), its default config (config/default.yaml: bundles registry, edit_anthropic,
 * review_on_submit_m; function calling): native calls to `bash` (one persistent shell), `str_replace_editor` and
 * `submit`. Every observation is `OBSERVATION:\n<output>`, or the no-output sentence; the episode ends on the second
 * `submit` (the first shows the review with the diff); there is no answer channel: the answer is the patch.
 *
 * Written from the source (SWE-agent/SWE-agent at 3ea751c: sweagent/agent/agents.py,
 * sweagent/tools/{tools,parsing,commands,utils}.py, tools/edit_anthropic/bin/str_replace_editor,
 * tools/review_on_submit_m/bin/submit, config/default.yaml; SWE-ReX runtime/local.py). Strings are the source's
 * unless a comment says `approx.`. The system and instance prompts are short paraphrases, never SWE-agent's text.
 *
 * Differences kept on purpose: upstream rejects turns with several calls and drops rejected turns from its history;
 * here every call of a valid turn runs and a rejected turn stays (rollouts are token-exact).
 */
import type { HarnessProfile, ToolSpec } from "../../lib/harness/types.ts";
import { bashTool } from "./bash.ts";
import { editorTool } from "./editor.ts";
import { MAX_REQUERIES, MISSING_CALL } from "./messages.ts";
import { parseArguments, validateTurn } from "./parse.ts";
import { BASH_SCHEMA, EDITOR_SCHEMA, SUBMIT_SCHEMA } from "./schemas.ts";
import { startRepo, submitTool } from "./submit.ts";
import { SWE_AGENT_MODELS } from "./models.ts";

/** A paraphrase of default.yaml's one-line system template (approx.). */
const SYSTEM_PROMPT = "You are a helpful assistant that solves tasks by working on a computer.";

/** A short paraphrase of default.yaml's instance template (approx.). */
const INSTANCE_PROMPT = `<uploaded_files>
{workdir}
</uploaded_files>
The code is in {workdir}. Here is the task:

<pr_description>
{instruction}
</pr_description>

Make the smallest changes to non-test files in {workdir} that satisfy the <pr_description>; the tests are already \
taken care of. A good way to work:
1. Find and read the code the description is about.
2. Write a script that reproduces the problem and run it with the bash tool.
3. Fix the source.
4. Run your script again to confirm the fix.
5. Consider edge cases.
Think it through carefully.`;

const TIMEOUTS = "swe-agent.consecutiveTimeouts";

const TOOLS: ToolSpec[] = [
  { schema: BASH_SCHEMA, bind: (s, a) => bashTool(s, a) },
  {
    schema: EDITOR_SCHEMA,
    bind: (s, a) => {
      s.state.set(TIMEOUTS, 0);
      return editorTool(s, a);
    },
  },
  {
    schema: SUBMIT_SCHEMA,
    bind: (s) => {
      s.state.set(TIMEOUTS, 0);
      return submitTool(s);
    },
  },
];

/** The profile. */
export function sweAgent(): HarnessProfile {
  return {
    name: "swe-agent",
    version: "main-3ea751c",
    system: SYSTEM_PROMPT,
    user: INSTANCE_PROMPT,
    tools: TOOLS,
    protocol: { kind: "native" },
    stop: { kind: "submit", tool: "submit", confirm: true },
    // No answer channel: the result is the submitted patch (`info["submission"]`), never the model's text. The design's
    // table says "last text" (docs/spec-notes.md), but the oracle writes its answer as the submit turn's text, so
    // last_text would give answer tasks a channel SWE-agent does not have.
    answer: { kind: "stop_answer", fallback: "none" },
    answerChannel: false,
    emptyAssistantContent: null,
    parseArguments,
    validate: (calls) => validateTurn(calls, TOOLS),
    // A turn without calls, and (via validate) a call SWE-agent cannot parse: its requery message as a user message.
    formatError: (error) => error === "no tool call" ? MISSING_CALL : error,
    // Upstream gives up after three requeries in a row (exit_format, then autosubmits).
    maxFormatErrors: MAX_REQUERIES,
    // Unreachable (validate answers these first); the requery texts, in case a turn bypasses it.
    unknownTool: (name) =>
      `Your action could not be parsed properly: Command '${name}' not found in list of available commands..\n`,
    badArguments: () => "Your action could not be parsed properly: Tool call arguments are not valid JSON..\n",
    start: (s) => startRepo(s),
    shell: { tool: "bash", arg: "command" },
    // The words of messages.ts's and editor.ts's notices.
    truncationMark: String.raw`<response clipped><NOTE>`,
    execTimeout: 30,
    chatTemplateKwargs: null,
    context: "No compaction: default.yaml's only history processor adds Anthropic cache_control markers to the last " +
      "2 messages. Observations over 100000 characters are clipped with a note.",
    models: SWE_AGENT_MODELS,
    emulates: {
      harness: "SWE-agent",
      version: "main-3ea751c (1.1.0)",
      sources: [
        "SWE-agent/SWE-agent@3ea751c087f3:config/default.yaml",
        "SWE-agent/SWE-agent@3ea751c087f3:sweagent/agent/agents.py",
        "SWE-agent/SWE-agent@3ea751c087f3:sweagent/tools/{tools,parsing,commands,utils}.py",
        "SWE-agent/SWE-agent@3ea751c087f3:sweagent/environment/{swe_env,repo}.py",
        "SWE-agent/SWE-agent@3ea751c087f3:tools/edit_anthropic/bin/str_replace_editor",
        "SWE-agent/SWE-agent@3ea751c087f3:tools/review_on_submit_m/bin/submit",
        "SWE-agent/SWE-agent@3ea751c087f3:tools/registry/lib/registry.py",
        "SWE-agent/SWE-ReX@0bed7537:src/swerex/runtime/local.py (BashSession, _check_bash_command; commit not " +
        "confirmed)",
        "tests/golden/swe-agent/editor.json (str_replace_editor at 3ea751c run by tests/golden/swe-agent/gen.py)",
      ],
    },
  };
}
