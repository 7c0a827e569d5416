/** The stub's Gemini routes (gemini-cli): generateContent, streamGenerateContent?alt=sse, countTokens, errors. */
import assert from "node:assert/strict";
import { stubApp } from "../tests/stub_helpers.ts";
import { ScriptRunner, type Turn } from "../lib/script/script.ts";
import { assembleGeminiChunks, geminiMessages, geminiTools } from "./gemini_api.ts";

const TURNS: Turn[] = [
  { tool_calls: [{ name: "run_shell_command", arguments: { command: "ls -la" } }] },
  { content: "All done here, friend." },
];
const TOOLS = [{
  functionDeclarations: [
    { name: "run_shell_command", description: "run", parametersJsonSchema: { type: "object", properties: {} } },
    { name: "read_file", description: "read", parameters: { type: "OBJECT", properties: {} } },
  ],
}];
const GEN = "/v1beta/models/stub-model:generateContent";
const STREAM = "/v1beta/models/stub-model:streamGenerateContent?alt=sse";

const stub = (turns: Turn[] = TURNS) => stubApp(turns, "pgs-stub-gemini-");

const user = (text: string) => ({ role: "user", parts: [{ text }] });
const body = (name: string, extra: Record<string, unknown> = {}) => ({
  contents: [user(`task ${name}`)],
  systemInstruction: { role: "user", parts: [{ text: "You are Gemini CLI." }] },
  tools: TOOLS,
  generationConfig: { temperature: 0 },
  ...extra,
});

/** Parses an `alt=sse` body: `data: JSON` events only, no event names, no `[DONE]`. */
async function chunks(res: Response): Promise<Record<string, unknown>[]> {
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  return (await res.text()).split("\n\n").filter(Boolean).map((e) => {
    const m = e.match(/^data: (.*)$/);
    assert.ok(m, `malformed event ${e}`);
    return JSON.parse(m[1]);
  });
}

Deno.test("gemini generateContent: a functionCall part, then text, then Done.; no tools is a side request", async () => {
  const s = await stub();
  try {
    const side = await s.json("/v1beta/models/flash:generateContent", { contents: [user("route me")] });
    assert.deepEqual(side.candidates[0].content, { parts: [{ text: "Untitled" }], role: "model" });
    const a = await s.json(GEN, body("a"));
    assert.deepEqual(a.candidates, [{
      content: { parts: [{ functionCall: { name: "run_shell_command", args: { command: "ls -la" } } }], role: "model" },
      finishReason: "STOP",
      index: 0,
    }]);
    assert.equal(a.modelVersion, "stub-model");
    assert.match(a.responseId, /^[0-9a-f]{24}$/);
    const u = a.usageMetadata;
    assert.ok(u.promptTokenCount > 0 && u.candidatesTokenCount > 0);
    assert.equal(u.totalTokenCount, u.promptTokenCount + u.candidatesTokenCount);
    // The history grows by the model's call and the user's functionResponse: still the same conversation.
    const grown = [user("task a"), a.candidates[0].content, {
      role: "user",
      parts: [{ functionResponse: { name: "run_shell_command", response: { output: "x" } } }],
    }];
    const b = await s.json(GEN, body("a", { contents: grown }));
    assert.deepEqual(b.candidates[0].content, { parts: [{ text: "All done here, friend." }], role: "model" });
    assert.equal(b.candidates[0].finishReason, "STOP");
    assert.equal((await s.json(GEN, body("a"))).candidates[0].content.parts[0].text, "Done.");
    // Another first message is another conversation; the model named in the path is answered.
    const c = await s.json("/v1beta/models/gemini-x:generateContent", body("b"));
    assert.ok(c.candidates[0].content.parts[0].functionCall);
    assert.equal(c.modelVersion, "gemini-x");
    assert.equal((await s.lines()).length, 5);
  } finally {
    await s.done();
  }
});

