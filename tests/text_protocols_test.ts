/** The text protocols' parsers (pure). */
import assert from "node:assert/strict";
import { parseTextTurn } from "../lib/harness/protocols/text_protocols.ts";

Deno.test("fenced: exactly one block, else the count in the error", () => {
  const p = { kind: "fenced", lang: "mswea_bash_command", tool: "bash", arg: "command" } as const;
  const one = parseTextTurn(p, "thinking\n```mswea_bash_command\nls -la\n```\n");
  assert.deepEqual(one, { calls: [{ id: "t0", name: "bash", args: { command: "ls -la" }, raw: "ls -la" }] });
  assert.deepEqual(parseTextTurn(p, "no block"), { error: "Expected exactly 1 action, found 0.", none: true });
  const two = "```mswea_bash_command\na\n```\n```mswea_bash_command\nb\n```";
  assert.deepEqual(parseTextTurn(p, two), { error: "Expected exactly 1 action, found 2." });
});
