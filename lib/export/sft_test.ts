/** SFT rows: which episodes pass, where a row ends, and the whole-file write. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Trajectory, TRAJECTORY_FORMAT } from "../eval/records/trajectory.ts";
import type { ChatMessage } from "../harness/types.ts";
import { exportSft, passes, sftRow, sftRows } from "./sft.ts";
import { partialPath } from "./run_dir.ts";

const BASH = { type: "function" as const, function: { name: "bash", description: "run", parameters: {} } };

function record(
  id: string,
  reward: number | null,
  messages: ChatMessage[],
  over: Partial<Trajectory> = {},
): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    id,
    row_id: id.split("/")[0],
    task: "t",
    task_dir: "/t",
    sample: 0,
    profile: "opencode@1.18.33",
    profile_key: "opencode",
    policy: "oracle",
    messages,
    tools: [BASH],
    chat_template_kwargs: {},
    answer: "",
    reward,
    metrics: {},
    exit_status: reward === null ? "infra_error" : "stop_rule",
    turns: 1,
    counters: { tool_calls: 0, format_errors: 0, unknown_tools: 0 },
    timings: { start_ms: 0, policy_ms: 0, tools_ms: 0, verify_ms: 0, total_ms: 0 },
    docker_host: "default",
    started_at: "2026-01-01T00:00:00Z",
    ended_at: "2026-01-01T00:00:01Z",
    ...over,
  };
}

const convo: ChatMessage[] = [
  { role: "system", content: "s" },
  { role: "user", content: "u" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
  },
  { role: "tool", tool_call_id: "c", content: "app.log" },
  { role: "assistant", content: "Answer: 35" },
];

Deno.test("sft: a row is the messages through the final assistant turn, arguments as JSON text, and the tools", () => {
  const row = sftRow(record("a/0", 1, convo))!;
  assert.deepEqual(row, { messages: convo, tools: [BASH] });
  assert.equal(typeof row.messages[2].tool_calls![0].function.arguments, "string");
  // A turn limit can leave results after the last turn: the policy never saw them answered.
  const cut = sftRow(record("a/0", 1, [...convo.slice(0, 3), convo[3]]))!;
  assert.deepEqual(cut.messages, convo.slice(0, 3));
  assert.equal(sftRow(record("a/0", 1, [convo[0], convo[1]])), undefined);
});

Deno.test("sft: passing means a reward at or above the threshold, never an infrastructure error", () => {
  assert.ok(passes(record("a/0", 1, convo)));
  assert.ok(!passes(record("a/0", 0.5, convo)));
  assert.ok(passes(record("a/0", 0.5, convo), 0.5));
  assert.ok(!passes(record("a/0", null, convo), -1));
  const rows = sftRows([record("a/0", 1, convo), record("b/0", 0, convo), record("c/0", null, convo)]);
  assert.equal(rows.length, 1);
});

Deno.test("sft export: the latest record per episode, written whole; counts of what was left out", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_sft_" });
  const lines = [
    record("a/0", null, []), // an infrastructure error, retried below
    record("a/0", 1, convo),
    record("b/0", 0, convo),
    record("c/0", null, []),
    record("d/0", 1, [convo[0], convo[1]]),
  ];
  await Deno.writeTextFile(join(dir, "trajectories.jsonl"), lines.map((l) => JSON.stringify(l) + "\n").join(""));
  const out = join(dir, "sft.jsonl");
  await Deno.writeTextFile(out, "old\n");
  const done = await exportSft(dir, out);
  assert.deepEqual(done, { rows: 1, failed: 1, infra: 1, empty: ["d/0"] });
  const rows = (await Deno.readTextFile(out)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(rows, [{ messages: convo, tools: [BASH] }]);
  assert.deepEqual(Object.keys(rows[0]), ["messages", "tools"]);
  await assert.rejects(Deno.stat(partialPath(out)));
  await Deno.remove(dir, { recursive: true });
});
