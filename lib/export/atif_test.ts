/** The ATIF mapping of trajectory records (native and text protocols, token ids, odd ids) and the atomic export. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Trajectory, TRAJECTORY_FORMAT } from "../eval/records/trajectory.ts";
import type { ChatMessage, Protocol } from "../harness/types.ts";
import { atifDirNames, exportAtif, splitProfile, toAtif } from "./atif.ts";
import { validateAtif } from "./atif_validate.ts";
import { partialPath } from "./run_dir.ts";

const BASH = { type: "function" as const, function: { name: "bash", description: "run", parameters: {} } };
const FENCED: Protocol = { kind: "fenced", lang: "mswea_bash_command", tool: "bash", arg: "command" };

/** A finished episode's record with `messages`; the rest is filled in plausibly. */
function record(messages: ChatMessage[], over: Partial<Trajectory> = {}): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    id: "abc123/0",
    row_id: "abc123",
    task: "pgs-examples/count-error-lines",
    task_dir: "/tasks/count-error-lines",
    sample: 0,
    profile: "opencode@1.18.33+exact-edit",
    profile_key: "opencode",
    policy: "http://127.0.0.1:8000/v1",
    model: "qwen",
    messages,
    tools: [BASH],
    chat_template_kwargs: {},
    answer: "Answer: 35",
    reward: 1,
    metrics: { "metric/reward": 1 },
    exit_status: "stop_rule",
    turns: messages.filter((m) => m.role === "assistant").length,
    counters: { tool_calls: 0, format_errors: 0, unknown_tools: 0 },
    timings: { start_ms: 1, policy_ms: 2, tools_ms: 3, verify_ms: 4, total_ms: 10 },
    test_output: "answer=35 expected=35",
    docker_host: "default",
    started_at: "2026-12-02T15:36:41.520Z",
    ended_at: "2026-12-02T15:37:04.669Z",
    ...over,
  };
}

const call = (id: string, args: string, name = "bash") => ({
  id,
  type: "function" as const,
  function: { name, arguments: args },
});

function valid(t: Trajectory, protocol?: Protocol, tokenIds = false) {
  const doc = toAtif(t, { protocolOf: () => protocol ?? { kind: "native" }, tokenIds });
  assert.deepEqual(validateAtif(doc), []);
  return doc;
}

Deno.test("atif: a native episode: steps in order, calls with object arguments, results linked, inserted user turns", () => {
  const t = record([
    { role: "system", content: "You are opencode." },
    { role: "user", content: [{ type: "text", text: "Count the ERROR lines." }] },
    {
      role: "assistant",
      content: null,
      reasoning_content: "awk it",
      tool_calls: [call("c1", '{"command":"ls"}'), call("c2", "{bad")],
    },
    { role: "tool", tool_call_id: "c1", content: "app.log" },
    { role: "tool", tool_call_id: "c2", content: "Error: invalid arguments" },
    { role: "system", content: "<system-reminder>note</system-reminder>" },
    { role: "assistant", content: "thinking" },
    { role: "user", content: "You must call a tool." },
    { role: "assistant", content: "Answer: 35" },
  ], {
    rollout_details: [{
      prompt_token_ids: [[1, 2, 3], [], [1, 2, 3, 4, 5]],
      completion_token_ids: [[7, 8], [], [9]],
      logprobs: [[-0.5, -0.25], [], [0]],
    }],
    drift_turns: [2],
  });
  const doc = valid(t, undefined, true);
  assert.deepEqual(doc.steps.map((s) => [s.step_id, s.source]), [
    [1, "system"],
    [2, "user"],
    [3, "agent"],
    [4, "system"],
    [5, "agent"],
    [6, "user"],
    [7, "agent"],
  ]);
  assert.deepEqual(doc.agent, {
    name: "opencode",
    version: "1.18.33+exact-edit",
    model_name: "qwen",
    tool_definitions: [BASH],
    extra: { profile: t.profile, profile_key: "opencode", policy: t.policy, chat_template_kwargs: {} },
  });
  const [, user, first, , second, , last] = doc.steps;
  assert.deepEqual(user.message, [{ type: "text", text: "Count the ERROR lines." }]);
  assert.equal(first.message, "");
  assert.equal(first.reasoning_content, "awk it");
  assert.deepEqual(first.tool_calls, [
    { tool_call_id: "c1", function_name: "bash", arguments: { command: "ls" } },
    { tool_call_id: "c2", function_name: "bash", arguments: {}, extra: { raw_arguments: "{bad" } },
  ]);
  assert.deepEqual(first.observation?.results, [
    { source_call_id: "c1", content: "app.log" },
    { source_call_id: "c2", content: "Error: invalid arguments" },
  ]);
  assert.deepEqual(first.metrics, {
    prompt_tokens: 3,
    prompt_token_ids: [1, 2, 3],
    completion_tokens: 2,
    completion_token_ids: [7, 8],
    logprobs: [-0.5, -0.25],
  });
  assert.equal(second.metrics, undefined, "a turn the endpoint returned no ids for has no metrics");
  assert.equal(second.tool_calls, undefined);
  assert.deepEqual(last.extra, { prompt_drift: true });
  for (const s of doc.steps.filter((s) => s.source !== "agent")) {
    for (const k of ["tool_calls", "metrics", "reasoning_content", "model_name"]) assert.ok(!(k in s), k);
  }
  // Without tokenIds (`export atif` without --token-ids): the same counts, no ids.
  const counts = valid(t);
  assert.deepEqual(
    counts.steps.map((s) => s.metrics),
    doc.steps.map((s) =>
      s.metrics && {
        prompt_tokens: s.metrics.prompt_tokens,
        completion_tokens: s.metrics.completion_tokens,
      }
    ),
  );
  assert.deepEqual(counts.final_metrics, doc.final_metrics);
  assert.deepEqual(doc.final_metrics?.total_prompt_tokens, 8, "without usage: the token ids' lengths");
  assert.deepEqual(doc.final_metrics?.total_completion_tokens, 3);
  assert.equal(doc.final_metrics?.total_steps, 7);
  assert.equal(doc.final_metrics?.extra?.reward, 1);
  assert.equal(doc.extra?.exit_status, "stop_rule");
  assert.equal(doc.extra?.test_output, "answer=35 expected=35");
  assert.equal(doc.session_id, "abc123/0");
});

