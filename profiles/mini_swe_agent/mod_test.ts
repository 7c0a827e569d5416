/**
 * mini-swe-agent@2.4.6 and mini-swe-agent-text@2.4.6 in a real container: observations and format errors byte for byte
 * against goldens rendered by jinja2 from the upstream templates (tests/golden/mini-swe-agent/gen.py), the sentinel
 * stop and Python's json error texts (the oracle under both profiles is in tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import { fnSchema } from "../../lib/harness/types.ts";
import { miniSweAgent, miniSweAgentText, MSWEA_SENTINEL, renderToolObservation } from "./mod.ts";
import { pyJsonLoads } from "../../lib/harness/lang/python_text.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { call, EXAMPLE_TASKS, withEpisode } from "../../tests/profile_helpers.ts";

const FIX = join(EXAMPLE_TASKS, "fix-word-count");
const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "mini-swe-agent");
const golden = (name: string) => Deno.readTextFile(join(GOLDEN, `${name}.txt`));

/** One native turn of bash calls; returns the observations' contents. */
async function bash(ep: ProfileEpisode, ...commands: string[]): Promise<string[]> {
  const r = await ep.step({ content: "", tool_calls: commands.map((command) => call("bash", { command })) });
  return r.observations.map((m) => String(m.content));
}

/** Whether a path exists in the episode's container. */
async function exists(ep: ProfileEpisode, path: string): Promise<boolean> {
  return (await ep.session.exec(`test -e '${path}'`, { shell: "sh" })).exitCode === 0;
}

