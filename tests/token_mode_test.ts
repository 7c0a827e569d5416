/**
 * Token mode end to end, with Qwen3's real tokenizer and chat template and no model: an eight-turn episode (tool
 * calls, a malformed call, thinking turns) under mini-swe-agent in a real container, the stub answering vLLM's
 * /v1/completions and SGLang's /generate from the same script. Every prompt extends the last prompt plus its
 * completion, the loss mask covers exactly the sampled tokens, and `template_rewrite` counts the turns a chat
 * endpoint re-renders; the same episode in chat mode shows that drift in its token ids.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { stopTurn } from "../lib/policies/policy.ts";
import { type TokenApi, tokenPolicy } from "../lib/policies/token_policy.ts";
import { endpointPolicy } from "../lib/policies/endpoint_policy.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import { getProfile } from "../lib/harness/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import type { Turn } from "../lib/script/script.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { qwen3Reasoning } from "../lib/tokens/parsers/reasoning.ts";
import { startStub } from "../stub/server.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { qwen3 } from "./qwen3_model.ts";

registerBuiltins();
const PROFILE = "mini-swe-agent@2.4.6";
const TASK = join(EXAMPLE_TASKS, "count-error-lines");

function script(): Turn[] {
  const bash = (command: string, reasoning?: string): Turn => ({
    tool_calls: [{ name: "bash", arguments: { command } }],
    ...(reasoning !== undefined ? { reasoning } : {}),
  });
  const stop = stopTurn(getProfile(PROFILE), "35", 7).tool_calls![0].function;
  return [
    bash("ls", "Let me look at the folder first."),
    bash("head -n 3 app.log"),
    // Not JSON: the hermes block does not parse, so the reply is text without a call (mini-swe-agent's format error).
    { tool_calls: [{ name: "bash", arguments: '{"command": "wc -l app.log"' }] },
    bash("awk '$3 == \"ERROR\"' app.log | wc -l", "The level is the third field."),
    bash("grep -c ERROR app.log"),
    bash("echo checking"),
    bash("awk '$3 == \"ERROR\"' app.log | wc -l", "35 it is."),
    { tool_calls: [{ name: "bash", arguments: stop.arguments }] },
  ];
}

/** Runs the episode against a fresh stub speaking as Qwen3, in token mode (`api`) or in chat mode. */
async function episode(mode: TokenApi | "chat"): Promise<Trajectory> {
  const model = await qwen3();
  const out = await Deno.makeTempFile({ suffix: ".jsonl" });
  const stub = await startStub({
    turns: script(),
    out,
    model: "qwen3-stub",
    hostname: "127.0.0.1",
    advance: "history",
    tokens: { model, toolParser: hermesTools, reasoningParser: qwen3Reasoning },
  });
  try {
    const baseUrl = `http://127.0.0.1:${stub.port}/v1`;
    const policy = mode === "chat"
      ? endpointPolicy({ baseUrl, tokenIds: true })
      : tokenPolicy({ baseUrl, api: mode, tokenizer: model, toolParser: hermesTools, reasoningParser: qwen3Reasoning });
    const [[t]] = await runEpisodes(policy, [{ task_dir: TASK }], { profile: PROFILE });
    return t;
  } finally {
    await stub.stop();
    await Deno.remove(out);
  }
}

/** Turns whose prompt does not extend the last prompt plus its completion. */
function drift(t: Trajectory): number[] {
  const r = t.rollout_details![0];
  const out: number[] = [];
  for (let i = 1; i < r.prompt_token_ids.length; i++) {
    const prefix = [...r.prompt_token_ids[i - 1], ...r.completion_token_ids[i - 1]];
    if (JSON.stringify(r.prompt_token_ids[i].slice(0, prefix.length)) !== JSON.stringify(prefix)) out.push(i);
  }
  return out;
}

// Where Qwen3's template re-renders the history (worked out by hand from the template): mini-swe-agent keeps each
// turn's reasoning_content, so a think block renders back as sampled while the turn is after the last user query; the
// format error after turn 2 is a new user query, so prompt 3 drops turn 0's reasoning. Later thinking turns come
// after that query, and nothing else moves it.
const REWRITES = [3];

