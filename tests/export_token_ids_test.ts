/**
 * `pgs export atif --token-ids` on a run folder holding token ids (no engine): each agent step's `metrics` gets its
 * turn's prompt and completion token ids and logprobs from the record's `rollout_details` (Harbor's `Metrics` fields),
 * the documents stay valid ATIF v1.7; without the flag the steps have the counts only; on a run that recorded no ids
 * the flag is a one-line usage error and nothing is written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AtifTrajectory } from "../lib/export/atif_types.ts";
import { validateAtif } from "../lib/export/atif_validate.ts";
import { pgs } from "./eval_helpers.ts";
import { traj } from "./trajectory_fixture.ts";

const ROLLOUT = {
  prompt_token_ids: [[1, 2, 3], [1, 2, 3, 10, 11, 12]],
  completion_token_ids: [[10, 11], [13, 14, 15]],
  logprobs: [[-0.5, -0.25], [-1, -2, -3]],
};

/** A run folder of one two-turn pi episode, with `rollout_details` when `ids`. */
async function runDir(ids: boolean): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_export_ids_" });
  const t = traj({
    row_id: "r1",
    sample: 0,
    messages: [
      { role: "user", content: "Count the ERROR lines." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"wc -l"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "35" },
      { role: "assistant", content: "Answer: 35" },
    ],
    ...(ids ? { rollout_details: [ROLLOUT] } : {}),
  });
  await Deno.mkdir(join(dir, "run"));
  await Deno.writeTextFile(join(dir, "run", "trajectories.jsonl"), JSON.stringify(t) + "\n");
  return dir;
}

async function exportedDoc(out: string): Promise<AtifTrajectory> {
  const [entry] = [...Deno.readDirSync(out)];
  const doc = JSON.parse(await Deno.readTextFile(join(out, entry.name, "trajectory.json")));
  assert.deepEqual(validateAtif(doc), []);
  return doc;
}

Deno.test("export atif --token-ids: each agent step's metrics holds its turn's ids and logprobs; valid ATIF", async () => {
  const dir = await runDir(true);
  try {
    const r = await pgs(["export", "atif", join(dir, "run"), join(dir, "ids"), "--token-ids"]);
    assert.equal(r.code, 0, r.stderr);
    const agents = (await exportedDoc(join(dir, "ids"))).steps.filter((s) => s.source === "agent");
    assert.deepEqual(
      agents.map((s) => s.metrics),
      [0, 1].map((i) => ({
        prompt_tokens: ROLLOUT.prompt_token_ids[i].length,
        prompt_token_ids: ROLLOUT.prompt_token_ids[i],
        completion_tokens: ROLLOUT.completion_token_ids[i].length,
        completion_token_ids: ROLLOUT.completion_token_ids[i],
        logprobs: ROLLOUT.logprobs[i],
      })),
    );
    const plain = await pgs(["export", "atif", join(dir, "run"), join(dir, "plain")]);
    assert.equal(plain.code, 0, plain.stderr);
    const counts = (await exportedDoc(join(dir, "plain"))).steps.filter((s) => s.source === "agent");
    assert.deepEqual(counts.map((s) => s.metrics), [
      { prompt_tokens: 3, completion_tokens: 2 },
      { prompt_tokens: 6, completion_tokens: 3 },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("export atif --token-ids on a run with no token ids: one line naming the file, exit 2, nothing written", async () => {
  const dir = await runDir(false);
  try {
    const r = await pgs(["export", "atif", join(dir, "run"), join(dir, "out"), "--token-ids"]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /trajectories\.jsonl: no episode recorded token ids \(run pgs eval with --token-ids/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["run"]);
    const help = await pgs(["export", "atif", "--help"]);
    assert.match(help.stdout, /--token-ids +each agent step's metrics also has/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
