/**
 * `--policy script:` against the profiles a run may draw: a call of a tool the profile lacks (or a tool call under a
 * text protocol) is refused in one line naming the script, the profile and the tools, unless `--allow-unknown-tools`
 * (`allow-unknown-tools:` in the YAML) lets it through for the profile to answer.
 */
import assert from "node:assert/strict";
import { UsageError } from "../base/errors.ts";
import { getProfile } from "../harness/registry.ts";
import { buildConfig } from "../eval/config.ts";
import { registerBuiltins } from "../../profiles/mod.ts";
import type { Turn } from "../script/script.ts";
import { checkScript, scriptProblem } from "./script_check.ts";

registerBuiltins();

const UNKNOWN: Turn[] = [
  { tool_calls: [{ name: "Bash", arguments: { command: "ls" } }] },
  { tool_calls: [{ name: "python", arguments: { code: "print(1)" } }] },
  { content: "Answer: 35" },
];
const claude = getProfile("claude-code");
const text = getProfile("mini-swe-agent-text");
const full = (p: typeof claude) => `${p.name}@${p.version}`;

Deno.test("script check: a tool the profile lacks is refused in one line naming the file and the tool", () => {
  const problem = scriptProblem(UNKNOWN, claude);
  assert.match(problem ?? "", /^calls python, which claude-code@[\w.]+ does not have \(its tools: Bash, /);
  assert.throws(
    () => checkScript("t/turns.json", UNKNOWN, [full(claude)]),
    (e: Error) => {
      assert.ok(e instanceof UsageError);
      assert.equal(e.message, `--policy script:t/turns.json: ${problem}`);
      assert.equal(e.message.split("\n").length, 1);
      return true;
    },
  );
  // A text protocol: the first turn with tool calls is named.
  assert.throws(
    () => checkScript("t/turns.json", UNKNOWN, [full(claude), full(text)].sort()),
    /^UsageError: --policy script:t\/turns\.json: calls python, which claude-code@/,
  );
  assert.match(
    scriptProblem(UNKNOWN, text) ?? "",
    /^turn 1 has tool_calls, but mini-swe-agent-text@[\w.]+ reads its actions from the reply's text \(fenced/,
  );
  // Tools the profile has pass without the flag.
  assert.equal(scriptProblem([UNKNOWN[0], UNKNOWN[2]], claude), undefined);
});

Deno.test("script check: allowUnknownTools lets a tool the profile lacks (and tool calls under text) through", () => {
  assert.equal(scriptProblem(UNKNOWN, claude, true), undefined);
  assert.equal(scriptProblem(UNKNOWN, text, true), undefined);
  checkScript("t/turns.json", UNKNOWN, [full(claude), full(text)], true);
  // Explicitly false is today's refusal.
  assert.throws(() => checkScript("t/turns.json", UNKNOWN, [full(claude)], false), UsageError);
});

Deno.test("script check: --allow-unknown-tools and the YAML key reach the script policy; other policies refuse it", () => {
  const script = { tasks: "x", policy: "script:t.json" };
  assert.deepEqual(buildConfig(script, {}).policy, { kind: "script", path: "t.json" });
  assert.deepEqual(buildConfig(script, { allowUnknownTools: true }).policy, {
    kind: "script",
    path: "t.json",
    allowUnknownTools: true,
  });
  // From the YAML (raw keys are camel-cased by readConfigFile), and false from a flag over the file's true.
  assert.deepEqual(buildConfig({ ...script, allowUnknownTools: true }, {}, "e.yaml").policy, {
    kind: "script",
    path: "t.json",
    allowUnknownTools: true,
  });
  assert.deepEqual(buildConfig({ ...script, allowUnknownTools: true }, { allowUnknownTools: false }).policy, {
    kind: "script",
    path: "t.json",
  });
  assert.throws(
    () => buildConfig({ ...script, allowUnknownTools: "yes" }, {}, "e.yaml"),
    /^UsageError: e\.yaml: allowUnknownTools must be true or false$/,
  );
  assert.throws(
    () => buildConfig({ tasks: "x", policy: "oracle" }, { allowUnknownTools: true }),
    /^UsageError: eval: --allow-unknown-tools is only used with --policy script:FILE \(policy is oracle\)$/,
  );
  assert.throws(
    () => buildConfig({ tasks: "x", endpoint: "http://127.0.0.1:1/v1", allowUnknownTools: true }, {}, "e.yaml"),
    /^UsageError: eval: e\.yaml: allowUnknownTools is only used with --policy script:FILE \(policy is endpoint\)$/,
  );
  // False with another policy is no error.
  assert.deepEqual(buildConfig({ tasks: "x", policy: "oracle" }, { allowUnknownTools: false }).policy, {
    kind: "oracle",
  });
});