Deno.test("gemini streamGenerateContent?alt=sse: chunks reassemble into the generateContent answer", async () => {
  for (const turn of [...TURNS, { content: "", reasoning: "hmm, let me think" }]) {
    const s1 = await stub([turn]);
    const s2 = await stub([turn]);
    try {
      const whole = await s1.json(GEN, body("x"));
      const cs = await chunks(await s2.post(STREAM, body("x")));
      assert.deepEqual(assembleGeminiChunks(cs), whole.candidates[0].content.parts);
      for (const c of cs.slice(0, -1)) {
        const cand = (c.candidates as Record<string, unknown>[])[0];
        assert.equal(cand.finishReason, undefined);
        assert.equal((c.usageMetadata as Record<string, unknown>).candidatesTokenCount, undefined);
      }
      const last = cs.at(-1)!;
      assert.equal((last.candidates as Record<string, unknown>[])[0].finishReason, "STOP");
      assert.deepEqual({ ...last, candidates: 0 }, { ...whole, candidates: 0 });
      if ("content" in turn && turn.content) assert.ok(cs.length > 1);
      // Without alt=sse, Google answers the same chunks as one JSON array.
      const arr = await s2.json("/v1beta/models/stub-model:streamGenerateContent", body("y"));
      assert.ok(Array.isArray(arr) && arr.length === cs.length);
    } finally {
      await s1.done();
      await s2.done();
    }
  }
});

Deno.test("gemini: bad bodies get Google-style 400s, unknown methods 404; all recorded", async () => {
  const s = await stub();
  try {
    for (const b of ["not json {", "[1]", JSON.stringify({ contents: [] })]) {
      const r = await s.post(GEN, b);
      assert.equal(r.status, 400);
      const err = (await r.json()).error;
      assert.equal(err.code, 400);
      assert.equal(err.status, "INVALID_ARGUMENT");
      assert.equal(typeof err.message, "string");
    }
    for (const path of ["/v1beta/models/stub-model:embedContent", "/v1beta/models/stub-model"]) {
      const r = await s.post(path, body("a"));
      assert.equal(r.status, 404);
      assert.deepEqual(Object.keys((await r.json()).error), ["code", "message", "status"]);
    }
    const count = await s.json("/v1beta/models/stub-model:countTokens", { contents: [user("hello")] });
    assert.ok(count.totalTokens > 0);
    const models = await (await s.app.request("/v1beta/models")).json();
    assert.equal(models.models[0].name, "models/stub-model");
    const one = await (await s.app.request("/v1beta/models/gemini-x")).json();
    assert.equal(one.name, "models/gemini-x");
    assert.equal((await s.app.request("/v1beta/models/m:generateContent")).status, 404);
    const lines = (await s.lines()).map((l) => JSON.parse(l));
    assert.deepEqual(lines.slice(0, 3), ["not json {", "[1]", { contents: [] }]);
    assert.equal(lines.length, 6);
  } finally {
    await s.done();
  }
});

Deno.test("gemini: scripted arguments that are not a JSON object are a clear 500", async () => {
  const s = await stub([{ tool_calls: [{ name: "bash", arguments: "not json" }] }]);
  try {
    const r = await s.post(GEN, body("a"));
    assert.equal(r.status, 500);
    const err = (await r.json()).error;
    assert.equal(err.status, "INTERNAL");
    assert.match(err.message, /turn 1.*not a JSON object/);
  } finally {
    await s.done();
  }
});

Deno.test("gemini: contents and functionDeclarations in chat form; history mode counts model turns", () => {
  const msgs = geminiMessages({
    systemInstruction: { parts: [{ text: "sys" }] },
    contents: [
      user("hi"),
      { role: "model", parts: [{ text: "ok", thought: true }, { functionCall: { name: "f", args: { a: 1 } } }] },
      { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "r" } } }, { text: "more" }] },
    ],
  });
  assert.deepEqual(msgs, [
    { role: "system", api: "gemini", content: "sys" },
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: null,
      reasoning_content: "ok",
      tool_calls: [{ id: null, type: "function", function: { name: "f", arguments: '{"a":1}' } }],
    },
    { role: "tool", tool_call_id: null, name: "f", content: '{"output":"r"}' },
    { role: "user", content: "more" },
  ]);
  assert.deepEqual(geminiTools(TOOLS).map((t) => (t.function as Record<string, unknown>).parameters), [
    { type: "object", properties: {} },
    { type: "OBJECT", properties: {} },
  ]);
  const runner = new ScriptRunner(TURNS, "history");
  assert.equal(runner.next({ messages: msgs, tools: [] }).content, "All done here, friend.");
});
