/**
 * `pgs export atif` and `pgs export sft` on real eval runs against the engine: an oracle run over several profiles
 * (native and text protocols, passes and fails), and a run through the stub with token ids and a format error. Every
 * exported trajectory.json is checked by the ATIF validator; the SFT row count is the summary's pass count.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Summary } from "../lib/eval/records/summary.ts";
import { latestById, readTrajectories, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { splitProfile } from "../lib/export/atif.ts";
import type { AtifTrajectory } from "../lib/export/atif_types.ts";
import { validateAtif } from "../lib/export/atif_validate.ts";
import { sftRow } from "../lib/export/sft.ts";
import { dockerTest } from "./docker_helpers.ts";
import { assertSummaryMatches, pgs, pgsEval, stubEval } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const FIX = join(EXAMPLE_TASKS, "fix-word-count");

/** Every exported document of `dir`, by folder, each checked by the validator. */
async function exported(dir: string): Promise<Map<string, AtifTrajectory>> {
  const docs = new Map<string, AtifTrajectory>();
  for await (const e of Deno.readDir(dir)) {
    assert.ok(e.isDirectory, e.name);
    const doc = JSON.parse(await Deno.readTextFile(join(dir, e.name, "trajectory.json")));
    assert.deepEqual(validateAtif(doc), [], e.name);
    docs.set(e.name, doc);
  }
  return docs;
}

/** What every document must say of its episode, whatever the profile. */
function assertEpisode(doc: AtifTrajectory, t: Trajectory): void {
  assert.equal(doc.schema_version, "ATIF-v1.7");
  assert.deepEqual({ name: doc.agent.name, version: doc.agent.version }, splitProfile(t.profile));
  assert.deepEqual(doc.agent.tool_definitions ?? [], t.tools, "the tools as the episode sent them");
  assert.deepEqual(doc.steps.map((s) => s.step_id), doc.steps.map((_, i) => i + 1));
  const agents = doc.steps.filter((s) => s.source === "agent");
  assert.equal(agents.length, t.messages.filter((m) => m.role === "assistant").length);
  assert.equal(doc.steps[0].source, t.messages[0].role === "system" ? "system" : "user");
  // Every tool result is an observation of the agent step holding its call.
  for (const m of t.messages.filter((m) => m.role === "tool")) {
    const step = agents.find((s) => s.tool_calls?.some((c) => c.tool_call_id === m.tool_call_id))!;
    const r = step.observation!.results.find((r) => r.source_call_id === m.tool_call_id)!;
    assert.deepEqual(r.content, m.content);
  }
  assert.equal(doc.final_metrics?.total_steps, doc.steps.length);
  assert.equal(doc.final_metrics?.extra?.reward, t.reward);
  assert.equal(doc.extra?.exit_status, t.exit_status);
  assert.equal(doc.extra?.test_output, t.test_output);
}

dockerTest("export atif/sft: an oracle run over native and text profiles, passes and fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_run_export_" });
  const rows = [
    ...["opencode", "claude-code", "mini-swe-agent-text", "terminus-2", "swe-agent"].map((p) => [COUNT, p]),
    [FIX, "opencode"],
  ].map(([task_dir, harness_profile]) => JSON.stringify({ task_dir, harness_profile }));
  await Deno.writeTextFile(join(dir, "rows.jsonl"), rows.join("\n") + "\n");
  const run = join(dir, "run");
  const r = await pgsEval(["--tasks", join(dir, "rows.jsonl"), "--policy", "oracle", "--out", run]);
  assert.equal(r.code, 0, r.stderr);
  const { summary, ts } = await assertSummaryMatches(run);
  // terminus-2 and swe-agent have no reply channel: the reply-graded task scores 0 under them.
  assert.deepEqual([summary.overall.episodes, summary.overall.passes], [6, 4]);

  const atif = join(dir, "atif");
  const a = await pgs(["export", "atif", run, atif]);
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stderr, /wrote 6 ATIF trajectories/);
  const docs = await exported(atif);
  assert.equal(docs.size, ts.length);
  for (const t of ts) {
    const doc = [...docs.values()].find((d) => d.trajectory_id === t.id)!;
    assertEpisode(doc, t);
  }
  const byProfile = (p: string) => [...docs.entries()].find(([name]) => name.includes(`__${p}@`))![1];
  const terminus = byProfile("terminus-2");
  assert.equal(terminus.steps[0].source, "user", "terminus-2 sends its whole prompt as the user turn");
  const keys = terminus.steps.flatMap((s) => s.tool_calls ?? []).map((c) => c.function_name);
  assert.ok(keys.includes("bash_command") && keys.includes("mark_task_complete"), keys.join());
  assert.match(String(terminus.steps[1].observation?.results[0].content), /Answer: 35/);
  const text = byProfile("mini-swe-agent-text");
  const first = text.steps.find((s) => s.source === "agent")!;
  assert.equal(first.tool_calls?.[0].function_name, "bash");
  assert.equal(first.observation?.results[0].source_call_id, first.tool_calls?.[0].tool_call_id);
  assert.match(String(first.observation?.results[0].content), /<returncode>0<\/returncode>/);

  const sft = join(dir, "sft.jsonl");
  const s = await pgs(["export", "sft", run, sft]);
  assert.equal(s.code, 0, s.stderr);
  const lines = (await Deno.readTextFile(sft)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, summary.overall.passes);
  const passing = ts.filter((t) => t.reward !== null && t.reward >= summary.pass_threshold);
  for (const row of lines) assert.equal(row.messages.at(-1)?.role, "assistant");
  assert.deepEqual(lines, passing.map((t) => sftRow(t)));
  const all = await pgs(["export", "sft", run, join(dir, "all.jsonl"), "--min-reward", "0"]);
  assert.equal(all.code, 0, all.stderr);
  assert.equal((await Deno.readTextFile(join(dir, "all.jsonl"))).trim().split("\n").length, 6);

  // Usage errors: one line naming the argument, nothing written.
  const again = await pgs(["export", "atif", run, atif]);
  assert.equal(again.code, 2);
  assert.equal(again.stderr.trim().split("\n").length, 1);
  assert.match(again.stderr, /exists/);
  const notRun = await pgs(["export", "atif", dir, join(dir, "nowhere")]);
  assert.equal(notRun.code, 2);
  assert.match(notRun.stderr, /no trajectories\.jsonl/);
  await assert.rejects(Deno.stat(join(dir, "nowhere")));
  const badFlag = await pgs(["export", "sft", run, join(dir, "x.jsonl"), "--min-reward", "high"]);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /--min-reward must be a number/);
  const group = await pgs(["export"]);
  assert.match(group.stdout, /pgs export atif[\s\S]*pgs export sft/);
  const leftovers = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.includes(".partial-"));
  assert.deepEqual(leftovers, []);
  await Deno.remove(dir, { recursive: true });
});

