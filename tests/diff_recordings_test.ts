/**
 * `pgs harness diff --baseline OLD --recording NEW`: two recordings of a harness made with one script (two versions)
 * compared with every text exact: tool names and order, schemas, descriptions (long ones too), the system prompt, the
 * wording of a tool result, the settings beside messages and tools, and the number of requests.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { compareRecordings } from "../lib/conformance/compare.ts";
import { loadRecording } from "../lib/conformance/load_recording.ts";
import { pgs } from "./eval_helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const tool = (name: string, description: string) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties: { command: { type: "string" } } } },
});

/** A two-request chat recording: the first request, then the history after one shell call and its result. */
function recording(o: { system: string; tools: Json[]; result: string; temperature: number; cwd: string }): Json[] {
  const first = [
    { role: "system", content: `${o.system}\nCwd: ${o.cwd}` },
    { role: "user", content: "Count the ERROR lines." },
  ];
  const call = { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"grep -c x"}' } };
  return [
    { model: "m", messages: first, tools: o.tools, temperature: o.temperature },
    {
      model: "m",
      messages: [...first, { role: "assistant", content: null, tool_calls: [call] }, {
        role: "tool",
        tool_call_id: "call_1",
        content: o.result,
      }],
      tools: o.tools,
      temperature: o.temperature,
    },
  ];
}

async function write(dir: string, bodies: Json[], cwd: string, home = "/h", bin = "h"): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "requests.jsonl"), bodies.map((b) => JSON.stringify(b)).join("\n") + "\n");
  await Deno.writeTextFile(join(dir, "command.json"), JSON.stringify({ argv: [bin], env: { HOME: home }, cwd }));
}

const LONG = "A long description. ".repeat(20);

Deno.test("diff --baseline: what a new version changed, every text exact; the same recording twice differs nowhere", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_diff_recs_" });
  try {
    const old = recording({
      system: "You are h 1.0.",
      tools: [tool("bash", LONG), tool("read", "Reads.")],
      result: "35",
      temperature: 0,
      cwd: "/tmp/a/workdir",
    });
    const next = recording({
      system: "You are h 1.1.",
      tools: [tool("bash", LONG + "Now faster."), tool("read", "Reads."), tool("todo", "Keeps a list.")],
      result: "Output: 35",
      temperature: 0.7,
      cwd: "/tmp/b/workdir",
    });
    await write(join(dir, "old"), old, "/tmp/a/workdir");
    await write(join(dir, "new"), next, "/tmp/b/workdir");
    await write(join(dir, "again"), old, "/tmp/c/workdir");
    const report = compareRecordings(await loadRecording(join(dir, "old")), await loadRecording(join(dir, "new")));
    const diffs = report.requests.flatMap((r) => r.findings).filter((f) => f.status === "diff").map((f) => f.aspect);
    assert.deepEqual(
      diffs.sort(),
      [
        "settings: temperature",
        "system prompt",
        "tool bash: description", // a long one: compared exactly, not as a paraphrase
        "tool result 1: text",
        "tools: names and order",
      ].sort(),
    );
    assert.equal(report.paraphrases, 0);
    // The working directories differ between the two captures: normalised, not a difference.
    const same = compareRecordings(await loadRecording(join(dir, "old")), await loadRecording(join(dir, "again")));
    assert.equal(
      same.differences,
      0,
      JSON.stringify(same.requests.flatMap((r) => r.findings).filter((f) => f.status !== "same")),
    );

    const cli = await pgs(["harness", "diff", "--baseline", join(dir, "old"), "--recording", join(dir, "new")]);
    assert.equal(cli.code, 1);
    assert.match(cli.stdout, /^conformance: recording .*old vs recording .*new \(2 requests\)$/m);
    assert.equal(
      (await pgs(["harness", "diff", "--baseline", join(dir, "old"), "--recording", join(dir, "again")])).code,
      0,
    );
    const bad = await pgs([
      "harness",
      "diff",
      "--baseline",
      join(dir, "old"),
      "--recording",
      join(dir, "new"),
      "--profile",
      "pi",
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--baseline compares two recordings/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("diff --baseline: two installs' HOME, install folder and working-directory name are not differences", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_diff_paths_" });
  try {
    const body = (v: string, home: string, cwd: string) =>
      recording({
        system: `Docs: /opt/${v}/node_modules/h/README.md; config in ${home}/.h; project ${cwd.replaceAll("/", "-")}`,
        tools: [tool("bash", "Runs.")],
        result: "35",
        temperature: 0,
        cwd,
      });
    await write(
      join(dir, "a"),
      body("1.0", "/tmp/a/home", "/tmp/a/wd"),
      "/tmp/a/wd",
      "/tmp/a/home",
      "/opt/1.0/node_modules/h/bin/h",
    );
    await write(
      join(dir, "b"),
      body("0.9", "/tmp/b/home", "/tmp/b/wd"),
      "/tmp/b/wd",
      "/tmp/b/home",
      "/opt/0.9/node_modules/h/bin/h",
    );
    const r = compareRecordings(await loadRecording(join(dir, "a")), await loadRecording(join(dir, "b")));
    assert.equal(
      r.differences,
      0,
      JSON.stringify(r.requests.flatMap((q) => q.findings).filter((f) => f.status !== "same")),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
