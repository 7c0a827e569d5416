/** The recording stub (`pgs harness serve`): script rules, OpenAI shapes, SSE, exact recording, and the CLI. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { createStubApp } from "../stub/app.ts";
import { Recorder } from "../stub/recorder.ts";
import { parseScript, ScriptRunner, type Turn } from "../lib/script/script.ts";
import { assembleChunks } from "../stub/sse.ts";

const ROOT = resolve(import.meta.dirname!, "..");
const TOOLS = [{ type: "function", function: { name: "bash", parameters: { type: "object", properties: {} } } }];
const TURNS: Turn[] = [
  { tool_calls: [{ name: "bash", arguments: { command: "ls -la" } }, { name: "read", arguments: { path: "a.txt" } }] },
  { content: "All done here." },
];

async function stub(turns: Turn[] = TURNS) {
  const dir = await Deno.makeTempDir({ prefix: "pgs-stub-" });
  const out = join(dir, "requests.jsonl");
  const recorder = await Recorder.open(out);
  const app = createStubApp({ script: new ScriptRunner(turns), recorder, model: "stub-model" });
  const post = (body: string | Record<string, unknown>, path = "/v1/chat/completions") =>
    app.request(path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
  const chat = async (body: Record<string, unknown>) => {
    const res = await post(body);
    assert.equal(res.status, 200);
    return await res.json();
  };
  const lines = async () => (await Deno.readTextFile(out)).split("\n").slice(0, -1);
  const done = async () => {
    await recorder.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { app, post, chat, out, lines, done };
}

function convo(name: string, extra: Record<string, unknown>[] = []) {
  return [{ role: "system", content: "sys" }, { role: "user", content: `task ${name}` }, ...extra];
}

async function sse(res: Response): Promise<{ chunks: Record<string, unknown>[]; raw: string[] }> {
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const raw = (await res.text()).split("\n\n").filter(Boolean);
  assert.equal(raw.at(-1), "data: [DONE]");
  for (const e of raw) assert.match(e, /^data: /);
  return { chunks: raw.slice(0, -1).map((e) => JSON.parse(e.slice(6))), raw };
}

Deno.test("stub: non-streaming tool calls, then text, then Done.", async () => {
  const s = await stub();
  try {
    const a = await s.chat({ model: "m1", messages: convo("a"), tools: TOOLS });
    assert.equal(a.object, "chat.completion");
    assert.equal(a.model, "m1");
    assert.equal(a.choices[0].finish_reason, "tool_calls");
    const m = a.choices[0].message;
    assert.equal(m.role, "assistant");
    assert.equal(m.content, null);
    assert.deepEqual(m.tool_calls.map((c: { type: string; function: unknown }) => [c.type, c.function]), [
      ["function", { name: "bash", arguments: '{"command":"ls -la"}' }],
      ["function", { name: "read", arguments: '{"path":"a.txt"}' }],
    ]);
    assert.match(m.tool_calls[0].id, /^call_[0-9a-f]{24}$/);
    assert.ok(a.usage.total_tokens > 0);
    const b = await s.chat({ messages: convo("a", [m]), tools: TOOLS });
    assert.equal(b.model, "stub-model");
    assert.equal(b.choices[0].finish_reason, "stop");
    assert.equal(b.choices[0].message.content, "All done here.");
    assert.equal(b.choices[0].message.tool_calls, undefined);
    const c = await s.chat({ messages: convo("a"), tools: TOOLS });
    assert.equal(c.choices[0].message.content, "Done.");
  } finally {
    await s.done();
  }
});

Deno.test("stub: the streamed chunks assemble into the non-streaming message", async () => {
  for (const turn of TURNS) {
    const s1 = await stub([turn]);
    const s2 = await stub([turn]);
    try {
      const whole = await s1.chat({ messages: convo("x"), tools: TOOLS });
      const res = await s2.post({ messages: convo("x"), tools: TOOLS, stream: true });
      const { chunks } = await sse(res);
      assert.deepEqual(assembleChunks(chunks), whole.choices[0].message);
      const first = chunks[0] as { choices: { delta: Record<string, unknown> }[] };
      assert.equal(first.choices[0].delta.role, "assistant");
      const last = chunks.at(-1) as { choices: { delta: unknown; finish_reason: string }[] };
      assert.deepEqual(last.choices[0].delta, {});
      assert.equal(last.choices[0].finish_reason, whole.choices[0].finish_reason);
      for (const c of chunks) {
        assert.equal(c.object, "chat.completion.chunk");
        assert.equal(c.id, whole.id);
        assert.equal("usage" in c, false);
      }
      if ("tool_calls" in turn) {
        // Each call opens with index, id, type and name (empty arguments), then argument pieces with index only.
        const deltas = chunks.slice(1, -1).map((c) =>
          (c as { choices: { delta: { tool_calls: unknown[] } }[] })
            .choices[0].delta.tool_calls[0] as Record<string, unknown>
        );
        const heads = deltas.filter((d) => "id" in d);
        assert.equal(heads.length, 2);
        for (const h of heads) assert.deepEqual(Object.keys(h), ["index", "id", "type", "function"]);
        assert.ok(deltas.length > 3, "arguments come in pieces");
      } else {
        assert.ok(chunks.length > 4, "content comes in pieces");
      }
    } finally {
      await s1.done();
      await s2.done();
    }
  }
});

Deno.test("stub: stream_options.include_usage adds usage: null to chunks and a final usage chunk", async () => {
  const s = await stub();
  try {
    const body = { messages: convo("u"), tools: TOOLS, stream: true, stream_options: { include_usage: true } };
    const { chunks } = await sse(await s.post(body));
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    const usage = last.usage as Record<string, number>;
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    for (const c of chunks.slice(0, -1)) assert.equal(c.usage, null);
    assert.equal((chunks.at(-2)!.choices as { finish_reason: string }[])[0].finish_reason, "tool_calls");
  } finally {
    await s.done();
  }
});

Deno.test("stub: turns advance per conversation, by request count, independently", async () => {
  const s = await stub();
  const kind = (r: { choices: { message: { content: string | null } }[] }) => r.choices[0].message.content ?? "tools";
  try {
    assert.equal(kind(await s.chat({ messages: convo("a"), tools: TOOLS })), "tools");
    assert.equal(kind(await s.chat({ messages: convo("b"), tools: TOOLS })), "tools");
    // Conversation a dropped its rejected turn: the history is as short as before, yet the script advances.
    assert.equal(kind(await s.chat({ messages: convo("a"), tools: TOOLS })), "All done here.");
    assert.equal(
      kind(await s.chat({ messages: convo("b", [{ role: "user", content: "x" }]), tools: TOOLS })),
      "All done here.",
    );
    assert.equal(kind(await s.chat({ messages: convo("a"), tools: TOOLS })), "Done.");
    assert.equal(kind(await s.chat({ messages: convo("c"), tools: TOOLS })), "tools");
  } finally {
    await s.done();
  }
});

Deno.test("stub: a side request without tools gets a short text and does not advance", async () => {
  const s = await stub();
  try {
    const side = await s.chat({ messages: convo("a") });
    assert.equal(side.choices[0].message.content, "Untitled");
    assert.equal((await s.chat({ messages: convo("a"), tools: [] })).choices[0].message.content, "Untitled");
    const first = await s.chat({ messages: convo("a"), tools: TOOLS });
    assert.equal(first.choices[0].finish_reason, "tool_calls");
  } finally {
    await s.done();
  }
});

Deno.test("stub: tool-call ids are stable across re-runs and unique across turns and conversations", async () => {
  const turns: Turn[] = [TURNS[0], TURNS[0], TURNS[0]];
  const ids = async () => {
    const s = await stub(turns);
    try {
      const out: string[] = [];
      for (const name of ["a", "b"]) {
        for (let i = 0; i < 3; i++) {
          const r = await s.chat({ messages: convo(name), tools: TOOLS });
          out.push(...r.choices[0].message.tool_calls.map((c: { id: string }) => c.id));
        }
      }
      return out;
    } finally {
      await s.done();
    }
  };
  const first = await ids();
  assert.equal(new Set(first).size, first.length);
  assert.deepEqual(await ids(), first);
});

Deno.test("stub: a non-JSON body is recorded and answered 400 in OpenAI's error shape", async () => {
  const s = await stub();
  try {
    for (const body of ["not json {", "[1,2]", ""]) {
      const res = await s.post(body);
      assert.equal(res.status, 400);
      const err = (await res.json()).error;
      assert.equal(err.type, "invalid_request_error");
      assert.equal(err.param, null);
      assert.equal(err.code, null);
      assert.equal(typeof err.message, "string");
    }
    assert.deepEqual((await s.lines()).map((l) => JSON.parse(l)), ["not json {", "[1,2]", ""]);
  } finally {
    await s.done();
  }
});

Deno.test("stub: bodies are recorded byte for byte; a multi-line body as a JSON string", async () => {
  const s = await stub();
  try {
    const odd = `{ "messages" :[ {"role":"user","content":"héllo — 𝄞 \\u00e9\\n"} ,{"role":"user" ,"content":"ok"}],` +
      `"tools":${JSON.stringify(TOOLS)}   ,"x":1.50e2 }`;
    const multi = `{"messages":[{"role":"user","content":"a"}],\n  "tools":[]\n}`;
    assert.equal((await s.post(odd)).status, 200);
    assert.equal((await s.post(multi)).status, 200);
    const bytes = await Deno.readFile(s.out);
    const expected = new TextEncoder().encode(`${odd}\n${JSON.stringify(multi)}\n`);
    assert.deepEqual(bytes, expected);
  } finally {
    await s.done();
  }
});

Deno.test("stub: /v1/models; unknown routes are recorded and answered 404", async () => {
  const s = await stub();
  try {
    const models = await (await s.app.request("/v1/models")).json();
    assert.deepEqual(models.data.map((m: { id: string }) => m.id), ["stub-model"]);
    const r = await s.post({ model: "gpt", input: "hi" }, "/v1/responses");
    assert.equal(r.status, 200, "the Responses API is answered (tests/stub_apis_test.ts)");
    const m = await s.post({ model: "claude", messages: [] }, "/v1/messages");
    assert.equal(m.status, 400, "an empty Messages conversation is refused in Anthropic's shape");
    assert.equal((await m.json()).type, "error");
    const other = await s.post({ a: 1 }, "/v1/embeddings");
    assert.equal(other.status, 404);
    assert.deepEqual((await s.lines()).map((l) => JSON.parse(l)), [{ model: "gpt", input: "hi" }, {
      model: "claude",
      messages: [],
    }, { a: 1 }]);
  } finally {
    await s.done();
  }
});

Deno.test("stub: 200 concurrent requests, many conversations: every line whole, every reply right", async () => {
  const s = await stub();
  try {
    const pad = "x".repeat(20_000);
    const results = await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) => s.post({ messages: convo(`c${i % 50}`), tools: TOOLS, stream: i % 2 === 0, pad, i }),
      ),
    );
    for (const r of results) {
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    const lines = await s.lines();
    assert.equal(lines.length, 200);
    const seen = lines.map((l) => JSON.parse(l).i as number).sort((a, b) => a - b);
    assert.deepEqual(seen, Array.from({ length: 200 }, (_, i) => i));
    // 50 conversations, 4 requests each: 2 turns, then Done. twice.
    const last = await s.chat({ messages: convo("c0"), tools: TOOLS });
    assert.equal(last.choices[0].message.content, "Done.");
  } finally {
    await s.done();
  }
});

Deno.test("stub: parseScript names the bad turn", () => {
  assert.equal(parseScript(JSON.stringify(TURNS)).length, 2);
  assert.throws(() => parseScript("{}"), /list of turns/);
  assert.throws(
    () => parseScript('[{"content":"a"},{"tool_calls":[{"arguments":{}}]}]'),
    /turn 2: tool_calls\[0\]: name/,
  );
  assert.throws(() => parseScript('[{"content":"a","tool_calls":[]}]'), /turn 1: expected exactly one/);
});

Deno.test("cli: pgs harness serve answers on a free loopback port and records the request", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs-serve-" });
  const script = join(dir, "turns.json");
  const out = join(dir, "requests.jsonl");
  await Deno.writeTextFile(script, JSON.stringify(TURNS));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      join(ROOT, "main.ts"),
      "harness",
      "serve",
      "--script",
      script,
      "--out",
      out,
      "--port",
      "0",
      "--model",
      "cli-model",
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let log = "";
    let url: string | undefined;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`serve exited early: ${log}`);
      log += value;
      url = log.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/)?.[1];
    }
    const body = JSON.stringify({ model: "m", messages: convo("cli"), tools: TOOLS });
    const res = await fetch(`${url}/v1/chat/completions`, { method: "POST", body });
    const json = await res.json();
    assert.equal(json.choices[0].message.tool_calls[0].function.name, "bash");
    const models = await (await fetch(`${url}/v1/models`)).json();
    assert.equal(models.data[0].id, "cli-model");
    assert.equal(await Deno.readTextFile(out), `${body}\n`);
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    while (!(await reader.read()).done);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await child.status;
    await reader.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: harness serve usage errors", async () => {
  const run = async (args: string[]) => {
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), "harness", "serve", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: o.code, stderr: new TextDecoder().decode(o.stderr) };
  };
  const a = await run(["--out", "x.jsonl"]);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /^pgs: harness serve: --script is required\n$/);
  // Flags are checked before any file is read.
  const b = await run(["--script", "/nonexistent/t.json", "--out", "x", "--port", "70000"]);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /^pgs: harness serve: --port must be an integer from 0 to 65535, got "70000"\n$/);
  const c = await run(["--script", "/nonexistent/t.json", "--out", "x"]);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /^pgs: harness serve: cannot read \/nonexistent\/t.json/);
});

Deno.test("script: {$from_request} arguments take group 1 of the regex's last match in the request", async () => {
  const { fromRequest } = await import("../lib/script/script.ts");
  const req = '{"input":[{"output":"Process running with session ID 123"},{"output":"session ID 4567"}]}';
  assert.deepEqual(fromRequest({ session_id: { $from_request: "session ID (\\d+)" }, chars: "" }, req), {
    session_id: 4567,
    chars: "",
  });
  assert.deepEqual(fromRequest({ a: [{ $from_request: "word (\\w+)" }] }, "a word here"), { a: ["here"] });
  assert.deepEqual(fromRequest({ x: { $from_request: "absent (\\d+)" } }, req), {
    x: { $from_request: "absent (\\d+)" },
  });
});
