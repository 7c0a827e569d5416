/**
 * `pgs eval` in token mode from the command line: --tokenizer with the stub speaking as Qwen3, trajectories with
 * rollout details, template_rewrite_turns and the loss mask, counted in summary.json and report.html; and the token
 * flags' one-line errors.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildConfig } from "../lib/eval/config.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { qwen3Reasoning } from "../lib/tokens/parsers/reasoning.ts";
import { startStub } from "../stub/server.ts";
import { dockerTest } from "./docker_helpers.ts";
import { assertSummaryMatches, pgsEval } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { qwen3, qwen3Dir } from "./qwen3_model.ts";

dockerTest("eval --tokenizer: token ids to /v1/completions, rewrites and loss masks in the run's files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_tok_" });
  const stub = await startStub({
    turns: [
      { tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }] },
      { content: "Answer: 35" },
    ],
    out: join(dir, "requests.jsonl"),
    model: "qwen3-stub",
    hostname: "127.0.0.1",
    tokens: { model: await qwen3(), toolParser: hermesTools, reasoningParser: qwen3Reasoning },
  });
  try {
    const r = await pgsEval([
      "--tasks",
      join(EXAMPLE_TASKS, "count-error-lines"),
      "--endpoint",
      `http://127.0.0.1:${stub.port}`,
      "--tokenizer",
      await qwen3Dir(),
      "--reasoning-parser",
      "qwen3",
      "--profile",
      "pi",
      "-k",
      "2",
      "--chat-template-kwargs",
      '{"enable_thinking": false}',
      "--out",
      join(dir, "out"),
    ]);
    assert.equal(r.code, 0, r.stderr);
    const { summary, ts } = await assertSummaryMatches(join(dir, "out"));
    assert.equal(summary.overall.passes, 2);
    for (const t of ts) {
      const rd = t.rollout_details![0];
      assert.equal(rd.prompt_token_ids.length, 2);
      assert.deepEqual(t.drift_turns, []);
      // Thinking off: every prompt ends with an empty think block, which the template leaves out of the history.
      assert.deepEqual(t.template_rewrite_turns, [1]);
      assert.equal(t.loss_mask!.length, rd.prompt_token_ids[1].length + rd.completion_token_ids[1].length);
      assert.equal(t.loss_mask!.filter((b) => b === 1).length, rd.completion_token_ids.flat().length);
      assert.equal(t.policy, `tokens:vllm http://127.0.0.1:${stub.port}/v1`);
    }
    assert.deepEqual(summary.template_rewrite, { turns: 2, episodes: 2, episodes_in_token_mode: 2 });
    const html = await Deno.readTextFile(join(dir, "out", "report.html"));
    assert.match(html, /Token mode: 2 template_rewrite turns in 2 of 2 episodes/);
    const bodies = (await Deno.readTextFile(join(dir, "requests.jsonl"))).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(bodies.length, 4);
    for (const b of bodies) {
      assert.ok(Array.isArray(b.prompt) && b.prompt.every(Number.isInteger), "a prompt of token ids");
      assert.deepEqual([b.model, b.max_tokens, b.logprobs, b.return_token_ids], ["qwen3-stub", 4096, 0, true]);
      assert.equal(b.messages, undefined);
    }
    const run = JSON.parse(await Deno.readTextFile(join(dir, "out", "run.json")));
    assert.equal(JSON.stringify(run).includes('"tokenizer"'), true, "token mode is part of the run's settings");
  } finally {
    await stub.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval token flags: defaults, and one-line errors naming the flag", () => {
  const cfg = buildConfig({}, { tasks: "t", endpoint: "http://x", tokenizer: "/m" });
  assert.ok(cfg.policy.kind === "endpoint");
  assert.deepEqual(cfg.policy.tokens, {
    tokenizer: "/m",
    api: "vllm",
    reasoningParser: undefined,
    toolParser: "hermes",
    rewriteCheck: true,
  });
  assert.throws(
    () => buildConfig({}, { tasks: "t", endpoint: "http://x", tokenizer: "/m", tokenApi: "tgi" }),
    /^UsageError: --token-api must be one of vllm, sglang, got "tgi"$/,
  );
  assert.throws(
    () => buildConfig({ toolParser: "llama" }, { tasks: "t", endpoint: "http://x", tokenizer: "/m" }, "cfg.yaml"),
    /cfg\.yaml: toolParser must be one of hermes, qwen3_coder, got "llama"/,
  );
  const off = buildConfig({}, { tasks: "t", endpoint: "http://x", tokenizer: "/m", rewriteCheck: false });
  assert.equal(off.policy.kind === "endpoint" && off.policy.tokens?.rewriteCheck, false);
});

Deno.test("eval --tokenizer: a folder that is not a model fails the run in one line", async () => {
  const r = await pgsEval([
    "--tasks",
    join(EXAMPLE_TASKS, "count-error-lines"),
    "--endpoint",
    "http://127.0.0.1:9",
    "--tokenizer",
    "/nonexistent/model",
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr.trim(), /^pgs: --tokenizer \/nonexistent\/model: no such folder$/);
});