Deno.test("atif: usage totals win over token-id counts; no usage and no ids leaves the totals out", () => {
  const msgs: ChatMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: "Answer: 35" }];
  const withUsage = valid(record(msgs, { usage: { prompt_tokens: 40, completion_tokens: 5 } }));
  assert.deepEqual([withUsage.final_metrics?.total_prompt_tokens, withUsage.final_metrics?.total_completion_tokens], [
    40,
    5,
  ]);
  const none = valid(record(msgs));
  assert.ok(!("total_prompt_tokens" in none.final_metrics!));
  assert.equal(none.steps[1].metrics, undefined);
});

Deno.test("atif: a repeated call id is renamed so each result links to one call; an unknown id stays unlinked", () => {
  const doc = valid(record([
    { role: "user", content: "go" },
    { role: "assistant", content: "", tool_calls: [call("a", "{}"), call("a", '{"x":1}')] },
    { role: "tool", tool_call_id: "a", content: "one" },
    { role: "tool", tool_call_id: "a", content: "two" },
    { role: "tool", tool_call_id: "zz", content: "three" },
  ]));
  const s = doc.steps[1];
  assert.deepEqual(s.tool_calls?.map((c) => [c.tool_call_id, c.extra]), [["a", undefined], ["a#2", {
    original_id: "a",
  }]]);
  assert.deepEqual(s.observation?.results, [
    { source_call_id: "a", content: "one" },
    { source_call_id: "a#2", content: "two" },
    { content: "three", extra: { tool_call_id: "zz" } },
  ]);
});

Deno.test("atif: a fenced text protocol: calls read from the text, the reply its observation, a format error a user step", () => {
  const doc = valid(
    record([
      { role: "system", content: "one block per turn" },
      { role: "user", content: "Please solve this task" },
      { role: "assistant", content: "Let me look.\n```mswea_bash_command\nls\n```" },
      { role: "user", content: "<returncode>0</returncode>\n<output>\napp.log\n</output>" },
      { role: "assistant", content: "```mswea_bash_command\nls\n```\n```mswea_bash_command\npwd\n```" },
      { role: "user", content: "Expected exactly 1 action, found 2." },
      { role: "assistant", content: "```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```" },
    ], { profile: "mini-swe-agent-text@2.4.6", tools: [] }),
    FENCED,
  );
  assert.deepEqual(doc.steps.map((s) => s.source), ["system", "user", "agent", "agent", "user", "agent"]);
  assert.ok(!("tool_definitions" in doc.agent), "a text protocol sends no tools");
  assert.deepEqual(doc.steps[2].tool_calls, [{
    tool_call_id: "call_0_1",
    function_name: "bash",
    arguments: { command: "ls" },
  }]);
  assert.deepEqual(doc.steps[2].observation?.results, [
    { source_call_id: "call_0_1", content: "<returncode>0</returncode>\n<output>\napp.log\n</output>" },
  ]);
  assert.equal(doc.steps[3].tool_calls, undefined, "two blocks: a format error, nothing ran");
  assert.equal(doc.steps[4].message, "Expected exactly 1 action, found 2.");
  assert.equal(doc.steps[5].tool_calls?.[0].tool_call_id, "call_2_1");
  assert.equal(doc.steps[5].observation, undefined);
});

