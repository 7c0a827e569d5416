/**
 * The schemas of codex 0.171.0's unified exec tools, as recorded (`codex exec` against the stub's Responses API with a
 * model codex does not know; tests/golden/codex/tools.json holds the recorded objects and tests compare the two).
 */
import type { ToolSchema } from "../../lib/harness/types.ts";

const str = (description: string) => ({ type: "string", description });
const num = (description: string) => ({ type: "number", description });
const bool = (description: string) => ({ type: "boolean", description });
const TOKENS = "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.";

/** `exec_command` (properties in codex's BTreeMap order: sorted by name). */
export const EXEC_COMMAND: ToolSchema = {
  type: "function",
  function: {
    name: "exec_command",
    description: "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
    strict: false,
    parameters: {
      type: "object",
      properties: {
        cmd: str("Shell command to execute."),
        justification: str("User-facing approval question for `require_escalated`; omit otherwise."),
        login: bool("Request login-shell startup. Omit to inherit."),
        max_output_tokens: num(TOKENS),
        prefix_rule: {
          type: "array",
          description:
            'Reusable approval prefix for `cmd`, only with `sandbox_permissions: "require_escalated"`; for example ["git", "pull"].',
          items: { type: "string" },
        },
        sandbox_permissions: {
          type: "string",
          description:
            "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.",
          enum: ["use_default", "require_escalated"],
        },
        shell: str("Shell binary to launch. Defaults to the user's default shell."),
        tty: bool("True allocates a PTY for the command; false or omitted uses plain pipes."),
        workdir: str("Working directory for the command. Defaults to the turn cwd."),
        yield_time_ms: num("Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms."),
      },
      required: ["cmd"],
      additionalProperties: false,
    },
  },
};

/** `write_stdin`. */
export const WRITE_STDIN: ToolSchema = {
  type: "function",
  function: {
    name: "write_stdin",
    description: "Writes characters to an existing unified exec session and returns recent output.",
    strict: false,
    parameters: {
      type: "object",
      properties: {
        chars: str("Bytes to write to stdin. Defaults to empty, which polls without writing."),
        max_output_tokens: num(TOKENS),
        session_id: num("Identifier of the running unified exec session."),
        yield_time_ms: num(
          "Wait before yielding output. Non-empty writes default to 250 ms and cap at 30000 ms; empty polls wait 5000-300000 ms by default.",
        ),
      },
      required: ["session_id"],
      additionalProperties: false,
    },
  },
};