dockerTest(
  "token mode (vLLM): eight turns, every prompt = prompt ⊕ completion ⊕ delta, mask on sampled tokens",
  async () => {
    const t = await episode("vllm");
    assert.equal(t.exit_status, "stop_rule", t.error);
    assert.equal(t.reward, 1);
    assert.equal(t.turns, 8);
    assert.equal(t.counters.format_errors, 1, "the malformed call reached mini-swe-agent's own format error");
    const r = t.rollout_details![0];
    assert.equal(r.prompt_token_ids.length, 8);
    assert.deepEqual(drift(t), []);
    assert.deepEqual(t.drift_turns, []);
    assert.deepEqual(t.template_rewrite_turns, REWRITES);
    r.completion_token_ids.forEach((c, i) => assert.equal(r.logprobs[i].length, c.length, `logprobs of turn ${i}`));
    // The mask spans the last prompt plus the last completion, 1 exactly where a completion was sampled.
    const seq = [...r.prompt_token_ids[7], ...r.completion_token_ids[7]];
    const mask = t.loss_mask!;
    assert.equal(mask.length, seq.length);
    const ones: number[] = [];
    for (let i = 0; i < 8; i++) {
      const start = r.prompt_token_ids[i].length;
      for (let j = 0; j < r.completion_token_ids[i].length; j++) ones.push(start + j);
    }
    assert.deepEqual(mask.flatMap((b, i) => b === 1 ? [i] : []), ones);
    assert.equal(mask.filter((b) => b === 1).length, r.completion_token_ids.flat().length);
    // The thinking turn's reasoning reached the history, and the completion holds the model's own think block.
    const model = await qwen3();
    assert.ok(
      model.decode(r.completion_token_ids[0]).startsWith("<think>\nLet me look at the folder first.\n</think>"),
    );
    assert.ok(model.decode(r.completion_token_ids[0]).endsWith("</tool_call><|im_end|>"));
    assert.equal(t.messages[2].reasoning_content, "\nLet me look at the folder first.\n");
  },
);

dockerTest("token mode (SGLang /generate): the same tokens as through vLLM's /v1/completions", async () => {
  const [v, s] = [await episode("vllm"), await episode("sglang")];
  assert.equal(s.reward, 1);
  assert.deepEqual(s.rollout_details, v.rollout_details);
  assert.deepEqual(s.loss_mask, v.loss_mask);
  assert.deepEqual(s.template_rewrite_turns, REWRITES);
});

dockerTest("chat mode: the same episode drifts exactly where token mode counted a template_rewrite", async () => {
  const [tok, chat] = [await episode("vllm"), await episode("chat")];
  assert.equal(chat.reward, 1);
  assert.equal(chat.turns, 8);
  assert.deepEqual(chat.drift_turns, REWRITES, "the chat endpoint re-rendered these prompts");
  assert.deepEqual(drift(chat), REWRITES);
  assert.equal(chat.loss_mask, undefined, "no mask: the chat prompts are not one sequence");
  assert.deepEqual(tok.drift_turns, []);
  // Same sampled completions in both modes: only the prompts differ.
  assert.deepEqual(chat.rollout_details![0].completion_token_ids, tok.rollout_details![0].completion_token_ids);
});

dockerTest("token mode under a text protocol (mini-swe-agent-text): the completion's text is the reply", async () => {
  const model = await qwen3();
  const profile = getProfile("mini-swe-agent-text@2.4.6");
  const fenced = (command: string) => `Looking.\n\n\`\`\`mswea_bash_command\n${command}\n\`\`\``;
  const out = await Deno.makeTempFile({ suffix: ".jsonl" });
  const stub = await startStub({
    turns: [
      { content: fenced("awk '$3 == \"ERROR\"' app.log | wc -l"), reasoning: "The third field." },
      { content: stopTurn(profile, "35", 1).content as string },
    ],
    out,
    model: "qwen3-stub",
    hostname: "127.0.0.1",
    tokens: { model, toolParser: hermesTools, reasoningParser: qwen3Reasoning },
  });
  try {
    const policy = tokenPolicy({
      baseUrl: `http://127.0.0.1:${stub.port}/v1`,
      tokenizer: model,
      toolParser: hermesTools,
      reasoningParser: qwen3Reasoning,
    });
    const [[t]] = await runEpisodes(policy, [{ task_dir: TASK }], { profile: "mini-swe-agent-text@2.4.6" });
    assert.equal(t.reward, 1, t.error);
    assert.deepEqual([t.turns, t.tools, t.drift_turns], [2, [], []]);
    assert.equal(t.messages[2].content, `\n\n${fenced("awk '$3 == \"ERROR\"' app.log | wc -l")}`);
    assert.equal(t.messages[2].reasoning_content, "\nThe third field.\n");
    const bodies = (await Deno.readTextFile(out)).trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(!model.decode(bodies[0].prompt).includes("<tools>"), "a text protocol sends no tools to the template");
  } finally {
    await stub.stop();
    await Deno.remove(out);
  }
});
