/**
 * Completion ids outside the tokenizer's vocabulary (Qwen3's real tokenizer): decoded, they are silently nothing, so
 * the episode would end as if the model had stopped. `TokenSession` refuses them with the session unchanged; env
 * serve answers 400 naming the index and the value and the episode stays usable; an endpoint that samples them in
 * `pgs eval --tokenizer` is the endpoint's infrastructure error, never a scored episode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEnvServer } from "../lib/env/server_app.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import type { HarborEpisode } from "../lib/env/harbor_env.ts";
import { PolicyError } from "../lib/policies/policy.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { tokenPolicy } from "../lib/policies/token_policy.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { TokenIdError } from "../lib/tokens/token_ids.ts";
import { TokenSession } from "../lib/tokens/token_session.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest, requireDocker } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { qwen3 } from "./qwen3_model.ts";

registerBuiltins();
const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const OOV = 99999999;

/** Qwen3's sampled answer "Answer: 35", end of turn included. */
async function answerIds(): Promise<number[]> {
  const model = await qwen3();
  return [...model.encode("Answer: 35"), model.tokenId("<|im_end|>")!];
}

Deno.test("TokenModel.hasId: Qwen3's vocabulary, added tokens included; nothing else", async () => {
  const model = await qwen3();
  assert.equal(model.vocabSize, 151669);
  for (const id of [0, 151643, 151645, 151668]) assert.ok(model.hasId(id), String(id));
  for (const id of [151669, OOV, -1, 1.5, "7", null]) assert.equal(model.hasId(id), false, String(id));
});

Deno.test("TokenSession.accept: an unknown id is refused naming index and value, and the session stays usable", async () => {
  const model = await qwen3();
  const s = new TokenSession(model, {});
  const prompt = s.start([{ role: "user", content: "How many?" }]);
  const good = await answerIds();
  assert.throws(
    () => s.accept([good[0], OOV]),
    (e) =>
      e instanceof TokenIdError && e.index === 1 && e.value === OOV &&
      e.message === "completion_token_ids[1] = 99999999 is not a token id of the tokenizer (its vocabulary has " +
          "151669 tokens)",
  );
  assert.deepEqual([s.turns, s.ids], [0, prompt], "nothing was taken");
  assert.equal(s.accept(good).content, "Answer: 35");
  assert.deepEqual(s.ids, [...prompt, ...good]);
});

/** A vLLM-like server whose /v1/completions samples `ids`. */
function vllm(ids: number[]) {
  const abort = new AbortController();
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} },
    () => Response.json({ choices: [{ text: "", token_ids: ids, logprobs: null, finish_reason: "stop" }] }),
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/v1`,
    async stop() {
      abort.abort();
      await http.finished;
    },
  };
}

Deno.test("token policy: an endpoint sampling an unknown id is an endpoint error naming the URL, index and value", async () => {
  const s = vllm([...(await answerIds()).slice(0, 2), OOV]);
  try {
    const policy = tokenPolicy({ baseUrl: s.url, model: "m", tokenizer: await qwen3(), toolParser: hermesTools });
    const e = await policy.turn({
      messages: [{ role: "user", content: "How many?" }],
      tools: [],
      chatTemplateKwargs: {},
      episode: {} as HarborEpisode,
      turn: 0,
      sample: 0,
    }).then(() => undefined, (e) => e);
    assert.ok(e instanceof PolicyError, String(e));
    assert.deepEqual([e.kind, e.stage], ["infra", "endpoint"]);
    assert.ok(e.message.startsWith(`endpoint: ${s.url}/completions answered choices[0].token_ids[2] = 99999999 `));
    assert.equal(e.message.split("\n").length, 1);
  } finally {
    await s.stop();
  }
});

dockerTest(
  "eval --tokenizer: an unknown sampled id ends the episode as the endpoint's infra_error, unscored",
  async () => {
    const s = vllm([OOV]);
    try {
      const policy = tokenPolicy({ baseUrl: s.url, model: "m", tokenizer: await qwen3(), toolParser: hermesTools });
      const [[t]] = await runEpisodes(policy, [{ task_dir: COUNT }], { profile: "pi" });
      assert.deepEqual([t.exit_status, t.reward, t.infra_stage], ["infra_error", null, "endpoint"]);
      assert.match(t.error!, /choices\[0\]\.token_ids\[0\] = 99999999 is not a token id of the tokenizer/);
    } finally {
      await s.stop();
    }
  },
);

dockerTest(
  "env serve token mode: an id outside the vocabulary is a 400 naming index and value; the episode goes on",
  async () => {
    const model = await qwen3();
    const s = createEnvServer({
      env: new HarborEnv({ profile: "pi", runtime: requireDocker() }),
      tokens: { tokenizer: model, toolParser: hermesTools },
    });
    const post = async (path: string, body: unknown) => {
      const res = await s.app.fetch(new Request(`http://pgs${path}`, { method: "POST", body: JSON.stringify(body) }));
      return { status: res.status, body: await res.json() };
    };
    try {
      const created = await post("/v1/episodes", { row: { task_dir: COUNT } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.episode_id;
      const good = await answerIds();
      const cases: [unknown[], RegExp][] = [
        [[good[0], OOV], /^token mode: completion_token_ids\[1\] = 99999999 is not a token id of the tokenizer/],
        [[151669], /^token mode: completion_token_ids\[0\] = 151669 is not a token id of the tokenizer/],
        [[good[0], -1], /^token mode: completion_token_ids\[1\] = -1 is not a token id \(a non-negative integer\)/],
        [[2.5], /^token mode: completion_token_ids\[0\] = 2\.5 is not a token id/],
        [["7"], /^token mode: completion_token_ids\[0\] = "7" is not a token id/],
      ];
      for (const [ids, message] of cases) {
        const r = await post(`/v1/episodes/${id}/step`, { completion_token_ids: ids });
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.match(r.body.error.message, message);
      }
      const step = await post(`/v1/episodes/${id}/step`, { completion_token_ids: good });
      assert.equal(step.status, 200, JSON.stringify(step.body));
      assert.deepEqual([step.body.done, step.body.turns, step.body.assistant.content], [true, 1, "Answer: 35"]);
      const fin = await post(`/v1/episodes/${id}/finish`, {});
      assert.deepEqual([fin.body.reward, fin.body.exit_status], [1, "stop_rule"]);
      assert.deepEqual(fin.body.token_ids, [...created.body.prompt_token_ids, ...good], "no refused id was kept");
    } finally {
      await s.close();
    }
  },
);
