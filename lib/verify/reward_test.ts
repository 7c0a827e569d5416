/** Reading reward.json / reward.txt (pure). */
import assert from "node:assert/strict";
import { parseReward } from "./reward.ts";

Deno.test("reward.txt: a number on the first line", () => {
  assert.deepEqual(parseReward({ txt: "1\n" }), { reward: 1, metrics: {} });
  assert.deepEqual(parseReward({ txt: "0" }), { reward: 0, metrics: {} });
  assert.deepEqual(parseReward({ txt: "  0.75 \r\nignored\n" }), { reward: 0.75, metrics: {} });
  assert.deepEqual(parseReward({ txt: "-2.5e-1\n" }), { reward: -0.25, metrics: {} });
});

Deno.test("reward.txt: not a number is an error", () => {
  for (const txt of ["", "\n", "\n1\n", "one", "0.5 points", "NaN", "Infinity", "1,5"]) {
    const r = parseReward({ txt });
    assert.ok("error" in r, `${JSON.stringify(txt)} gave ${JSON.stringify(r)}`);
    assert.match(r.error, /^reward\.txt: first line is not a number/);
  }
});

Deno.test("reward.json: the reward key, every numeric key a metric, booleans as 0/1", () => {
  const r = parseReward({
    json: `{"score": 0.2, "reward": 0.9, "passed": true, "failed": false, "name": "x", "n": null}`,
  });
  assert.deepEqual(r, { reward: 0.9, metrics: { score: 0.2, reward: 0.9, passed: 1, failed: 0 } });
  // Nested values are not metrics.
  assert.deepEqual(parseReward({ json: `{"reward": 1, "detail": {"a": 1}, "list": [1]}` }), {
    reward: 1,
    metrics: { reward: 1 },
  });
});

Deno.test("reward.json: without the reward key, the first key", () => {
  assert.deepEqual(parseReward({ json: `{"accuracy": 0.5, "n": 10}` }), {
    reward: 0.5,
    metrics: { accuracy: 0.5, n: 10 },
  });
  const bool = parseReward({ json: `{"solved": true}` });
  assert.deepEqual(bool, { reward: 1, metrics: { solved: 1 } });
});

Deno.test("reward.json: rewardKey picks the component, else the first key", () => {
  const json = `{"reward": 0.9, "strict": 0.1}`;
  assert.deepEqual(parseReward({ json }, "strict"), { reward: 0.1, metrics: { reward: 0.9, strict: 0.1 } });
  assert.deepEqual(parseReward({ json }, "absent"), { reward: 0.9, metrics: { reward: 0.9, strict: 0.1 } });
  assert.deepEqual(parseReward({ json: `{"a": 0.3, "reward": 0.9}` }, "a"), {
    reward: 0.3,
    metrics: { a: 0.3, reward: 0.9 },
  });
});

Deno.test("reward.json: a bare number", () => {
  assert.deepEqual(parseReward({ json: "0.25\n" }), { reward: 0.25, metrics: {} });
});

Deno.test("reward.json wins over reward.txt", () => {
  assert.deepEqual(parseReward({ json: `{"reward": 0}`, txt: "1" }), { reward: 0, metrics: { reward: 0 } });
  // Even a broken reward.json: the verifier meant it, reward.txt does not rescue it.
  const r = parseReward({ json: "{", txt: "1" });
  assert.ok("error" in r);
  assert.match(r.error, /^reward\.json is not JSON/);
});

Deno.test("reward.json: errors", () => {
  const cases: [string, RegExp][] = [
    ["", /^reward\.json is not JSON/],
    ['{"reward": ', /^reward\.json is not JSON/],
    ["{}", /^reward\.json is empty$/],
    ["[1]", /^reward\.json is not an object$/],
    ['"1"', /^reward\.json is not an object$/],
    ["null", /^reward\.json is not an object$/],
    ["true", /^reward\.json is not an object$/],
    [`{"reward": "1"}`, /^reward\.json: reward is not a number$/],
    [`{"reward": null, "other": 1}`, /^reward\.json: reward is not a number$/],
    [`{"name": "x", "score": 1}`, /^reward\.json: name is not a number$/],
  ];
  for (const [json, re] of cases) {
    const r = parseReward({ json });
    assert.ok("error" in r, `${json} gave ${JSON.stringify(r)}`);
    assert.match(r.error, re, json);
  }
});

Deno.test("no reward file at all", () => {
  assert.deepEqual(parseReward({}), {
    error: "the verifier wrote neither /logs/verifier/reward.txt nor reward.json",
  });
});
