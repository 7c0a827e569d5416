/** The fenced protocol's parser: exactly one block of the protocol's language, else the count in the error. */
import assert from "node:assert/strict";
import { parseFenced } from "./fenced.ts";
import { protocolDef } from "./registry.ts";
import type { Protocol } from "../types.ts";

Deno.test("fenced: exactly one block, else the count in the error", () => {
  const p: Extract<Protocol, { kind: "fenced" }> = {
    kind: "fenced",
    lang: "mswea_bash_command",
    tool: "bash",
    arg: "command",
  };
  const one = parseFenced(p, "thinking\n```mswea_bash_command\nls -la\n```\n");
  assert.deepEqual(one, { calls: [{ id: "t0", name: "bash", args: { command: "ls -la" }, raw: "ls -la" }] });
  assert.deepEqual(parseFenced(p, "no block"), { error: "Expected exactly 1 action, found 0.", none: true });
  const two = "```mswea_bash_command\na\n```\n```mswea_bash_command\nb\n```";
  assert.deepEqual(parseFenced(p, two), { error: "Expected exactly 1 action, found 2." });
  assert.equal(protocolDef(p).encode(p, "bash", {}, "x", ""), undefined, "a call without the block's argument");
});
