/** `pgs harness diff`: normalisation, script recovery and comparison on synthetic recordings; one real replay. */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { runHarnessDiff } from "../cli/harness_diff.ts";
import { compareRecording, compareTools, deepEqual, type ReplayResult } from "../lib/conformance/compare.ts";
import { retargetTurns } from "../lib/conformance/replay.ts";
import { fnSchema } from "../lib/harness/types.ts";
import {
  cwdFromSystem,
  parseRequests,
  type RecordedRequest,
  recoverScript,
} from "../lib/conformance/load_recording.ts";
import { contentShape, normalizeText } from "../lib/conformance/normalize.ts";
import { formatReport } from "../lib/conformance/report.ts";
import type { ChatMessage, ToolSchema } from "../lib/harness/types.ts";
import { engineTest, requireDocker } from "./docker_helpers.ts";
import { TIER } from "./tier.ts";
import { call, EXAMPLE_TASKS } from "./profile_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const TOOLS: ToolSchema[] = [
  {
    type: "function",
    function: {
      name: "bash",
      description: "Run a command.",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
  },
  {
    type: "function",
    function: {
      name: "read",
      description: "Read a file. ".repeat(30),
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
];

const SYSTEM: ChatMessage = { role: "system", content: "You help.\nCurrent working directory: /tmp/rec/workdir" };
const USER: ChatMessage = { role: "user", content: [{ type: "text", text: "Fix /tmp/rec/workdir/a.py" }] };
const A1: ChatMessage = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_1_0", type: "function", function: { name: "bash", arguments: '{"command":"ls -la"}' } }],
};
const T1: ChatMessage = {
  role: "tool",
  tool_call_id: "call_1_0",
  content: "-rw-r--r-- 1 root root 10 Nov 30 04:30 /tmp/rec/workdir/a.py\ndone call_1_0 at 2026-11-30T04:30:00Z",
};
const A2: ChatMessage = { role: "assistant", content: "ok", tool_calls: [] };

function recorded(): RecordedRequest[] {
  return [
    { messages: [SYSTEM, USER], tools: TOOLS },
    { messages: [SYSTEM, USER, A1, T1], tools: TOOLS },
  ];
}

/** The profile's side of a replay that matches `recorded()` (other cwd, other ids, other dates). */
function replayed(): ReplayResult {
  const sys: ChatMessage = { role: "system", content: "You help (paraphrased).\nCurrent working directory: /workdir" };
  const user: ChatMessage = { role: "user", content: [{ type: "text", text: "Fix /workdir/a.py" }] };
  const tool: ChatMessage = {
    role: "tool",
    tool_call_id: "call_1_0",
    content: "-rw-r--r-- 1 root root 10 Dec  1 09:00 /workdir/a.py\ndone call_9_3 at 2025-01-02T00:00:00Z",
  };
  const tools = structuredClone(TOOLS);
  tools[1].function.description = "Reads a file, paraphrased. ".repeat(20);
  return {
    snapshots: [{ messages: [sys, user], tools }, { messages: [sys, user, structuredClone(A1), tool], tools }],
    workdir: "/workdir",
  };
}

Deno.test("normalizeText replaces workdirs, ids and dates", () => {
  const opts = { workdirs: ["/tmp/rec/workdir", "/workdir"] };
  assert.equal(
    normalizeText("cd /tmp/rec/workdir/x && ls /workdir; id call_3_1 on 2026-11-30 at Nov 30 04:30", opts),
    "cd {workdir}/x && ls {workdir}; id {id} on {date} at {date}",
  );
  assert.equal(normalizeText("/workdirs stays", opts), "/workdirs stays");
  assert.equal(contentShape(null), "null");
  assert.equal(contentShape(""), '""');
  assert.equal(contentShape("x"), "string");
  assert.equal(contentShape([{ type: "text", text: "x" }]), "parts[1]");
  assert.ok(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
  assert.ok(!deepEqual({ a: [1, 2] }, { a: [2, 1] }));
});

Deno.test("parseRequests skips side requests; the script and cwd are recovered", () => {
  const lines = [
    JSON.stringify({ messages: [USER], max_tokens: 10 }), // a title request, no tools
    ...recorded().map((r) => JSON.stringify(r)),
  ].join("\n");
  const reqs = parseRequests(lines);
  assert.equal(reqs.length, 2);
  assert.equal(cwdFromSystem(reqs), "/tmp/rec/workdir");
  const script = recoverScript(reqs);
  assert.equal(script.length, 1);
  assert.equal(script[0].content, null);
  assert.equal(script[0].tool_calls?.[0].function.name, "bash");
});

Deno.test("a matching recording shows no differences (paraphrases only)", () => {
  const r = compareRecording("p", "rec", recorded(), replayed(), "/tmp/rec/workdir");
  const text = formatReport(r);
  assert.equal(r.differences, 0, text);
  assert.equal(r.paraphrases, 2, text); // the system prompt and read's long description
  assert.match(text, /request 0: same/);
  assert.match(text, /request 1: same/);
});

Deno.test("a changed parameter schema is reported", () => {
  const rep = replayed();
  for (const s of rep.snapshots) {
    s.tools[0].function.parameters = { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] };
  }
  const r = compareRecording("p", "rec", recorded(), rep, "/tmp/rec/workdir");
  assert.equal(r.differences, 1); // tools unchanged since request 0 are not compared again
  assert.ok(r.requests[0].findings.some((f) => f.aspect === "tool bash: parameters" && f.status === "diff"));
  assert.match(formatReport(r), /DIFF\s+tool bash: parameters/);
});

Deno.test("a changed tool result string is reported", () => {
  const rep = replayed();
  rep.snapshots[1].messages[3] = { role: "tool", tool_call_id: "call_1_0", content: "Error: no such file" };
  const r = compareRecording("p", "rec", recorded(), rep, "/tmp/rec/workdir");
  assert.equal(r.differences, 1);
  const f = r.requests[1].findings.find((f) => f.status === "diff")!;
  assert.equal(f.aspect, "tool result 1: text");
  assert.match(f.actual!, /no such file/);
});

Deno.test("a changed echo content shape, user wrapping and early end are reported", () => {
  const rep = replayed();
  rep.snapshots[1].messages[2] = { ...A1, content: "" };
  rep.snapshots[0].messages[1] = { role: "user", content: "Fix /workdir/a.py" };
  let r = compareRecording("p", "rec", recorded(), rep, "/tmp/rec/workdir");
  const diffs = r.requests.flatMap((q) => q.findings).filter((f) => f.status === "diff").map((f) => f.aspect);
  assert.deepEqual(diffs, ["user message: shape", "assistant echo: content shape"]);

  const early: ReplayResult = { ...replayed(), doneAfter: 0 };
  early.snapshots.pop();
  r = compareRecording("p", "rec", recorded(), early, "/tmp/rec/workdir");
  assert.equal(r.end.status, "diff");
  assert.equal(r.requests[1].findings[0].actual, "episode already ended");
  assert.equal(r.differences, 2);

  r = compareRecording("p", "rec", recorded(), { ...replayed(), finalDone: false }, "/tmp/rec/workdir");
  assert.equal(r.end.status, "diff");
  void A2;
});

// Recordings stay out of the repository, so CI never has this one: without it the replay is ignored, in CI as well.
// With it, the test needs the Docker engine like every Docker test (ignored without one outside CI, failing in CI).
// The recordings folder is named by PGS_RECORDINGS (unset: none).
const RECORDINGS = Deno.env.get("PGS_RECORDINGS");
const RUN2 = `${RECORDINGS}/pi/run2`;
const haveRun2 = RECORDINGS !== undefined &&
  await Deno.stat(`${RUN2}/requests.jsonl`).then(() => true, () => false);
if (!haveRun2 && TIER === "ci") {
  const why = RECORDINGS === undefined
    ? "PGS_RECORDINGS names no recordings folder"
    : `${RUN2}/requests.jsonl is absent`;
  console.error(`note: ${why}; the end-to-end pi replay is ignored`);
}

engineTest({
  name:
    "pgs harness diff: pi against the pi run2 recording, real container (needs a local recording: ignored without one)",
  ignore: !haveRun2,
  fn: async () => {
    const docker = requireDocker();
    const { report, code } = await runHarnessDiff("pi", RUN2, resolve(EXAMPLE_TASKS, "fix-word-count"), docker);
    console.log(formatReport(report));
    console.log(`pi run2: ${report.differences} difference(s), ${report.paraphrases} paraphrase(s)`);
    assert.ok(report.requests.length > 0);
    assert.equal(report.requests.length, parseRequests(await Deno.readTextFile(`${RUN2}/requests.jsonl`)).length);
    assert.ok(report.requests.every((r) => r.findings.length > 0));
    assert.equal(code, report.differences ? 1 : 0);
  },
});

Deno.test("conformance: recorded paths are retargeted to the container; tools left out by design are not differences", () => {
  const turns = retargetTurns(
    [{ content: "see /tmp/rec/workdir/a", tool_calls: [call("read", { path: "/tmp/rec/workdir/a.py" })] }],
    "/tmp/rec/workdir/",
    "/workdir",
  );
  assert.equal(turns[0].content, "see /workdir/a");
  assert.equal(turns[0].tool_calls![0].function.arguments, '{"path":"/workdir/a.py"}');
  const recorded = [fnSchema("read", "r", {}, []), fnSchema("skill", "s", {}, []), fnSchema("bash", "b", {}, [])];
  const ours = [fnSchema("read", "r", {}, []), fnSchema("bash", "b", {}, [])];
  const found = compareTools(recorded, ours, { workdirs: [], omittedTools: ["skill"] });
  assert.equal(found.filter((f) => f.status === "diff").length, 0);
  assert.ok(found.some((f) => f.aspect === "tools left out by design" && f.expected === "skill"));
  assert.equal(compareTools(recorded, ours, { workdirs: [] }).filter((f) => f.status === "diff").length, 1);
});

Deno.test("conformance: user-message parts a profile paraphrases are reported, the others compared", () => {
  const parts = (...t: string[]) => t.map((text) => ({ type: "text" as const, text }));
  const req = (content: ChatMessage["content"]) => ({ messages: [{ role: "user" as const, content }], tools: [] });
  const rep = (content: ChatMessage["content"]): ReplayResult => ({
    snapshots: [{ messages: [{ role: "user", content }], tools: [] }],
    workdir: "/workdir",
    doneAfter: 0,
  });
  const r = compareRecording(
    "p",
    "rec",
    [req(parts("skills: a, b", "env /w", "ask"))],
    rep(parts("skills", "env /w", "ask")),
    "/w",
    [],
    [0],
  );
  assert.equal(r.differences, 0);
  assert.ok(r.paraphrases >= 1);
  const bad = compareRecording(
    "p",
    "rec",
    [req(parts("skills", "env /w", "ask"))],
    rep(parts("skills", "env /x", "ask")),
    "/w",
    [],
    [0],
  );
  assert.equal(bad.differences, 1);
});
