/**
 * codex@0.171.0: schemas as recorded (tests/golden/codex/tools.json), the first request's messages in chat form, the
 * output wording and truncation against codex's own worked examples, sessions (a command that keeps running, input
 * on a tty, a closed stdin), and apply_patch interception in a real container. The recorded episodes replay call by
 * call in tests/conformance_fixtures_test.ts; the oracle on the example tasks is in tests/profiles_suite_test.ts.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { codex } from "./mod.ts";
import { formattedTruncateText, responseText, truncateText } from "./output.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { EXAMPLE_TASKS, runTool, withEpisode, withLocalEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "codex");
const FIX = resolve(EXAMPLE_TASKS, "fix-word-count");

Deno.test("codex: the tools are the recorded Responses tools, in chat form", async () => {
  const recorded = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "tools.json"))) as Record<string, unknown>[];
  const chat = recorded.map(({ type, name, description, strict, parameters }) => ({
    type,
    function: { name, description, strict, parameters },
  }));
  assert.deepEqual(codex().tools.map((t) => t.schema), chat);
  // Key order as codex serialises them (serde keeps the struct's order; properties sorted as in its BTreeMap).
  assert.deepEqual(
    JSON.stringify(codex().tools.map((t) => t.schema.function.parameters)),
    JSON.stringify(recorded.map((t) => t.parameters)),
  );
});

Deno.test("codex: the first request is base instructions, developer text, environment context, then the task", async () => {
  // deno-lint-ignore require-await
  await withLocalEpisode(codex(), FIX, async (ep) => {
    const roles = ep.messages.map((m) => m.role);
    assert.deepEqual(roles, ["system", "system", "user", "user"]);
    const env = ep.messages[2].content as { text: string }[];
    assert.equal(env.length, 1);
    const date = new Date().toISOString().slice(0, 10);
    assert.equal(
      env[0].text,
      `<environment_context>\n  <cwd>${ep.session.workdir}</cwd>\n  <shell>bash</shell>\n  <current_date>${date}</current_date>\n` +
        `  <timezone>Etc/UTC</timezone>\n  <filesystem><workspace_roots><root>${ep.session.workdir}</root></workspace_roots>` +
        '<permission_profile type="disabled"><file_system type="unrestricted" /></permission_profile></filesystem>\n' +
        "</environment_context>",
    );
    assert.match((ep.messages[3].content as { text: string }[])[0].text, /^The word counter in `\/workdir`/);
  });
});

Deno.test("codex: truncation as codex's own tests and the recording show it", () => {
  // codex-rs/core/tests/suite/code_mode.rs: 40 bytes under a 5-token budget.
  const s = "0123456789".repeat(4);
  assert.equal(truncateText(s, { tokens: 5 }), "0123456789…5 tokens truncated…0123456789");
  assert.equal(
    formattedTruncateText(s, { tokens: 5 }),
    "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n0123456789…5 tokens truncated…0123456789",
  );
  // Bytes, on character boundaries: a 3-byte character is never split.
  assert.equal(truncateText("€€€€", { bytes: 6 }), "€…2 chars truncated…€");
  const text = responseText({
    chunkId: "abc123",
    wallSeconds: 0.5,
    exitCode: null,
    sessionId: 4242,
    originalTokenCount: 0,
    output: "",
    omittedBytes: 0,
  });
  assert.equal(
    text,
    "Chunk ID: abc123\nWall time: 0.5000 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n",
  );
});

dockerTest(
  "codex: a command that keeps running keeps a session; a tty takes input; a pipe's stdin is closed",
  async (docker) => {
    await withEpisode(docker, codex(), FIX, async (ep) => {
      const started = await runTool(ep, "exec_command", { cmd: "read x; echo got:$x", tty: true, yield_time_ms: 300 });
      const id = Number(started.match(/Process running with session ID (\d+)\n/)?.[1]);
      assert.ok(id >= 1000 && id < 100000, started);
      const fed = await runTool(ep, "write_stdin", { session_id: id, chars: "hello\n", yield_time_ms: 2000 });
      assert.match(fed, /\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nhello\r\ngot:hello\r\n$/);
      assert.equal(
        await runTool(ep, "write_stdin", { session_id: id, chars: "" }),
        `write_stdin failed: Unknown process id ${id}`,
      );
      const sleeper = await runTool(ep, "exec_command", { cmd: "sleep 30", yield_time_ms: 250 });
      const sid = Number(sleeper.match(/session ID (\d+)/)?.[1]);
      assert.equal(
        await runTool(ep, "write_stdin", { session_id: sid, chars: "abc" }),
        "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
      );
      // Ctrl-C interrupts a session whose stdin is closed.
      const stopped = await runTool(ep, "write_stdin", { session_id: sid, chars: "\u0003", yield_time_ms: 2000 });
      assert.match(stopped, /\nProcess exited with code 130\n/);
    });
  },
);

dockerTest("codex: apply_patch heredocs are applied by the harness, other commands run", async (docker) => {
  await withEpisode(docker, codex(), FIX, async (ep, _score, box) => {
    const patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\nEOF";
    assert.equal(
      await runTool(ep, "exec_command", { cmd: patch }),
      "Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0 seconds\nOutput:\n" +
        "Success. Updated the following files:\nA notes.txt\n",
    );
    assert.equal(new TextDecoder().decode((await box.exec("cat notes.txt")).stdout), "hi\n");
    // Not the whole script: the shell runs it, and the container has no apply_patch.
    const chained = await runTool(ep, "exec_command", { cmd: `${patch} && echo done` });
    assert.match(chained, /\nProcess exited with code 127\n/);
    assert.equal(
      await runTool(ep, "exec_command", { cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF" }),
      "patch rejected: empty patch",
    );
  });
});