Deno.test("atif: terminus-2's JSON protocol: bash_command calls, mark_task_complete, one shared observation", () => {
  const turn = (commands: string, done = false) =>
    JSON.stringify({ analysis: "a", plan: "p", commands: JSON.parse(commands), task_complete: done });
  const doc = valid(
    record([
      { role: "user", content: "You are an AI assistant ... Task Description: count" },
      { role: "assistant", content: "no json here" },
      { role: "user", content: "Previous response had parsing errors:\nERROR: No valid JSON found in response" },
      {
        role: "assistant",
        content: turn('[{"keystrokes":"ls\\n","duration":0.1},{"keystrokes":"pwd\\n","duration":1}]'),
      },
      { role: "user", content: "New Terminal Output:\napp.log" },
      { role: "assistant", content: turn("[]", true) },
      { role: "user", content: "Current terminal state: ... Are you sure you want to mark the task as complete?" },
      { role: "assistant", content: turn("[]", true) },
    ], { profile: "terminus-2@harbor-0.22.0", tools: [] }),
    { kind: "terminus_json" },
  );
  assert.deepEqual(doc.steps.map((s) => s.source), ["user", "agent", "user", "agent", "agent", "agent"]);
  assert.equal(doc.steps[1].tool_calls, undefined);
  assert.deepEqual(doc.steps[3].tool_calls, [
    { tool_call_id: "call_1_1", function_name: "bash_command", arguments: { keystrokes: "ls\n", duration: 0.1 } },
    { tool_call_id: "call_1_2", function_name: "bash_command", arguments: { keystrokes: "pwd\n", duration: 1 } },
  ]);
  assert.deepEqual(doc.steps[3].observation?.results, [{ content: "New Terminal Output:\napp.log" }]);
  assert.deepEqual(doc.steps[4].tool_calls, [
    { tool_call_id: "call_2_task_complete", function_name: "mark_task_complete", arguments: {} },
  ]);
  assert.match(String(doc.steps[4].observation?.results[0].content), /Are you sure/);
});

Deno.test("atif: an unknown text profile keeps every reply as a user step", () => {
  const doc = toAtif(
    record([{ role: "user", content: "go" }, { role: "assistant", content: "```x\nls\n```" }, {
      role: "user",
      content: "out",
    }], { profile: "nowhere@0", tools: [] }),
  );
  assert.deepEqual(validateAtif(doc), []);
  assert.deepEqual(doc.steps.map((s) => s.source), ["user", "agent", "user"]);
  assert.deepEqual(doc.agent.name, "nowhere");
});

Deno.test("atif: assistant turns the row brought before the policy's are copied context, and metrics align after them", () => {
  const doc = valid(
    record([
      { role: "user", content: "example" },
      { role: "assistant", content: "an example answer" },
      { role: "user", content: "now you" },
      { role: "assistant", content: "Answer: 35" },
    ], {
      turns: 1,
      rollout_details: [{ prompt_token_ids: [[5, 6]], completion_token_ids: [[7]], logprobs: [[-1]] }],
    }),
    undefined,
    true,
  );
  assert.equal(doc.steps[1].is_copied_context, true);
  assert.equal(doc.steps[1].metrics, undefined);
  assert.equal(doc.steps[3].is_copied_context, undefined);
  assert.deepEqual(doc.steps[3].metrics?.prompt_token_ids, [5, 6]);
});

Deno.test("atif: profile names split into agent name and version; folder names are stable and unique", () => {
  assert.deepEqual(splitProfile("opencode@1.18.33+exact-edit"), { name: "opencode", version: "1.18.33+exact-edit" });
  assert.deepEqual(splitProfile("terminus-2@harbor-0.22.0"), { name: "terminus-2", version: "harbor-0.22.0" });
  assert.deepEqual(splitProfile("plain"), { name: "plain", version: "" });
  const a = record([], { id: "r1/0", row_id: "r1", task: "org/task one" });
  const b = record([], { id: "r2/0", row_id: "r2", task: "org/task one" });
  const c = record([], { id: "r1/1", row_id: "r1", task: "org/task one", sample: 1 });
  const names = atifDirNames([a, b, c]);
  assert.equal(names.get("r1/0"), "org_task_one__opencode@1.18.33+exact-edit__s0__r1");
  assert.equal(names.get("r2/0"), "org_task_one__opencode@1.18.33+exact-edit__s0__r2");
  assert.equal(names.get("r1/1"), "org_task_one__opencode@1.18.33+exact-edit__s1");
});

