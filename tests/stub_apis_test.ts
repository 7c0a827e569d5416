/** The stub's OpenAI Responses (codex) and Anthropic Messages (claude-code) routes, answered from the script. */
import assert from "node:assert/strict";
import { stubApp } from "./stub_helpers.ts";
import type { Turn } from "../lib/script/script.ts";
import { assembleResponseEvents } from "../stub/responses_api.ts";
import { assembleMessageEvents } from "../stub/messages_api.ts";

const TURNS: Turn[] = [
  {
    tool_calls: [{ name: "shell", arguments: { command: ["ls", "-la"] } }, { name: "read", arguments: { path: "a" } }],
  },
  { content: "All done here, friend." },
];
const R_TOOLS = [{ type: "function", name: "shell", parameters: { type: "object", properties: {} } }];
const M_TOOLS = [{ name: "Bash", description: "run", input_schema: { type: "object", properties: {} } }];

const stub = (turns: Turn[] = TURNS) => stubApp(turns, "pgs-stub-apis-");

/** Parses a named-event SSE body: every event has `event: NAME` then `data: JSON` whose `type` is NAME. */
async function events(res: Response): Promise<Record<string, unknown>[]> {
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  return (await res.text()).split("\n\n").filter(Boolean).map((e) => {
    const m = e.match(/^event: (\S+)\ndata: (.*)$/);
    assert.ok(m, `malformed event ${e}`);
    const data = JSON.parse(m[2]);
    assert.equal(data.type, m[1]);
    return data;
  });
}

function rInput(name: string, extra: unknown[] = []) {
  return [{ type: "message", role: "user", content: [{ type: "input_text", text: `task ${name}` }] }, ...extra];
}
const rBody = (name: string, extra: Record<string, unknown> = {}) => ({
  model: "gpt-5",
  instructions: "You are codex.",
  input: rInput(name),
  tools: R_TOOLS,
  ...extra,
});
const mBody = (name: string, extra: Record<string, unknown> = {}) => ({
  model: "claude-x",
  max_tokens: 1000,
  system: [{ type: "text", text: "You are Claude Code." }],
  messages: [{ role: "user", content: [{ type: "text", text: `task ${name}` }] }],
  tools: M_TOOLS,
  ...extra,
});

Deno.test("responses: tool calls, then text, then Done.; side request does not advance", async () => {
  const s = await stub();
  try {
    const side = await s.json("/v1/responses", { model: "m", input: "title please" });
    assert.equal(side.output[0].content[0].text, "Untitled");
    const a = await s.json("/v1/responses", rBody("a"));
    assert.equal(a.object, "response");
    assert.equal(a.status, "completed");
    assert.equal(a.model, "gpt-5");
    assert.match(a.id, /^resp_[0-9a-f]{24}$/);
    assert.deepEqual(a.output.map((o: Record<string, unknown>) => [o.type, o.name, o.arguments]), [
      ["function_call", "shell", '{"command":["ls","-la"]}'],
      ["function_call", "read", '{"path":"a"}'],
    ]);
    assert.match(a.output[0].call_id, /^call_[0-9a-f]{24}$/);
    assert.match(a.output[0].id, /^fc_[0-9a-f]{24}$/);
    assert.notEqual(a.output[0].call_id, a.output[1].call_id);
    assert.ok(a.usage.total_tokens > 0);
    // The history grows (function_call + output items); the conversation is still the same one.
    const grown = rInput("a", [...a.output, {
      type: "function_call_output",
      call_id: a.output[0].call_id,
      output: "x",
    }]);
    const b = await s.json("/v1/responses", rBody("a", { input: grown }));
    assert.deepEqual(b.output, [{
      id: b.output[0].id,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "All done here, friend.", annotations: [] }],
    }]);
    assert.match(b.output[0].id, /^msg_/);
    const c = await s.json("/v1/responses", rBody("a"));
    assert.equal(c.output[0].content[0].text, "Done.");
    // previous_response_id continues the conversation of that response; an unknown one is a clear 400.
    const d = await s.json("/v1/responses", rBody("b"));
    const e = await s.json(
      "/v1/responses",
      rBody("z", { input: [{ type: "message", role: "user", content: "ok" }], previous_response_id: d.id }),
    );
    assert.equal(e.output[0].content[0].text, "All done here, friend.");
    const bad = await s.post("/v1/responses", rBody("b", { previous_response_id: "resp_nope" }));
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /resp_nope/);
  } finally {
    await s.done();
  }
});

