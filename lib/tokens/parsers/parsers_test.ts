import assert from "node:assert/strict";
import { hermesTools } from "./hermes.ts";
import { qwen3CoderTools } from "./qwen3_coder.ts";
import { deepseekR1Reasoning, qwen3Reasoning } from "./reasoning.ts";
import { reasoningParser, TOOL_PARSERS, toolParser } from "./registry.ts";

const TOOLS = [{
  type: "function",
  function: {
    name: "edit",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string" },
        line: { type: "integer" },
        ratio: { type: "number" },
        dry: { type: "boolean" },
        tags: { type: "array" },
      },
    },
  },
}];

Deno.test("hermes: calls, content before the first block, Python's dumps of the arguments", () => {
  const text = 'Let me look.\n<tool_call>\n{"name":"bash","arguments":{"command":"ls -la","n":[1,2]}}\n</tool_call>\n' +
    '<tool_call>\n{"name": "read", "arguments": {"path": "é"}}\n</tool_call>trailing';
  const r = hermesTools.parse(text, TOOLS);
  assert.equal(r.content, "Let me look.\n");
  assert.deepEqual(r.calls, [
    { name: "bash", arguments: '{"command": "ls -la", "n": [1, 2]}' },
    { name: "read", arguments: '{"path": "é"}' },
  ]);
});

Deno.test("hermes: a block that is not JSON leaves the whole text as content, with no calls (as vLLM does)", () => {
  const text = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}\n</tool_call>';
  assert.deepEqual(hermesTools.parse(text, TOOLS), { content: text, calls: [] });
  assert.deepEqual(hermesTools.parse("no calls", TOOLS), { content: "no calls", calls: [] });
  // An unclosed last block still parses (the model stopped right after the JSON).
  assert.deepEqual(hermesTools.parse('<tool_call>\n{"name": "x", "arguments": {}}', TOOLS).calls, [
    { name: "x", arguments: "{}" },
  ]);
});

Deno.test("hermes: format is what Qwen3's template writes, and parses back", () => {
  const calls = [{ name: "bash", arguments: '{"command": "ls"}' }, { name: "bash", arguments: '{"command": "pwd"}' }];
  const text = hermesTools.format("Checking.", calls);
  assert.equal(
    text,
    'Checking.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "bash", "arguments": {"command": "pwd"}}\n</tool_call>',
  );
  assert.deepEqual(hermesTools.parse(text, []), { content: "Checking.\n", calls });
  assert.equal(hermesTools.format("", calls.slice(0, 1)).startsWith("<tool_call>"), true);
});

Deno.test("qwen3_coder: values converted by the schema, one newline trimmed each side, content before the call", () => {
  const text = "I will edit.\n\n<tool_call>\n<function=edit>\n<parameter=path>\n/a b.txt\n</parameter>\n" +
    "<parameter=line>\n12\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n<parameter=dry>\nTrue\n</parameter>\n" +
    '<parameter=tags>\n["x", 2]\n</parameter>\n<parameter=other>\n\n two lines\n\n</parameter>\n</function>\n</tool_call>';
  const r = qwen3CoderTools.parse(text, TOOLS);
  assert.equal(r.content, "I will edit.\n\n");
  assert.equal(r.calls.length, 1);
  assert.equal(r.calls[0].name, "edit");
  assert.deepEqual(JSON.parse(r.calls[0].arguments), {
    path: "/a b.txt",
    line: 12,
    ratio: 0.5,
    dry: true,
    tags: ["x", 2],
    other: "\n two lines\n",
  });
  assert.equal(r.calls[0].arguments.startsWith('{"path": "/a b.txt", "line": 12'), true);
});

Deno.test("qwen3_coder: a value that does not read as its type stays text; format parses back", () => {
  const r = qwen3CoderTools.parse(
    "<tool_call>\n<function=edit>\n<parameter=line>\nten\n</parameter>\n</function>",
    TOOLS,
  );
  assert.deepEqual(JSON.parse(r.calls[0].arguments), { line: "ten" });
  const calls = [{ name: "edit", arguments: '{"path": "a.txt", "line": 3}' }];
  const text = qwen3CoderTools.format("", calls);
  assert.equal(
    text,
    "<tool_call>\n<function=edit>\n<parameter=path>\na.txt\n</parameter>\n<parameter=line>\n3\n</parameter>\n</function>\n</tool_call>",
  );
  assert.deepEqual(qwen3CoderTools.parse(text, TOOLS), { content: null, calls });
  assert.deepEqual(qwen3CoderTools.parse("plain", TOOLS), { content: "plain", calls: [] });
});

Deno.test("reasoning: qwen3 and deepseek_r1 split at </think> and differ without one", () => {
  const t = "<think>\nhmm\n</think>\n\nAnswer";
  for (const p of [qwen3Reasoning, deepseekR1Reasoning]) {
    assert.deepEqual(p.split(t, {}), { reasoning: "\nhmm\n", content: "\n\nAnswer" }, p.name);
    assert.deepEqual(p.split("<think>\nx\n</think>", {}), { reasoning: "\nx\n", content: null }, p.name);
  }
  assert.deepEqual(deepseekR1Reasoning.split("still thinking", {}), { reasoning: "still thinking", content: null });
  assert.deepEqual(qwen3Reasoning.split("still thinking", {}), { reasoning: "still thinking", content: null });
  assert.deepEqual(qwen3Reasoning.split("Answer", { enable_thinking: false }), { reasoning: null, content: "Answer" });
  assert.deepEqual(qwen3Reasoning.split("plan<tool_call>{}</tool_call>", {}), {
    reasoning: "plan",
    content: "<tool_call>{}</tool_call>",
  });
});

Deno.test("registry: parsers by vLLM's flag names, with a one-line error naming the flag", () => {
  assert.deepEqual([...TOOL_PARSERS.keys()], ["hermes", "qwen3_coder"]);
  assert.equal(toolParser("hermes"), hermesTools);
  assert.equal(reasoningParser("qwen3"), qwen3Reasoning);
  assert.throws(
    () => toolParser("llama3_json"),
    /^Error: --tool-parser llama3_json: unknown \(known: hermes, qwen3_coder\)$/,
  );
  assert.throws(() => reasoningParser("x"), /--reasoning-parser x: unknown/);
  for (const p of TOOL_PARSERS.values()) assert.match(p.source, /^vllm-project\/vllm@[0-9a-f]{40}:vllm\//);
});
