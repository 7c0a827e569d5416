/**
 * `pgs env serve` in token mode (Qwen3's real tokenizer): creating an episode gives prompt_token_ids, a step takes the
 * sampled completion's ids and gives the delta to append, finish gives the sequence and its loss mask; the Python
 * client in examples/ drives it against the stub's vLLM and SGLang token endpoints, never tokenising.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEnvServer } from "../lib/env/server_app.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { templateMessages } from "../lib/tokens/chat_messages.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { qwen3Reasoning } from "../lib/tokens/parsers/reasoning.ts";
import { startStub } from "../stub/server.ts";
import { StubTokens } from "../stub/token_api.ts";
import { ScriptRunner } from "../lib/script/script.ts";
import { dockerTest, requireDocker } from "./docker_helpers.ts";
import { ROOT } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { qwen3 } from "./qwen3_model.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();
const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const TURNS = [
  {
    reasoning: "Count the level field.",
    tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }],
  },
  { content: "Answer: 35" },
];

async function tokenServer() {
  const model = await qwen3();
  const env = new HarborEnv({ profile: "pi", runtime: requireDocker() });
  return createEnvServer({
    env,
    tokens: { tokenizer: model, toolParser: hermesTools, reasoningParser: qwen3Reasoning },
  });
}

dockerTest("env serve token mode over HTTP: prompt ids, completion ids in, the delta out, mask at finish", async () => {
  const model = await qwen3();
  const s = await tokenServer();
  const post = async (path: string, body: unknown) => {
    const res = await s.app.fetch(new Request(`http://pgs${path}`, { method: "POST", body: JSON.stringify(body) }));
    return { status: res.status, body: await res.json() };
  };
  // The stub writes each scripted turn as Qwen3 would sample it.
  const speaker = new StubTokens({ model, toolParser: hermesTools, reasoningParser: qwen3Reasoning });
  const script = new ScriptRunner(TURNS);
  try {
    const created = await post("/v1/episodes", { row: { task_dir: COUNT } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { episode_id: id, prompt_token_ids: prompt0, messages, tools } = created.body;
    assert.deepEqual(prompt0, model.encode(model.render(templateMessages(messages), { tools })));

    const bad = await post(`/v1/episodes/${id}/step`, { message: { content: "hi" } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /completion_token_ids must be a non-empty list/);
    const mismatch = await post(`/v1/episodes/${id}/step`, { completion_token_ids: [1, 2], logprobs: [0] });
    assert.match(mismatch.body.error.message, /one per completion token/);

    let prompt: number[] = prompt0;
    const sampled: number[][] = [];
    for (let turn = 0; turn < 2; turn++) {
      const s1 = speaker.answerPrompt(script, prompt);
      sampled.push(s1.ids);
      const step = await post(`/v1/episodes/${id}/step`, { completion_token_ids: s1.ids, logprobs: s1.logprobs });
      assert.equal(step.status, 200, JSON.stringify(step.body));
      if (turn === 0) {
        assert.equal(step.body.done, false);
        assert.equal(step.body.assistant.tool_calls[0].function.name, "bash");
        assert.equal(step.body.assistant.reasoning_content, "\nCount the level field.\n");
        const delta = model.decode(step.body.observation_token_ids);
        assert.ok(delta.startsWith("\n<|im_start|>user\n<tool_response>\n"), delta);
        assert.ok(delta.includes("35"), "the tool result is in the delta");
        assert.ok(delta.endsWith("<|im_start|>assistant\n"), "the delta ends with the generation prompt");
      } else {
        assert.deepEqual([step.body.done, step.body.observation_token_ids], [true, []]);
      }
      prompt = [...prompt, ...s1.ids, ...step.body.observation_token_ids];
    }
    const fin = await post(`/v1/episodes/${id}/finish`, {});
    assert.equal(fin.body.reward, 1);
    assert.deepEqual(fin.body.token_ids, prompt);
    assert.equal(fin.body.loss_mask.length, prompt.length);
    assert.equal(fin.body.loss_mask.filter((b: number) => b === 1).length, sampled.flat().length);
    assert.equal(fin.body.loss_mask.slice(0, prompt0.length).some((b: number) => b === 1), false);
    const lp = fin.body.logprobs.filter((x: number | null) => x !== null);
    assert.equal(lp.length, sampled.flat().length);
    assert.deepEqual(fin.body.template_rewrite_turns, []);
  } finally {
    await s.close();
  }
});

for (const api of ["vllm", "sglang"]) {
  dockerTest(
    `examples/python/pgs_env_client.py in token mode drives env serve with the stub's ${api} API`,
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "pgs_env_tok_" });
      const model = await qwen3();
      const stub = await startStub({
        turns: TURNS,
        out: join(dir, "requests.jsonl"),
        model: "qwen3-stub",
        hostname: "127.0.0.1",
        tokens: { model, toolParser: hermesTools, reasoningParser: qwen3Reasoning },
      });
      const s = await tokenServer();
      const abort = new AbortController();
      const http = Deno.serve(
        { hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} },
        s.app.fetch,
      );
      try {
        const out = await new Deno.Command("python3", {
          args: [
            join(ROOT, "examples", "python", "pgs_env_client.py"),
            "--env",
            `http://127.0.0.1:${http.addr.port}`,
            "--endpoint",
            `http://127.0.0.1:${stub.port}`,
            "--token-api",
            api,
            "--task",
            COUNT,
            "--samples",
            "2",
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        const results = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
        assert.equal(results.length, 2);
        for (const r of results) {
          assert.deepEqual([r.reward, r.exit_status, r.turns], [1, "stop_rule", 2]);
          assert.ok(r.sampled_tokens > 10 && r.sampled_tokens < r.tokens, JSON.stringify(r));
          assert.deepEqual(r.template_rewrite_turns, []);
        }
        assert.deepEqual(results[0].tokens, results[1].tokens, "the same script gives the same sequence");
        const bodies = (await Deno.readTextFile(join(dir, "requests.jsonl"))).trim().split("\n").map((l) =>
          JSON.parse(l)
        );
        assert.equal(bodies.length, 4);
        if (api === "vllm") assert.ok(Array.isArray(bodies[1].prompt) && bodies[1].return_token_ids === true);
        else assert.ok(Array.isArray(bodies[1].input_ids) && bodies[1].return_logprob === true);
        assert.equal(s.size, 0);
      } finally {
        abort.abort();
        await http.finished;
        await s.close();
        await stub.stop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
}