Deno.test("messages: tool_use, then text, then Done.; side request does not advance", async () => {
  const s = await stub();
  try {
    const side = await s.json("/v1/messages", {
      model: "haiku",
      max_tokens: 10,
      messages: [{ role: "user", content: "title" }],
    });
    assert.deepEqual(side.content, [{ type: "text", text: "Untitled" }]);
    assert.equal(side.stop_reason, "end_turn");
    const a = await s.json("/v1/messages", mBody("a"));
    assert.equal(a.type, "message");
    assert.equal(a.role, "assistant");
    assert.equal(a.model, "claude-x");
    assert.match(a.id, /^msg_[0-9a-f]{24}$/);
    assert.equal(a.stop_reason, "tool_use");
    assert.deepEqual(a.content.map((b: Record<string, unknown>) => [b.type, b.name, b.input]), [
      ["tool_use", "shell", { command: ["ls", "-la"] }],
      ["tool_use", "read", { path: "a" }],
    ]);
    assert.match(a.content[0].id, /^toolu_[0-9a-f]{24}$/);
    assert.ok(a.usage.input_tokens > 0 && a.usage.output_tokens > 0);
    // claude-code moves cache_control markers between requests: still the same conversation.
    const marked = mBody("a").messages;
    (marked[0].content[0] as Record<string, unknown>).cache_control = { type: "ephemeral" };
    const history = [...marked, { role: "assistant", content: a.content }, {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: a.content[0].id, content: "x" }],
    }];
    const b = await s.json("/v1/messages", mBody("a", { messages: history }));
    assert.deepEqual(b.content, [{ type: "text", text: "All done here, friend." }]);
    assert.equal(b.stop_reason, "end_turn");
    assert.equal((await s.json("/v1/messages", mBody("a"))).content[0].text, "Done.");
    assert.equal((await s.json("/v1/messages", mBody("b"))).stop_reason, "tool_use");
  } finally {
    await s.done();
  }
});

Deno.test("messages: claude-code 2.1.332's shape (?beta=true, system-role messages) streams one conversation", async () => {
  // As recorded: the first request's second message is a system-role list with a cache marker, later a plain string;
  // claude-code inserts further system-role notes (a file changed on disk) after tool results.
  const s = await stub();
  try {
    const first = [
      {
        role: "user",
        content: [{ type: "text", text: "<system-reminder>\nAttribution\n</system-reminder>\n" }, {
          type: "text",
          text: "task a",
        }],
      },
      { role: "system", content: [{ type: "text", text: "# Environment", cache_control: { type: "ephemeral" } }] },
    ];
    const body = (messages: unknown[]) => mBody("a", { messages, stream: true, thinking: { type: "adaptive" } });
    const a = assembleMessageEvents(await events(await s.post("/v1/messages?beta=true", body(first))));
    assert.equal(a.stop_reason, "tool_use");
    const calls = a.content as Record<string, unknown>[];
    const history = [first[0], { role: "system", content: "# Environment" }, { role: "assistant", content: calls }, {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: calls[0].id, content: "x", cache_control: { type: "ephemeral" } }],
    }, { role: "system", content: "Note: a.py changed on disk since you last read it." }];
    const b = assembleMessageEvents(await events(await s.post("/v1/messages?beta=true", body(history))));
    assert.deepEqual(b.content, [{ type: "text", text: "All done here, friend." }]);
    assert.equal(b.stop_reason, "end_turn");
    assert.equal((await s.lines()).length, 2);
  } finally {
    await s.done();
  }
});

