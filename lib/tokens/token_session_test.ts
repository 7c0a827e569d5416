import assert from "node:assert/strict";
import { qwen3 } from "../../tests/qwen3_model.ts";
import { templateMessages } from "./chat_messages.ts";
import { hermesTools } from "./parsers/hermes.ts";
import { qwen3Reasoning } from "./parsers/reasoning.ts";
import { TokenSession } from "./token_session.ts";
import { pyJson } from "./py_json.ts";

const TOOLS = [{
  type: "function",
  function: {
    name: "bash",
    description: "Run a command",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
}];

type Msg = Record<string, unknown>;

/** Plays `turns` (completion texts) through a session the way a harness would keep its history. */
async function play(turns: string[], opts: { kwargs?: Record<string, unknown>; stop?: boolean[] } = {}) {
  const model = await qwen3();
  const eos = model.tokenId("<|im_end|>")!;
  const s = new TokenSession(model, {
    tools: TOOLS,
    kwargs: opts.kwargs,
    reasoningParser: qwen3Reasoning,
    toolParser: hermesTools,
  });
  const messages: Msg[] = [{ role: "system", content: "You are terse." }, { role: "user", content: "Count lines." }];
  const prompts = [s.start(messages)];
  const completions: number[][] = [];
  const deltas: number[][] = [];
  for (const [i, text] of turns.entries()) {
    const ids = [...model.encode(text), ...(opts.stop?.[i] === false ? [] : [eos])];
    completions.push(ids);
    const d = s.accept(ids);
    messages.push({
      role: "assistant",
      content: d.content,
      ...(d.reasoning !== null ? { reasoning_content: d.reasoning } : {}),
      ...(d.calls.length
        ? { tool_calls: d.calls.map((c, j) => ({ id: `c${i}_${j}`, type: "function", function: c })) }
        : {}),
    });
    if (d.calls.length) messages.push({ role: "tool", tool_call_id: `c${i}_0`, content: `output ${i}` });
    else messages.push({ role: "user", content: "Go on." });
    const delta = s.next(messages);
    deltas.push(delta.ids);
    prompts.push(s.prompt());
  }
  return { model, s, messages, prompts, completions, deltas };
}

// Arguments as the template writes them (Python's spacing); compact JSON would be re-serialised by a chat endpoint.
const call = (command: string) => hermesTools.format("", [{ name: "bash", arguments: pyJson({ command }) }]);

Deno.test("token session: the first prompt is encode(render(messages, tools)) and decodes back", async () => {
  const { model, prompts, messages } = await play([]);
  const text = model.render(templateMessages(messages), { tools: TOOLS });
  assert.deepEqual(prompts[0], model.encode(text));
  assert.equal(model.decode(prompts[0]), text);
  assert.ok(text.endsWith("<|im_start|>assistant\n"));
});

Deno.test("token session: every prompt is the last prompt plus its completion plus the delta", async () => {
  const { prompts, completions, deltas, s } = await play([call("ls"), call("wc -l a.txt"), "It has 3 lines."]);
  for (let t = 0; t + 1 < prompts.length; t++) {
    assert.deepEqual(prompts[t + 1], [...prompts[t], ...completions[t], ...deltas[t]], `turn ${t}`);
  }
  // The mask is 1 exactly on sampled tokens.
  const expected = [
    ...prompts[0].map(() => 0),
    ...completions.flatMap((c, t) => [...c.map(() => 1), ...deltas[t].map(() => 0)]),
  ];
  assert.deepEqual([...s.mask], expected);
  assert.equal(s.mask.length, s.ids.length);
});

Deno.test("token session: without rewrites the sequence is exactly the template's rendering of the history", async () => {
  const { model, s, messages } = await play([call("ls"), call("cat a.txt")]);
  assert.deepEqual(s.rewrites, []);
  assert.equal(model.decode([...s.ids]), model.render(templateMessages(messages), { tools: TOOLS }));
  assert.deepEqual([...s.ids], model.encode(model.render(templateMessages(messages), { tools: TOOLS })));
});

Deno.test("token session: Qwen3 dropping old reasoning at a new user query is a template_rewrite", async () => {
  const think = (r: string, rest: string) => qwen3Reasoning.format(r) + rest;
  const { s, prompts, completions, deltas } = await play([
    think("look first", call("ls")), // content "\n\n" before the call: the template writes one newline more
    call("wc -l a.txt"),
    think("done", "3 lines."), // then "Go on.": a new query, so every earlier reasoning is dropped
    think("", hermesTools.format("", [{ name: "bash", arguments: '{"command":"ls"}' }])), // compact JSON, re-spaced
    think("", "Still 3."), // after another "Go on.": turn 4's empty think block is dropped too
  ]);
  assert.deepEqual(s.rewrites, [1, 3, 4, 5]);
  for (let t = 0; t + 1 < prompts.length; t++) {
    assert.deepEqual(prompts[t + 1], [...prompts[t], ...completions[t], ...deltas[t]], `sampled tokens win, turn ${t}`);
  }
});

Deno.test("token session: a completion cut at the length limit gets the template's end of turn, unmasked", async () => {
  const { model, deltas, s } = await play(["I am still wri"], { stop: [false] });
  assert.ok(model.decode(deltas[0]).startsWith("<|im_end|>\n<|im_start|>user\nGo on."));
  assert.equal(s.mask.filter((b) => b === 1).length, model.encode("I am still wri").length);
});

Deno.test("token session: enable_thinking false ends every prompt with an empty think block", async () => {
  const { model, prompts } = await play([call("ls")], { kwargs: { enable_thinking: false } });
  for (const p of prompts) assert.ok(model.decode(p).endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
});

Deno.test("token session: a reply that does not parse is content, as a chat endpoint returns it", async () => {
  const model = await qwen3();
  const s = new TokenSession(model, { tools: TOOLS, reasoningParser: qwen3Reasoning, toolParser: hermesTools });
  s.start([{ role: "user", content: "hi" }]);
  const bad = '<think>\n\n</think>\n\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}\n</tool_call>';
  const d = s.accept([...model.encode(bad), model.tokenId("<|im_end|>")!]);
  assert.deepEqual(d.calls, []);
  assert.equal(d.content, '\n\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}\n</tool_call>');
  assert.equal(d.finishReason, "stop");
});