dockerTest("export atif/sft: token ids become per-step metrics; a format error is a user step", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_run_export_" });
  // mini-swe-agent ends on its sentinel: a reply without a call is a format error, answered by a user message.
  const turns = [
    { content: "Let me count them." },
    { tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }] },
    {
      tool_calls: [{
        name: "bash",
        arguments: { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo 'Answer: 35'" },
      }],
    },
  ];
  const run = join(dir, "run");
  await stubEval(dir, turns, ["--tasks", COUNT, "--profile", "mini-swe-agent", "--token-ids", "--out", run]);
  const [t] = latestById(readTrajectories(join(run, "trajectories.jsonl")));
  assert.equal(t.reward, 1, t.answer);
  assert.equal(t.counters.format_errors, 1);
  const rd = t.rollout_details![0];
  assert.equal(rd.prompt_token_ids.length, 3);

  const atif = join(dir, "atif");
  const a = await pgs(["export", "atif", run, atif, "--token-ids"]);
  assert.equal(a.code, 0, a.stderr);
  const [doc] = [...(await exported(atif)).values()];
  assertEpisode(doc, t);
  assert.equal(doc.agent.model_name, "stub-model");
  const agents = doc.steps.filter((s) => s.source === "agent");
  agents.forEach((s, i) => {
    assert.deepEqual(s.metrics?.prompt_token_ids, rd.prompt_token_ids[i], `turn ${i}`);
    assert.deepEqual(s.metrics?.completion_token_ids, rd.completion_token_ids[i]);
    assert.deepEqual(s.metrics?.logprobs, rd.logprobs[i]);
    assert.equal(s.metrics?.prompt_tokens, rd.prompt_token_ids[i].length);
    assert.equal(s.metrics?.completion_tokens, rd.completion_token_ids[i].length);
  });
  // The format error: the step after the first agent turn is the harness's user message, word for word.
  const at = doc.steps.indexOf(agents[0]);
  const inserted = t.messages[t.messages.indexOf(t.messages.filter((m) => m.role === "assistant")[0]) + 1];
  assert.equal(inserted.role, "user");
  assert.deepEqual([doc.steps[at + 1].source, doc.steps[at + 1].message], ["user", inserted.content]);
  assert.equal(agents[0].tool_calls, undefined);
  const sum = (k: "prompt_token_ids" | "completion_token_ids") => rd[k].reduce((n, ids) => n + ids.length, 0);
  assert.equal(doc.final_metrics?.total_prompt_tokens, t.usage?.prompt_tokens ?? sum("prompt_token_ids"));
  assert.equal(doc.final_metrics?.total_completion_tokens, t.usage?.completion_tokens ?? sum("completion_token_ids"));

  const sft = join(dir, "sft.jsonl");
  assert.equal((await pgs(["export", "sft", run, sft])).code, 0);
  const summary = JSON.parse(await Deno.readTextFile(join(run, "summary.json"))) as Summary;
  const lines = (await Deno.readTextFile(sft)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, summary.overall.passes);
  assert.deepEqual(lines[0].messages, t.messages.slice(0, t.messages.findLastIndex((m) => m.role === "assistant") + 1));
  assert.ok(lines[0].messages.some((m: { content: unknown }) => m.content === inserted.content), "the format error");
  await Deno.remove(dir, { recursive: true });
});
