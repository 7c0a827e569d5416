/**
 * The stub as a token server, and loading a model folder: /v1/completions and /generate answer token prompts in the
 * model's own format with the turn found from the prompt, chat completions report the template's real token ids,
 * and a bad --tokenizer or request is a one-line error naming the folder, file or field.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createStubApp } from "../stub/app.ts";
import { StubTokens } from "../stub/token_api.ts";
import { Recorder } from "../stub/recorder.ts";
import { ScriptRunner, type Turn } from "../lib/script/script.ts";
import { findInHubCache } from "../lib/tokens/hf_cache.ts";
import { loadTokenModel } from "../lib/tokens/model.ts";
import { templateMessages } from "../lib/tokens/chat_messages.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { qwen3CoderTools } from "../lib/tokens/parsers/qwen3_coder.ts";
import { qwen3Reasoning } from "../lib/tokens/parsers/reasoning.ts";
import { qwen3, qwen3Dir } from "./qwen3_model.ts";

const TURNS: Turn[] = [
  { reasoning: "Look first.", tool_calls: [{ name: "bash", arguments: { command: "ls" } }] },
  { content: "Answer: 35" },
];

async function app(opts: { toolParser?: typeof hermesTools; tokens?: boolean } = {}) {
  const model = await qwen3();
  const out = await Deno.makeTempFile();
  const recorder = await Recorder.open(out);
  const tokens = opts.tokens === false
    ? undefined
    : new StubTokens({ model, toolParser: opts.toolParser ?? hermesTools, reasoningParser: qwen3Reasoning });
  const a = createStubApp({ script: new ScriptRunner(TURNS), recorder, model: "m", tokens });
  const post = async (path: string, body: unknown) => {
    const res = await a.request(path, { method: "POST", body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  return { model, post, close: () => recorder.close().then(() => Deno.remove(out)) };
}

const MESSAGES = [{ role: "system", content: "Be brief." }, { role: "user", content: "Count." }];
const TOOLS = [{ type: "function", function: { name: "bash", parameters: { type: "object", properties: {} } } }];

Deno.test("stub /v1/completions: the turn from the prompt, in hermes format, with vLLM's shape", async () => {
  const { model, post, close } = await app();
  try {
    const prompt = model.encode(model.render(MESSAGES, { tools: TOOLS }));
    const r = await post("/v1/completions", { prompt, max_tokens: 500, logprobs: 0, return_token_ids: true });
    assert.equal(r.status, 200);
    const c = r.body.choices[0];
    assert.equal(
      model.decode(c.token_ids),
      '<think>\nLook first.\n</think>\n\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call><|im_end|>',
    );
    assert.deepEqual(c.prompt_token_ids, prompt);
    assert.equal(c.finish_reason, "stop");
    assert.equal(c.logprobs.token_logprobs.length, c.token_ids.length);
    assert.equal(c.text, model.decode(c.token_ids, true));
    // The next prompt holds one assistant turn: the second scripted turn answers it.
    const next = [
      ...prompt,
      ...c.token_ids,
      ...model.encode("\n<|im_start|>user\n<tool_response>\nx\n</tool_response><|im_end|>\n<|im_start|>assistant\n"),
    ];
    const r2 = await post("/v1/completions", { prompt: next, max_tokens: 500 });
    assert.equal(r2.body.choices[0].text, "<think>\n\n</think>\n\nAnswer: 35");
    // vLLM's default max_tokens is 16: a request without one is cut there.
    const cut = await post("/v1/completions", { prompt });
    assert.deepEqual([cut.body.choices[0].finish_reason, cut.body.usage.completion_tokens], ["length", 16]);
    assert.equal(cut.body.choices[0].token_ids, undefined, "token ids only with return_token_ids");
  } finally {
    await close();
  }
});

Deno.test("stub /generate: SGLang's shape; qwen3_coder writes XML calls", async () => {
  const { model, post, close } = await app({ toolParser: qwen3CoderTools });
  try {
    const input_ids = model.encode(model.render(MESSAGES, { tools: TOOLS }));
    const r = await post("/generate", { input_ids, sampling_params: { max_new_tokens: 500 }, return_logprob: true });
    assert.equal(r.status, 200);
    assert.equal(r.body.meta_info.finish_reason.type, "stop");
    assert.equal(r.body.meta_info.finish_reason.matched, model.tokenId("<|im_end|>"));
    assert.equal(r.body.meta_info.output_token_logprobs.length, r.body.output_ids.length);
    assert.equal(r.body.meta_info.output_token_logprobs[0][1], r.body.output_ids[0]);
    assert.ok(r.body.text.includes("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>"), r.body.text);
    const cut = await post("/generate", { input_ids, sampling_params: { max_new_tokens: 3 } });
    assert.deepEqual(cut.body.meta_info.finish_reason, { type: "length", length: 3 });
  } finally {
    await close();
  }
});

Deno.test("stub chat completions with a tokenizer: the template's real prompt ids and the parsed message", async () => {
  const { model, post, close } = await app();
  try {
    const r = await post("/v1/chat/completions", { messages: MESSAGES, tools: TOOLS, return_token_ids: true });
    assert.deepEqual(r.body.prompt_token_ids, model.encode(model.render(templateMessages(MESSAGES), { tools: TOOLS })));
    const m = r.body.choices[0].message;
    assert.equal(m.reasoning_content, "\nLook first.\n");
    assert.equal(m.content, "\n\n", "vLLM's hermes parser keeps the text before the call");
    assert.equal(m.tool_calls[0].function.arguments, '{"command": "ls"}');
    assert.equal(r.body.choices[0].finish_reason, "tool_calls");
  } finally {
    await close();
  }
});

Deno.test("stub token routes: bad prompts and a stub without --tokenizer are clear 400s", async () => {
  const { post, close } = await app();
  try {
    const bad = await post("/v1/completions", { prompt: [1, -2] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^prompt must be a list of token ids/);
    const bad2 = await post("/generate", { input_ids: { a: 1 } });
    assert.match(bad2.body.error.message, /^input_ids must be a list of token ids/);
  } finally {
    await close();
  }
  const plain = await app({ tokens: false });
  try {
    const r = await plain.post("/v1/completions", { prompt: [1] });
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /needs --tokenizer DIR/);
  } finally {
    await plain.close();
  }
});

Deno.test("--tokenizer: missing folders and files, a hub id not in the cache, a cached snapshot", async () => {
  await assert.rejects(loadTokenModel("/nonexistent/pgs-model"), /^Error: \/nonexistent\/pgs-model: no such folder$/);
  await assert.rejects(
    loadTokenModel("pgs-org/not-cached"),
    /not in the local Hugging Face cache \(nothing is downloaded\)/,
  );
  const empty = await Deno.makeTempDir();
  try {
    await assert.rejects(loadTokenModel(empty), new RegExp(`${join(empty, "tokenizer.json")}: missing`));
    await Deno.writeTextFile(join(empty, "tokenizer.json"), "{not json");
    await assert.rejects(loadTokenModel(empty), /tokenizer\.json: not JSON/);
    await Deno.copyFile(join(await qwen3Dir(), "tokenizer.json"), join(empty, "tokenizer.json"));
    await Deno.writeTextFile(join(empty, "tokenizer_config.json"), JSON.stringify({ eos_token: "<|im_end|>" }));
    await assert.rejects(loadTokenModel(empty), /no chat template/);
    // chat_template.jinja is enough.
    await Deno.writeTextFile(join(empty, "chat_template.jinja"), "{% for m in messages %}{{ m.content }}{% endfor %}");
    const m = await loadTokenModel(empty);
    assert.equal(m.render([{ role: "user", content: "hi" }]), "hi");
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
  // The HF cache layout: models--org--name/refs/main names a snapshot.
  const cache = await Deno.makeTempDir();
  try {
    const snap = join(cache, "models--Qwen--Qwen3-8B", "snapshots", "abc123");
    await Deno.mkdir(snap, { recursive: true });
    await Deno.mkdir(join(cache, "models--Qwen--Qwen3-8B", "refs"));
    await Deno.writeTextFile(join(cache, "models--Qwen--Qwen3-8B", "refs", "main"), "abc123\n");
    assert.equal(await findInHubCache("Qwen/Qwen3-8B", [cache]), snap);
    assert.equal(await findInHubCache("Qwen/Qwen3-8B@abc123", [cache]), snap);
    assert.equal(await findInHubCache("Qwen/Other", [cache]), undefined);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});
