/**
 * Token-mode figures (Qwen3's real tokenizer and chat template): the cost of building one turn's prompt
 * (`prompt ⊕ completion ⊕ delta`) at 2k, 8k and 32k tokens of history, apart from the O(history) rewrite check; and
 * tokens per second through the stub's /v1/completions (a second process) with 64 episodes at once. Prints; asserts
 * nothing. `PGS_BENCH_TOKENIZER=DIR` benches another model folder.
 */
import { join } from "node:path";
import { spawnStub } from "./spawn_stub.ts";
import { loadTokenModel, type TokenModel } from "../lib/tokens/model.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { qwen3Reasoning } from "../lib/tokens/parsers/reasoning.ts";
import { pyJson } from "../lib/tokens/py_json.ts";
import { TokenSession } from "../lib/tokens/token_session.ts";
import type { ParsedCompletion } from "../lib/tokens/parsers/types.ts";
import { qwen3Dir } from "../tests/qwen3_model.ts";

const dir = Deno.env.get("PGS_BENCH_TOKENIZER") ?? await qwen3Dir();
const model = await loadTokenModel(dir);
const EPISODES = Number(Deno.env.get("BENCH_TOKEN_EPISODES") ?? 64);
const TURNS = Number(Deno.env.get("BENCH_TOKEN_TURNS") ?? 8);
const TOOLS = [{
  type: "function",
  function: {
    name: "bash",
    description: "Run a command in the task's container.",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
}];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const eos = [...model.stopIds][0];

function completion(i: number): number[] {
  const text = qwen3Reasoning.format(`Step ${i}: look at the next part of the log.`) +
    hermesTools.format("", [{ name: "bash", arguments: pyJson({ command: `sed -n '${i * 40},+40p' app.log` }) }]);
  return [...model.encode(text), eos];
}

function toolOutput(i: number): string {
  return Array.from({ length: 40 }, (_, j) => `2024-05-14 09:${i % 60}:${j % 60},915 INFO [auth] user ${j} ok`)
    .join("\n");
}

/** What a harness keeps of turn `i`: the assistant message and its tool result. */
function pushTurn(messages: Record<string, unknown>[], d: ParsedCompletion, i: number): void {
  messages.push({
    role: "assistant",
    content: d.content,
    reasoning_content: d.reasoning,
    tool_calls: d.calls.map((c, j) => ({ id: `c${i}_${j}`, type: "function", function: c })),
  });
  messages.push({ role: "tool", tool_call_id: `c${i}_0`, content: toolOutput(i) });
}

/** A session whose history has grown to at least `tokens`, and its messages. */
function grown(m: TokenModel, tokens: number, rewriteCheck: boolean) {
  const s = new TokenSession(m, {
    tools: TOOLS,
    reasoningParser: qwen3Reasoning,
    toolParser: hermesTools,
    rewriteCheck,
  });
  const messages: Record<string, unknown>[] = [
    { role: "system", content: "You are a careful engineer." },
    { role: "user", content: "How many ERROR lines does /workdir/app.log have?" },
  ];
  s.start(messages);
  let i = 0;
  const turn = () => {
    pushTurn(messages, s.accept(completion(i)), i);
    s.next(messages);
    i++;
  };
  while (s.ids.length < tokens) turn();
  return { s, turn };
}

console.log(`pgs token bench: ${dir.split("/").pop()}, ${navigator.hardwareConcurrency} cores\n`);
console.log(
  "One turn's prompt: accept a 60-token completion, render and tokenise the delta (a 40-line tool result, ~1400\n" +
    "tokens), append; the median over 20 sessions grown to the size of each one's best of 3 turns:",
);
for (const size of [2_000, 8_000, 32_000]) {
  const cell: Record<string, string> = {};
  let at = 0, delta = 0;
  for (const check of [false, true]) {
    const times: number[] = [];
    for (let r = 0; r < 20; r++) {
      const { s, turn } = grown(model, size, check);
      at = s.ids.length;
      // The best of three turns: a collection of the growing's garbage may land in any one of them.
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const before = s.ids.length;
        const t = performance.now();
        turn();
        best = Math.min(best, performance.now() - t);
        delta = s.ids.length - before;
      }
      times.push(best);
    }
    cell[check ? "with" : "without"] = `${median(times).toFixed(3)} ms`;
  }
  console.log(
    `  ${String(size).padStart(6)} tokens of history (${at}; +${delta} a turn): ${cell.without}; ` +
      `with the rewrite check (an O(history) render) ${cell.with}`,
  );
}

// Tokens per second through the stub's /v1/completions, EPISODES episodes at once, TURNS turns each.
const tmp = await Deno.makeTempDir({ prefix: "pgs-token-bench-" });
const turns = Array.from({ length: TURNS - 1 }, (_, i) => ({
  reasoning: `Step ${i}.`,
  tool_calls: [{ name: "bash", arguments: { command: `sed -n '${i * 40},+40p' app.log` } }],
}));
await Deno.writeTextFile(join(tmp, "turns.json"), JSON.stringify([...turns, { content: "Answer: 35" }]));
const stub = await spawnStub(join(tmp, "turns.json"), join(tmp, "r.jsonl"), [
  "--tokenizer",
  dir,
  "--reasoning-parser",
  "qwen3",
]);
const base = stub.base;

let sampled = 0, prompted = 0, requests = 0;
const episode = async (e: number) => {
  const s = new TokenSession(model, { tools: TOOLS, reasoningParser: qwen3Reasoning, toolParser: hermesTools });
  const messages: Record<string, unknown>[] = [
    { role: "system", content: "You are a careful engineer." },
    { role: "user", content: `Episode ${e}: how many ERROR lines does /workdir/app.log have?` },
  ];
  s.start(messages);
  for (let t = 0; t < TURNS; t++) {
    const prompt = s.prompt();
    const res = await fetch(`${base}/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", prompt, max_tokens: 4096, logprobs: 0, return_token_ids: true }),
    });
    const ids: number[] = (await res.json()).choices[0].token_ids;
    requests++;
    sampled += ids.length;
    prompted += prompt.length;
    const d = s.accept(ids);
    if (!d.calls.length) return;
    pushTurn(messages, d, t);
    s.next(messages);
  }
};
const t0 = performance.now();
await Promise.all(Array.from({ length: EPISODES }, (_, e) => episode(e)));
const sec = (performance.now() - t0) / 1000;
console.log(
  `\nThrough the stub (/v1/completions, a second process), ${EPISODES} episodes at once, ${TURNS} turns each:\n` +
    `  ${requests} requests in ${sec.toFixed(2)} s: ${(sampled / sec).toFixed(0)} sampled tokens/s, ` +
    `${(prompted / sec).toFixed(0)} prompt tokens/s sent (${(requests / sec).toFixed(0)} turns/s)`,
);
await stub.stop();
await Deno.remove(tmp, { recursive: true });