Deno.test("responses + messages: streamed events reassemble into the non-streaming answer", async () => {
  for (const turn of TURNS) {
    const s1 = await stub([turn]);
    const s2 = await stub([turn]);
    try {
      const whole = await s1.json("/v1/responses", rBody("x"));
      const evs = await events(await s2.post("/v1/responses", rBody("x", { stream: true })));
      assert.equal(evs[0].type, "response.created");
      assert.equal(evs.at(-1)!.type, "response.completed");
      assert.deepEqual(evs.map((e) => e.sequence_number), evs.map((_, i) => i));
      assert.deepEqual(assembleResponseEvents(evs), whole.output);
      const completed = evs.at(-1)!.response as Record<string, unknown>;
      // Usage differs only by the request's size (the streamed request carries `stream: true`).
      assert.equal((completed.usage as Record<string, number>).output_tokens, whole.usage.output_tokens);
      assert.deepEqual({ ...completed, created_at: 0, usage: 0 }, { ...whole, created_at: 0, usage: 0 });
      const types = new Set(evs.map((e) => e.type));
      for (const t of ["response.output_item.added", "response.output_item.done"]) assert.ok(types.has(t));
      if ("tool_calls" in turn) {
        assert.ok(types.has("response.function_call_arguments.delta"));
        assert.ok(types.has("response.function_call_arguments.done"));
      } else assert.ok(evs.filter((e) => e.type === "response.output_text.delta").length > 1);

      const mWhole = await s1.json("/v1/messages", mBody("x"));
      const mEvs = await events(await s2.post("/v1/messages", mBody("x", { stream: true })));
      assert.deepEqual(
        [mEvs[0].type, mEvs.at(-2)!.type, mEvs.at(-1)!.type],
        ["message_start", "message_delta", "message_stop"],
      );
      const assembled = assembleMessageEvents(mEvs);
      assert.equal((assembled.usage as Record<string, number>).output_tokens, mWhole.usage.output_tokens);
      assert.deepEqual({ ...assembled, usage: 0 }, { ...mWhole, usage: 0 });
      const deltaType = "tool_calls" in turn ? "input_json_delta" : "text_delta";
      const deltas = mEvs.filter((e) => e.type === "content_block_delta");
      assert.ok(deltas.length > 1);
      for (const d of deltas) assert.equal((d.delta as Record<string, unknown>).type, deltaType);
    } finally {
      await s1.done();
      await s2.done();
    }
  }
});

Deno.test("responses + messages: a malformed body is recorded and answered 400 in that API's error shape", async () => {
  const s = await stub();
  try {
    for (const body of ["not json {", "[1]", JSON.stringify({ model: "m", input: [] })]) {
      const r = await s.post("/v1/responses", body);
      assert.equal(r.status, 400);
      const err = (await r.json()).error;
      assert.equal(err.type, "invalid_request_error");
      assert.equal(typeof err.message, "string");
    }
    for (const body of ["{oops", JSON.stringify({ model: "m", max_tokens: 1, messages: [] })]) {
      const m = await s.post("/v1/messages", body);
      assert.equal(m.status, 400);
      const j = await m.json();
      assert.equal(j.type, "error");
      assert.equal(j.error.type, "invalid_request_error");
    }
    assert.deepEqual((await s.lines()).map((l) => JSON.parse(l)), [
      "not json {",
      "[1]",
      { model: "m", input: [] },
      "{oops",
      { model: "m", max_tokens: 1, messages: [] },
    ]);
  } finally {
    await s.done();
  }
});

Deno.test("messages: scripted arguments that are not a JSON object get a clear 500, recorded", async () => {
  const s = await stub([{ tool_calls: [{ name: "bash", arguments: "not json" }] }]);
  try {
    const r = await s.post("/v1/messages", mBody("a"));
    assert.equal(r.status, 500);
    const j = await r.json();
    assert.equal(j.type, "error");
    assert.match(j.error.message, /turn 1.*not a JSON object/);
    assert.equal((await s.lines()).length, 1);
  } finally {
    await s.done();
  }
});

Deno.test("history advancing: Responses and Messages count the request's assistant turns, not its key", async () => {
  const s = await stubApp(TURNS, "pgs-stub-apis-", "history");
  try {
    // Two identical conversations at once: each request gets the turn its own history has reached.
    for (let i = 0; i < 2; i++) {
      const a = await s.json("/v1/messages", mBody("a"));
      assert.equal(a.stop_reason, "tool_use", `conversation ${i}`);
    }
    const first = await s.json("/v1/messages", mBody("a"));
    const history = [...mBody("a").messages, { role: "assistant", content: first.content }, {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: first.content[0].id, content: "x" }],
    }];
    for (let i = 0; i < 2; i++) {
      const b = await s.json("/v1/messages", mBody("a", { messages: history }));
      assert.deepEqual(b.content, [{ type: "text", text: "All done here, friend." }], `conversation ${i}`);
    }
    const r1 = await s.json("/v1/responses", rBody("a"));
    assert.equal((await s.json("/v1/responses", rBody("a"))).output[0].type, "function_call");
    // Both calls of the turn and their outputs are one assistant turn.
    const grown = rInput("a", [
      ...r1.output,
      ...r1.output.map((o: Record<string, unknown>) => ({
        type: "function_call_output",
        call_id: o.call_id,
        output: "x",
      })),
    ]);
    assert.equal((await s.json("/v1/responses", rBody("a", { input: grown }))).output[0].type, "message");
    // previous_response_id: the turns before it count.
    const next = rBody("z", { input: [{ type: "message", role: "user", content: "ok" }], previous_response_id: r1.id });
    assert.equal((await s.json("/v1/responses", next)).output[0].content[0].text, "All done here, friend.");
  } finally {
    await s.done();
  }
});
