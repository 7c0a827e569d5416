/** The line a task.toml key is on, for errors that name it. */
import assert from "node:assert/strict";
import { findKeyLine } from "./toml_lines.ts";

Deno.test("findKeyLine: headers, dotted keys, inline tables", () => {
  const text = `# c
[environment]
cpus = 1
s = """
memory_mb = 5
"""
env = { A = "x", "B" = { C = [1, {D = 2}], E = "}" }, F = 3 }
healthcheck.command = "x"
[ verifier . env ]
K = "v"
`;
  assert.equal(findKeyLine(text, ["environment", "cpus"]), 3);
  assert.equal(findKeyLine(text, ["environment", "memory_mb"]), 2); // inside a string: falls back to the table
  assert.equal(findKeyLine(text, ["environment", "env", "F"]), 7);
  assert.equal(findKeyLine(text, ["environment", "env", "B", "E"]), 7);
  assert.equal(findKeyLine(text, ["environment", "healthcheck", "command"]), 8);
  assert.equal(findKeyLine(text, ["verifier", "env", "K"]), 10);
  assert.equal(findKeyLine(text, ["verifier", "env"]), 9);
  assert.equal(findKeyLine(text, ["agent"]), undefined);
});
