/**
 * Conformance against recordings of the real harnesses made here with `pgs harness capture --local` (opencode-ai
 * 1.18.33, pi 0.73.1, qwen-code 0.24.4 on examples/tasks/count-error-lines; codex 0.171.0, claude-code 2.1.332 and
 * gemini-cli 0.61.0 on fix-word-count), reduced to what the project may carry
 * (lib/conformance/reduce.ts): each profile must show no difference beyond paraphrase.
 */
import assert from "node:assert/strict";
import { basename, dirname, join, resolve } from "node:path";
import { runHarnessDiff } from "../cli/harness_diff.ts";
import { formatReport } from "../lib/conformance/report.ts";
import { reduceRequest } from "../lib/conformance/reduce.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const FIXTURES = resolve(import.meta.dirname!, "fixtures", "recordings");

const GOLDEN = resolve(import.meta.dirname!, "golden");

/** Each recording: its folder, the profile that replays it, and its task (the files the harness saw). */
const FIXTURES_OF: [string, string, string][] = [
  [join(FIXTURES, "opencode"), "opencode", "count-error-lines"],
  [join(FIXTURES, "pi"), "pi", "count-error-lines"],
  [join(FIXTURES, "qwen-code"), "qwen-code", "count-error-lines"],
  // gemini-cli 0.61.0: shell, reads, replace's miss/ambiguity/strategies, writes, glob, grep, ls, argument errors.
  [join(FIXTURES, "gemini-cli"), "gemini-cli", "fix-word-count"],
  // The whole episode: commands, patches that miss, apply, add, delete and are malformed, sessions, truncation.
  [join(GOLDEN, "codex", "episode"), "codex", "fix-word-count"],
  // Unknown tool, arguments serde rejects, a missing workdir, two calls in one turn.
  [join(GOLDEN, "codex", "errors"), "codex", "fix-word-count"],
  // claude-code: Read/Edit/Write results and errors, Bash exit codes, a timeout, a cd outside, unknown tools, bad input.
  [join(GOLDEN, "claude-code", "episode"), "claude-code", "fix-word-count"],
];

for (const [folder, profile, task] of FIXTURES_OF) {
  dockerTest(
    `conformance: ${basename(dirname(folder))}/${
      basename(folder)
    } (${profile}) replays with no difference beyond paraphrase`,
    async (docker) => {
      const dir = folder;
      const { report, code } = await runHarnessDiff(profile, dir, join(EXAMPLE_TASKS, task), docker);
      if (report.differences) console.log(formatReport(report));
      assert.equal(report.differences, 0);
      assert.equal(code, 0);
      assert.ok(report.requests.length >= 2, "a whole episode: a tool call, then the reply");
    },
  );
}

Deno.test("reduce: system prompts, long descriptions and long text parts are left out; schemas and results stay", () => {
  const long = "x".repeat(2500);
  const r = reduceRequest({
    messages: [
      { role: "system", content: long },
      { role: "user", content: [{ type: "text", text: long }, { type: "text", text: "ask" }] },
      { role: "tool", tool_call_id: "c", content: "ok" },
    ],
    tools: [{ type: "function", function: { name: "t", description: long, parameters: { type: "object" } } }],
  });
  assert.match(r.messages[0].content, /system prompt left out of the fixture: 2502 characters/);
  assert.match(r.messages[1].content[0].text, /text left out/);
  assert.equal(r.messages[1].content[1].text, "ask");
  assert.equal(r.messages[2].content, "ok");
  assert.deepEqual(r.tools[0].function.parameters, { type: "object" });
  assert.match(r.tools[0].function.description, /description left out/);
});