Deno.test("mini-swe-agent: profile data", () => {
  const p = miniSweAgent();
  assert.equal(`${p.name}@${p.version}`, "mini-swe-agent@2.4.6");
  assert.deepEqual(p.tools.map((t) => t.schema), [{
    type: "function",
    function: {
      name: "bash",
      description: "Execute a bash command",
      parameters: {
        type: "object",
        properties: { command: { type: "string", description: "The bash command to execute" } },
        required: ["command"],
      },
    },
  }]);
  assert.equal(
    JSON.stringify(p.tools[0].schema),
    '{"type":"function","function":{"name":"bash","description":"Execute a bash command","parameters":' +
      '{"type":"object","properties":{"command":{"type":"string","description":"The bash command to execute"}},' +
      '"required":["command"]}}}',
  );
  assert.deepEqual(
    p.tools[0].schema,
    fnSchema("bash", "Execute a bash command", {
      command: { type: "string", description: "The bash command to execute" },
    }, ["command"]),
  );
  assert.deepEqual(p.protocol, { kind: "native" });
  assert.deepEqual(p.stop, { kind: "sentinel", text: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" });
  assert.deepEqual(p.answer, { kind: "stop_answer", fallback: "none" });
  assert.equal(p.execTimeout, 30);
  assert.equal(p.emulates.harness, "mini-swe-agent");
  assert.equal(p.emulates.version, "2.4.6");
  assert.ok(p.emulates.sources.some((s) => s.endsWith("actions_toolcall.py")));
  assert.ok(p.user.includes("{instruction}") && p.user.includes(MSWEA_SENTINEL));

  const t = miniSweAgentText();
  assert.equal(`${t.name}@${t.version}`, "mini-swe-agent-text@2.4.6");
  assert.deepEqual(t.protocol, { kind: "fenced", lang: "mswea_bash_command", tool: "bash", arg: "command" });
  assert.deepEqual(t.stop, p.stop);
  assert.deepEqual(t.answer, p.answer);
  assert.ok(t.system.includes("mswea_bash_command") && t.user.includes("{instruction}"));
});

Deno.test("mini-swe-agent: json.loads error texts as CPython 3.11/3.12 words them", () => {
  const err = (raw: string) => {
    const r = pyJsonLoads(raw);
    return "error" in r ? r.error : `ok ${JSON.stringify(r.value)}`;
  };
  assert.equal(err(""), "Expecting value: line 1 column 1 (char 0)");
  assert.equal(err("{not json"), "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
  assert.equal(err('{"command": "ls"'), "Expecting ',' delimiter: line 1 column 17 (char 16)");
  assert.equal(err('{"command": "ls"} x'), "Extra data: line 1 column 19 (char 18)");
  assert.equal(err('{"command" "ls"}'), "Expecting ':' delimiter: line 1 column 12 (char 11)");
  assert.equal(err('{"command": "a\nb"}'), "Invalid control character at: line 1 column 15 (char 14)");
  assert.equal(err('{"command": "\\x"}'), "Invalid \\escape: line 1 column 14 (char 13)");
  assert.equal(err('{"command": "\\u12"}'), "Invalid \\uXXXX escape: line 1 column 15 (char 14)");
  assert.equal(err('{"command": "ls'), "Unterminated string starting at: line 1 column 13 (char 12)");
  assert.equal(err('\n{"😀": }'), "Expecting value: line 2 column 7 (char 7)");
  assert.equal(err('{"command": "ls", "n": NaN}'), 'ok {"command":"ls","n":null}');
});

dockerTest("mini-swe-agent: observations byte for byte (small, escaping, long, timeout)", async (docker) => {
  const p = miniSweAgent();
  p.execTimeout = 2;
  await withEpisode(docker, p, FIX, async (ep) => {
    assert.deepEqual(ep.messages.map((m) => m.role), ["system", "user"]);
    assert.ok(String(ep.messages[1].content).includes("wordcount.py"), "the instruction is in the user message");

    const r = await ep.step({ content: "Look.", tool_calls: [call("bash", { command: "echo hello" })] });
    assert.equal(r.done, false);
    assert.equal(r.observations.length, 1);
    assert.equal(r.observations[0].role, "tool");
    assert.equal(r.observations[0].tool_call_id, ep.messages[2].tool_calls![0].id);
    assert.equal(r.observations[0].content, await golden("tool_small"));
    assert.equal(r.observations[0].content, '{\n  "returncode": 0,\n  "output": "hello\\n"\n}');

    // Quotes, <>&, stderr merged, and /bin/sh -c's own wording of errors.
    const [quotes] = await bash(ep, `printf '%s\\n' "it's <a> & \\"b\\""; nosuchcmd`);
    assert.equal(quotes, await golden("tool_quotes"));

    const [long] = await bash(ep, "seq 1 3000");
    assert.equal(long, await golden("tool_long"));
    const parsed = JSON.parse(long);
    assert.equal(parsed.elided_chars, 13893 - 10000);
    assert.equal(parsed.output_head.length, 5000);
    assert.ok(parsed.output_head.startsWith("1\n2\n3\n"));
    assert.ok(parsed.output_tail.endsWith("2999\n3000\n"));
    assert.equal(parsed.warning, "Output too long.");

    const [timeout] = await bash(ep, "echo partial; sleep 10");
    assert.equal(timeout, await golden("tool_timeout"));
    assert.ok(timeout.includes("timed out after 2 seconds"));

    // Several calls in one turn all run, in order, each with its own tool message; no state carries over.
    const two = await ep.step({
      content: "",
      tool_calls: [
        call("bash", { command: "cd /tmp && export X=1 && pwd" }),
        call("bash", { command: 'pwd; echo "[$X]"' }),
      ],
    });
    assert.deepEqual(two.observations.map((m) => m.content), [
      '{\n  "returncode": 0,\n  "output": "/tmp\\n"\n}',
      '{\n  "returncode": 0,\n  "output": "/workdir\\n[]\\n"\n}',
    ]);
    // Universal newlines, as subprocess text mode gives them.
    const [crlf] = await bash(ep, "printf 'a\\r\\nb\\rc'");
    assert.equal(crlf, '{\n  "returncode": 0,\n  "output": "a\\nb\\nc"\n}');
  });
});

dockerTest("mini-swe-agent: format errors byte for byte; nothing of a rejected turn runs", async (docker) => {
  // Many format errors in a row here; the limit of three (RepeatedFormatError) has a test of its own.
  await withEpisode(docker, { ...miniSweAgent(), maxFormatErrors: undefined }, FIX, async (ep) => {
    const formatError = async (turn: Parameters<ProfileEpisode["step"]>[0], name: string) => {
      const r = await ep.step(turn);
      assert.equal(r.done, false);
      assert.equal(r.observations.length, 1);
      assert.equal(r.observations[0].role, "user");
      assert.equal(r.observations[0].content, await golden(`tool_error_${name}`), name);
    };
    await formatError({ content: "I am done." }, "no_tool_calls");
    await formatError({
      content: "",
      tool_calls: [call("bash", { command: "touch /tmp/ran1" }), call("bash", null, '{"command": "ls",}')],
    }, "bad_json");
    await formatError({ content: "", tool_calls: [call("bash", null, "")] }, "empty_args");
    await formatError({
      content: "",
      tool_calls: [call("bash", { command: "touch /tmp/ran2" }), call("shell", { command: "ls" })],
    }, "unknown_tool");
    await formatError({ content: "", tool_calls: [call("python", { code: "print(1)" })] }, "unknown_tool_no_command");
    await formatError({ content: "", tool_calls: [call("bash", { cmd: "ls" })] }, "missing_command");
    await formatError({ content: "", tool_calls: [call("bash", ["ls"])] }, "missing_command");
    assert.equal(await exists(ep, "/tmp/ran1"), false);
    assert.equal(await exists(ep, "/tmp/ran2"), false);
    assert.equal(ep.counters.formatErrors, 7);
    assert.equal(ep.done, false);
  });
});

dockerTest("mini-swe-agent: the sentinel ends the episode and its output is the answer", async (docker) => {
  await withEpisode(docker, miniSweAgent(), FIX, async (ep, score) => {
    // Not a submission: a failing command, or the sentinel not on the first line.
    let r = await ep.step({ tool_calls: [call("bash", { command: `echo ${MSWEA_SENTINEL}; exit 1` })] });
    assert.equal(r.done, false);
    r = await ep.step({ tool_calls: [call("bash", { command: `echo x; echo ${MSWEA_SENTINEL}` })] });
    assert.equal(r.done, false);

    r = await ep.step({
      content: "Submitting.",
      tool_calls: [
        call("bash", { command: `printf '\\n  '; echo ${MSWEA_SENTINEL} && echo answer && echo more` }),
        call("bash", { command: "touch /tmp/after" }),
      ],
    });
    assert.equal(r.done, true);
    assert.equal(r.exitStatus, "stop_rule");
    assert.equal(ep.done, true);
    assert.equal(ep.answer(), "answer\nmore\n");
    assert.equal(await exists(ep, "/tmp/after"), false, "the calls after the submission do not run");
    await assert.rejects(() => ep.step({ content: "more" }), /after the episode ended/);
    const v = await score();
    assert.equal(v.reward, 0, "nothing was fixed");
  });
  await withEpisode(docker, miniSweAgent(), FIX, async (ep) => {
    const r = await ep.step({ tool_calls: [call("bash", { command: `echo ${MSWEA_SENTINEL}` })] });
    assert.equal(r.done, true);
    assert.equal(ep.answer(), "", "a bare sentinel submits an empty answer");
  });
});

dockerTest("mini-swe-agent-text: one block runs; zero or two blocks are a format error", async (docker) => {
  const p = miniSweAgentText();
  p.execTimeout = 2;
  await withEpisode(docker, p, FIX, async (ep) => {
    assert.deepEqual(ep.tools, []);
    let r = await ep.step({ content: "Let me look.\n\n```mswea_bash_command\necho hello\n```\n" });
    assert.deepEqual(r.observations, [{ role: "user", content: await golden("text_small") }]);
    assert.equal(r.observations[0].content, "<returncode>0</returncode>\n<output>\nhello\n</output>");

    r = await ep.step({
      content: `Run.\n\n\`\`\`mswea_bash_command\nprintf '%s\\n' "it's <a> & \\"b\\""; nosuchcmd\n\`\`\``,
    });
    assert.equal(r.observations[0].content, await golden("text_quotes"));
    r = await ep.step({ content: "```mswea_bash_command\nseq 1 3000\n```" });
    assert.equal(r.observations[0].content, await golden("text_long"));
    r = await ep.step({ content: "```mswea_bash_command\necho partial; sleep 10\n```" });
    assert.equal(r.observations[0].content, await golden("text_timeout"));

    r = await ep.step({ content: "No action here, only ```bash\nls\n```." });
    assert.deepEqual(r.observations, [{ role: "user", content: await golden("text_error_0") }]);
    r = await ep.step({
      content: "```mswea_bash_command\ntouch /tmp/one\n```\n\n```mswea_bash_command\ntouch /tmp/two\n```",
    });
    assert.deepEqual(r.observations, [{ role: "user", content: await golden("text_error_2") }]);
    assert.equal(await exists(ep, "/tmp/one"), false);
    assert.equal(await exists(ep, "/tmp/two"), false);

    r = await ep.step({
      content: `Done.\n\n\`\`\`mswea_bash_command\necho ${MSWEA_SENTINEL} && echo text answer\n\`\`\``,
    });
    assert.equal(r.done, true);
    assert.deepEqual(r.observations, []);
    assert.equal(ep.answer(), "text answer\n");
  });
});

// The oracle on the example tasks (solve.sh through bash, then the sentinel) under both profiles is in
// tests/profiles_suite_test.ts.

Deno.test("mini-swe-agent: observation template edge cases (code points, exception in the long branch)", () => {
  const emoji = "😀".repeat(6000) + "a".repeat(5000);
  const o = JSON.parse(renderToolObservation({ output: emoji, returncode: 0, exceptionInfo: "x" }));
  assert.equal(o.elided_chars, 1000);
  assert.equal(o.output_head, "😀".repeat(5000));
  assert.equal(o.output_tail, "a".repeat(5000));
  assert.equal(o.exception_info, "x");
  const short = renderToolObservation({ output: "é😀".repeat(4999), returncode: 0, exceptionInfo: "" });
  assert.ok(short.includes('"output": "\\u00e9\\ud83d\\ude00'), "9998 code points stay in the short branch");
});
