/**
 * The registered protocols (`lib/harness/protocols/`), one suite run against each: what it writes for a call (or a
 * command, or its completion flag) it reads back as the same action (the fenced parser's own rules: fenced_test.ts).
 */
import assert from "node:assert/strict";
import { protocolDef, PROTOCOLS } from "./registry.ts";
import { parseTerminusJson } from "./terminus_json.ts";
import type { Protocol } from "../types.ts";

/** One instance of each protocol kind. */
const SAMPLES: { [K in Protocol["kind"]]: Extract<Protocol, { kind: K }> } = {
  native: { kind: "native" },
  fenced: { kind: "fenced", lang: "mswea_bash_command", tool: "bash", arg: "command" },
  terminus_json: { kind: "terminus_json" },
};

Deno.test("protocols: every registered kind has a sample here", () => {
  assert.deepEqual(Object.keys(PROTOCOLS).sort(), Object.keys(SAMPLES).sort());
});

for (const p of Object.values(SAMPLES) as Protocol[]) {
  Deno.test(`protocol ${p.kind}: what it writes it reads back as the same action`, () => {
    const def = protocolDef(p);
    assert.equal(def.kind, p.kind);
    assert.ok(def.describe(p).length > 0);
    const call = def.encode(p, "bash", { command: "ls -la" }, "call_7", "thinking");
    if (def.native) {
      assert.deepEqual(call?.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]), [
        ["call_7", "bash", { command: "ls -la" }],
      ]);
      assert.equal(call?.content, "thinking");
    } else if (call) {
      const read = def.atifCalls(p, call.content ?? "", 3);
      assert.deepEqual(read.calls.map((c) => [c.function_name, c.arguments]), [["bash", { command: "ls -la" }]]);
      assert.equal(read.answers, "call_3_1", "the next user message answers the one call");
    } else {
      // No tools: a command is typed as the protocol's own action, and its flag ends the task.
      const typed = def.command!(p, "ls -la");
      const read = def.atifCalls(p, typed.content ?? "", 3);
      assert.deepEqual(read.calls.map((c) => [c.function_name, c.arguments.keystrokes]), [[
        "bash_command",
        "ls -la\n",
      ]]);
      assert.equal(parseTerminusJson(def.flagTurn!(p).content ?? "").taskComplete, true);
    }
  });
}
