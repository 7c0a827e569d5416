/**
 * qwen-code@0.24.4 against the recording (reduced to tests/golden/qwen-code): schemas byte for byte, tool order, message
 * shapes, the recorded tool results replayed call by call in a real container, read-first refusals, unknown tools,
 * the stop and answer rules, and grep_search's count on count-error-lines (the oracle on the example tasks is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import type { TextPart } from "../../lib/harness/types.ts";
import { QWEN_SYSTEM_PROMPT, QWEN_USER_PARTS, qwenCode } from "./mod.ts";
import { qwenDate } from "./first_message.ts";
import { onePart, recorded } from "./testdata/fixtures.ts";
import { QWEN_REGISTRY, qwenUnknownTool } from "./unknown_tool.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "qwen-code");

// -------------------------------------------------------------------------------------------------------------------
// Without a container
// -------------------------------------------------------------------------------------------------------------------

Deno.test("qwen-code: identity, protocol, stop and answer rules", () => {
  const p = qwenCode();
  assert.equal(p.name, "qwen-code");
  assert.equal(p.version, "0.24.4");
  assert.equal(p.emulates.version, "0.24.4");
  assert.equal(p.emulates.seedPin, "0.25.2");
  assert.ok(p.emulates.sources.some((x) => x.startsWith("tests/golden/qwen-code/")));
  assert.deepEqual(p.protocol, { kind: "native" });
  assert.deepEqual(p.stop, { kind: "no_call" });
  assert.deepEqual(p.answer, { kind: "last_text" });
  assert.equal(p.emptyAssistantContent, null);
  assert.equal(p.userContent, "parts");
  assert.equal(p.execTimeout, 120);
});

Deno.test("qwen-code: parameter schemas byte for byte as recorded, tools in the recorded (sorted) order", async () => {
  const golden = (await Deno.readTextFile(resolve(GOLDEN, "tool_parameters.jsonl"))).trimEnd().split("\n");
  const tools = qwenCode().tools.map((t) => t.schema);
  assert.deepEqual(tools.map((t) => t.function.name), [
    "edit",
    "glob",
    "grep_search",
    "read_file",
    "run_shell_command",
    "write_file",
  ]);
  assert.deepEqual(golden.map((l) => JSON.parse(l).name), tools.map((t) => t.function.name));
  for (const [i, t] of tools.entries()) {
    assert.equal(JSON.stringify({ name: t.function.name, parameters: t.function.parameters }), golden[i]);
    assert.deepEqual(Object.keys(t), ["type", "function"]);
    assert.deepEqual(Object.keys(t.function), ["name", "description", "parameters"]);
    // Paraphrased, short: qwen's own descriptions run from 543 to 4946 characters.
    assert.ok(t.function.description.length < 300, t.function.name);
  }
});

Deno.test("qwen-code: a short paraphrased system prompt with the working directory", () => {
  const p = qwenCode();
  assert.equal(p.system, QWEN_SYSTEM_PROMPT);
  assert.ok(p.system.includes("{workdir}"));
  assert.ok(p.system.length < 2000, `${p.system.length} chars`);
  assert.ok(!p.system.includes("developed by Alibaba Group"), "not qwen's own text");
  assert.match(p.system, /destructive/);
});

Deno.test("qwen-code: the first user message keeps qwen's five parts, in order", async () => {
  assert.equal(QWEN_USER_PARTS.length, 5);
  assert.equal(QWEN_USER_PARTS[4], "{instruction}");
  for (const part of QWEN_USER_PARTS.slice(0, 4)) {
    assert.ok(part.startsWith("<system-reminder>\n") && part.endsWith("\n</system-reminder>"));
  }
  const env = await Deno.readTextFile(resolve(GOLDEN, "env_context.txt"));
  const folders = env.slice(env.indexOf("Showing up to"), env.lastIndexOf("\n</system-reminder>"));
  assert.equal(QWEN_USER_PARTS[1].replace("{folder_structure}", folders), env);
  assert.equal(QWEN_USER_PARTS[3], await Deno.readTextFile(resolve(GOLDEN, "date_reminder.txt")));
  assert.equal(qwenCode().user, QWEN_USER_PARTS.join(""));
});

Deno.test("qwen-code: dates as qwen writes them", () => {
  assert.equal(qwenDate(new Date(2026, 10, 30, 12)), "Monday, November 30, 2026");
});

Deno.test("qwen-code: unknown and disabled tools, exactly as recorded", async () => {
  const known = new Set(qwenCode().tools.map((t) => t.schema.function.name));
  let n = 0;
  for (const runName of ["r1", "r2", "r6"]) {
    for (const c of await recorded(runName)) {
      if (known.has(c.name)) continue;
      assert.equal(qwenUnknownTool(c.name), c.result, `${runName}#${c.i} ${c.name}`);
      n++;
    }
  }
  assert.equal(n, 7);
  assert.equal(QWEN_REGISTRY.length, 28);
  const p = qwenCode();
  assert.equal(p.alias?.("search_file_content", []), "grep_search");
  assert.equal(p.alias?.("replace", []), "edit");
  assert.equal(
    onePart(p.badArguments?.("glob", "[1,2]", "not an object") as unknown as TextPart[]),
    "params must have required property 'pattern'",
  );
});

// -------------------------------------------------------------------------------------------------------------------
// In a container
// -------------------------------------------------------------------------------------------------------------------
