/**
 * codex@0.171.0 (`codex exec --dangerously-bypass-approvals-and-sandbox`, a model codex does not know, behind an
 * OpenAI-compatible Responses endpoint): the unified exec tools `exec_command` and `write_stdin`, with codex's
 * output header and truncation, sessions for commands that keep running, and `apply_patch` heredocs intercepted and
 * applied by codex itself (for such a model codex 0.171.0 offers no edit tool). Recorded against the stub (reduced to
 * tests/golden/codex) and read from the source its release was cut from.
 *
 * In chat form (as an OpenAI-compatible server translates the Responses request): codex's base instructions and its
 * developer messages are system messages, `<environment_context>` is a user message before the task, each call's
 * output is a `tool` message. The episode ends at a reply without a call; that reply is the answer.
 *
 * Left out by design (`omittedTools`): request_user_input (Plan mode only), view_image, the multi_agent_v1 namespace,
 * the goal tools and web_search. Not emulated: an `apply_patch` command that is not the whole script runs codex's own
 * `apply_patch` binary from codex's PATH in real codex; here it reaches the container's shell, which has none.
 */
import type { HarnessProfile } from "../../lib/harness/types.ts";
import { serdeParse } from "../../lib/harness/lang/json_serde.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { EXEC_COMMAND, WRITE_STDIN } from "./schemas.ts";
import { execCommand, writeStdin } from "./unified_exec.ts";
import { CODEX_CAPTURE } from "./capture.ts";
import { CODEX_GENERATION, CODEX_MODELS } from "./models.ts";

/** A concise paraphrase of codex's ~17k-character base instructions (its text is not reproduced). */
export const CODEX_SYSTEM_PROMPT =
  `You are a coding agent running in the Codex CLI, a terminal-based coding assistant. Be precise, safe and helpful.

- Work in the user's workspace with the tools you have: run commands with exec_command (and talk to a command that is still running with write_stdin). Edit files with \`apply_patch\` through exec_command, using a heredoc: apply_patch <<'EOF' … EOF, with *** Begin Patch, *** Add File / *** Update File / *** Delete File sections and *** End Patch.
- Keep going until the task is fully solved before ending your turn; do not guess, read the files you need. Fix problems at their root, keep changes minimal and in the codebase's style, and do not fix unrelated bugs.
- Prefer rg for searching. Do not add license headers or inline comments unless asked; never git commit unless asked.
- When you can, verify your work with the project's tests or build, starting narrow and widening.
- Finish with a short, plain summary of what you did and anything left for the user.`;

/** The permissions section of codex's second developer message (recorded verbatim). */
const PERMISSIONS = "<permissions instructions>\n" +
  "Filesystem sandboxing defines which files can be read or written. `sandbox_mode` is `danger-full-access`: No filesystem sandboxing - all commands are permitted. Network access is enabled.\n" +
  "Approval policy is currently never. Do not provide the `sandbox_permissions` for any reason, commands will be rejected.\n" +
  "</permissions instructions>";

/** A short paraphrase of the skills section (codex lists its bundled skills and where their SKILL.md files are). */
const SKILLS =
  "<skills_instructions>\n## Skills\nLocal skills (each a SKILL.md under `{codex_home}/skills/.system`): " +
  "imagegen, openai-docs, skill-creator, skill-installer. Open a skill's SKILL.md before using it.\n</skills_instructions>";

/** The `<environment_context>` user message (recorded verbatim, values filled per episode). */
const ENVIRONMENT_CONTEXT = "<environment_context>\n  <cwd>{workdir}</cwd>\n  <shell>bash</shell>\n" +
  "  <current_date>{date}</current_date>\n  <timezone>{timezone}</timezone>\n" +
  '  <filesystem><workspace_roots><root>{workdir}</root></workspace_roots><permission_profile type="disabled">' +
  '<file_system type="unrestricted" /></permission_profile></filesystem>\n</environment_context>';

/** The profile. */
export function codex(): HarnessProfile {
  return {
    name: "codex",
    version: "0.171.0",
    system: CODEX_SYSTEM_PROMPT,
    prelude: [
      { role: "system", content: [SKILLS, PERMISSIONS], paraphrased: true },
      { role: "user", content: [ENVIRONMENT_CONTEXT] },
    ],
    user: "{instruction}",
    userContent: "parts",
    toolMessageKeys: ["tool_call_id", "content"],
    shell: { tool: "exec_command", arg: "cmd" },
    tools: [
      { schema: EXEC_COMMAND, bind: execCommand },
      { schema: WRITE_STDIN, bind: writeStdin },
    ],
    omittedTools: [
      "request_user_input",
      "view_image",
      "multi_agent_v1",
      "get_goal",
      "create_goal",
      "update_goal",
      "web_search",
    ],
    handlePattern: "session ID (\\d+)",
    // serde_json reads the arguments: a syntax error is answered in its words (types are checked per tool).
    parseArguments(raw) {
      const r = serdeParse(raw);
      if ("error" in r) return r;
      if (typeof r.value !== "object" || r.value === null || Array.isArray(r.value)) {
        return { error: approx(`invalid type: ${Array.isArray(r.value) ? "sequence" : "a value"}, expected a map`) };
      }
      return { args: r.value as Record<string, unknown> };
    },
    badArguments: (_name, _raw, error) => `failed to parse function arguments: ${error}`,
    unknownTool: (name) => `unsupported call: ${name}`,
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    emptyAssistantContent: null,
    async start(s) {
      const r = await s.box.exec('printf "%s\\n%s\\n" "$HOME" "${TZ:-}"; readlink /etc/localtime 2>/dev/null', {
        shell: "sh",
        timeoutSec: 30,
      });
      const [home, tz, link] = new TextDecoder().decode(r.stdout).split("\n");
      const zone = tz || link?.replace(/^.*zoneinfo\//, "") || "Etc/UTC";
      return { codex_home: `${home || "/root"}/.codex`, timezone: zone };
    },
    // The words of output.ts's cut and its warning.
    truncationMark: String.raw`…\d+ (chars|tokens) truncated…|^Warning: truncated output \(`,
    execTimeout: 600,
    chatTemplateKwargs: null,
    context: "codex compacts the history automatically near 95% of the model's context window (272000 tokens for " +
      "a model it does not know); recorded, not emulated.",
    models: CODEX_MODELS,
    generation: CODEX_GENERATION,
    capture: CODEX_CAPTURE,
    emulates: {
      harness: "codex (@openai/codex, `codex exec`, a model codex does not know)",
      version: "0.171.0",
      sources: [
        "tests/golden/codex/tools.json (recorded: codex 0.171.0 against a stub Responses endpoint)",
        "tests/golden/codex/{episode,errors}/requests.jsonl (recorded episodes, reduced; replayed call by call)",
        "openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/apply-patch/src (the patch language)",
        "openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/core/src/unified_exec (sessions, limits)",
        "openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/core/src/tools/context.rs (output wording)",
        "openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/utils/string/src/truncate.rs (truncation)",
      ],
    },
  };
}