async function runDir(records: Trajectory[], tail = ""): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_atif_" });
  await Deno.writeTextFile(
    join(dir, "trajectories.jsonl"),
    records.map((r) => JSON.stringify(r) + "\n").join("") + tail,
  );
  return dir;
}

Deno.test("atif export: one valid file per episode, a torn last line skipped (and left alone), no-prompt episodes skipped", async () => {
  const ok = record([{ role: "user", content: "go" }, { role: "assistant", content: "Answer: 35" }]);
  const infra = record([], {
    id: "def/0",
    row_id: "def",
    reward: null,
    exit_status: "infra_error",
    error: "start: boom",
  });
  const dir = await runDir([ok, infra], '{"format":"pgs.traj');
  const out = join(dir, "atif");
  const done = await exportAtif(dir, out);
  assert.deepEqual(done.skipped, ["def/0"]);
  assert.deepEqual(done.written.map((w) => w.id), ["abc123/0"]);
  const doc = JSON.parse(await Deno.readTextFile(join(out, done.written[0].dir, "trajectory.json")));
  assert.deepEqual(validateAtif(doc), []);
  assert.match(
    await Deno.readTextFile(join(dir, "trajectories.jsonl")),
    /\{"format":"pgs\.traj$/,
    "the run is only read",
  );
  await assert.rejects(exportAtif(dir, out), /exists/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("atif export: an error part-way leaves neither the output nor its partial folder", async () => {
  const a = record([{ role: "user", content: "go" }, { role: "assistant", content: "x" }]);
  const b = record([{ role: "user", content: "go" }, { role: "assistant", content: "y" }], {
    id: "b/0",
    profile: "boom@1",
  });
  const dir = await runDir([a, b]);
  const out = join(dir, "atif");
  const protocolOf = (p: string): Protocol => {
    if (p === "boom@1") throw new Error("no such profile");
    return { kind: "native" };
  };
  await assert.rejects(exportAtif(dir, out, { protocolOf }), /no such profile/);
  await assert.rejects(Deno.stat(out));
  await assert.rejects(Deno.stat(partialPath(out)));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("atif export: tokenIds puts the ids in the files, and needs a run that recorded some", async () => {
  const msgs: ChatMessage[] = [{ role: "user", content: "go" }, { role: "assistant", content: "Answer: 35" }];
  const rollout = [{ prompt_token_ids: [[1, 2]], completion_token_ids: [[3, 4]], logprobs: [[-0.5, -1]] }];
  const dir = await runDir([record(msgs, { rollout_details: rollout })]);
  const read = async (out: string) => {
    const done = await exportAtif(dir, join(dir, out), { tokenIds: out === "ids" });
    return JSON.parse(await Deno.readTextFile(join(dir, out, done.written[0].dir, "trajectory.json")));
  };
  const ids = await read("ids"), counts = await read("counts");
  assert.deepEqual(validateAtif(ids), []);
  assert.deepEqual(ids.steps[1].metrics, {
    prompt_tokens: 2,
    prompt_token_ids: [1, 2],
    completion_tokens: 2,
    completion_token_ids: [3, 4],
    logprobs: [-0.5, -1],
  });
  assert.deepEqual(counts.steps[1].metrics, { prompt_tokens: 2, completion_tokens: 2 });
  const none = await runDir([record(msgs)]);
  await assert.rejects(
    exportAtif(none, join(none, "o"), { tokenIds: true }),
    (e: Error) =>
      e.message === `${join(none, "trajectories.jsonl")}: no episode recorded token ids (run pgs eval ` +
          "with --token-ids or --tokenizer)",
  );
  await assert.rejects(Deno.stat(join(none, "o")));
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(none, { recursive: true });
});

Deno.test("atif export: a bad line names the file and line", async () => {
  const dir = await runDir([record([])], "not json\n");
  await assert.rejects(exportAtif(dir, join(dir, "o")), /trajectories\.jsonl:2: not JSON/);
  await Deno.remove(dir, { recursive: true });
});
