/**
 * swe-agent@main-3ea751c against its source: the tools array byte for byte (fact sheet §2), str_replace_editor results
 * and errors against goldens produced by SWE-agent's own script (tests/golden/swe-agent/gen.py), OBSERVATION wrapping,
 * the persistent shell, requery messages and the submit review (the oracle is in tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { sweAgent } from "./mod.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
// `one(ep, name, args, raw?)`: one tool call, its result string.
import { call, EXAMPLE_TASKS, runTool as one, withEpisode, withLocalEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "swe-agent");
const FIX = join(EXAMPLE_TASKS, "fix-word-count");
const NO_OUTPUT = "Your command ran successfully and did not produce any output.";

const wrap = (out: string) => out.trim() === "" ? NO_OUTPUT : `OBSERVATION:\n${out}`;

Deno.test("swe-agent: the tools array is the fact sheet's, byte for byte", async () => {
  const golden = JSON.stringify(JSON.parse(await Deno.readTextFile(join(GOLDEN, "tools.json"))));
  const sent = JSON.stringify(sweAgent().tools.map((t) => t.schema));
  assert.equal(sent, golden);
  assert.equal(sent.length, 2882);
  assert.deepEqual(sweAgent().tools.map((t) => t.schema.function.name), ["bash", "str_replace_editor", "submit"]);
});

Deno.test("swe-agent: profile shape", () => {
  const p = sweAgent();
  assert.equal(`${p.name}@${p.version}`, "swe-agent@main-3ea751c");
  assert.deepEqual([p.protocol, p.stop, p.answer], [
    { kind: "native" },
    { kind: "submit", tool: "submit", confirm: true },
    { kind: "stop_answer", fallback: "none" },
  ]);
  assert.equal(p.answerChannel, false);
  assert.deepEqual(p.shell, { tool: "bash", arg: "command" });
  assert.equal(p.execTimeout, 30);
  assert.ok(p.system.length < 200 && !p.system.includes("helpful assistant that can interact"));
  assert.ok(p.user.includes("{instruction}") && p.user.includes("{workdir}"));
});

Deno.test("swe-agent: requery messages for calls SWE-agent cannot parse", () => {
  const p = sweAgent();
  const v = (name: string, args: Record<string, unknown> | null) =>
    p.validate!([{ id: "1", name, args, raw: JSON.stringify(args) }], undefined as never);
  assert.equal(
    v("nope", {}),
    "Your action could not be parsed properly: Command 'nope' not found in list of available commands..\n",
  );
  assert.equal(v("bash", null), "Your action could not be parsed properly: Tool call arguments are not valid JSON..\n");
  assert.equal(v("bash", {}), "Your action could not be parsed properly: Required argument(s) missing: command.\n");
  assert.equal(
    v("str_replace_editor", { command: "view", path: "/x", extra: 1 }),
    "Your action could not be parsed properly: Unexpected argument(s): extra.\nMake sure your function call doesn't " +
      "include any extra arguments that are not in the allowed arguments, and only use the allowed commands.",
  );
  assert.equal(v("bash", { command: " vim a.txt" }), "Operation 'vim a.txt' is not supported by this environment.");
  assert.equal(v("bash", { command: "python3" }), "Operation 'python3' is not supported by this environment.");
  assert.equal(v("bash", { command: "python3 x.py" }), undefined);
  assert.equal(v("submit", {}), undefined);
  assert.ok(p.formatError!("no tool call", undefined as never).startsWith("Your last output did not use any tool"));
  assert.ok(p.formatError!("no tool call", undefined as never).endsWith("Else, please continue with a new tool call!"));
});

dockerTest("swe-agent: str_replace_editor matches SWE-agent's own script, byte for byte", async (docker) => {
  const cases = JSON.parse(await Deno.readTextFile(join(GOLDEN, "editor.json"))) as {
    call?: Record<string, unknown>;
    output?: string;
    bash?: string;
  }[];
  await withEpisode(docker, sweAgent(), FIX, async (ep) => {
    for (const c of cases) {
      if (c.bash) {
        await one(ep, "bash", { command: c.bash });
        continue;
      }
      const got = await one(ep, "str_replace_editor", c.call);
      assert.equal(got, wrap(c.output!), JSON.stringify(c.call));
    }
    // The bytes on disk: tabs expanded by the edit, CRLF turned to LF, created text in UTF-8.
    const r = await ep.session.box.exec("od -c crlf.txt | head -2; cat uni.txt", { shell: "sh", timeoutSec: 10 });
    assert.match(new TextDecoder().decode(r.stdout), /A {2}\\n {3}b {2}\\n[\s\S]*héllo ☃/);
    // The long view is clipped with the editor's note.
    const long = cases.find((c) => c.call?.path === "/workdir/long.txt")!.output!;
    assert.ok(long.includes("<response clipped><NOTE>To save on context only part of this file"));
  });
});

dockerTest("swe-agent: directory view, OBSERVATION wrapping, the empty-output sentence", async (docker) => {
  await withEpisode(docker, sweAgent(), FIX, async (ep) => {
    const dir = await one(ep, "str_replace_editor", { command: "view", path: "/workdir" });
    assert.ok(
      dir.startsWith(
        "OBSERVATION:\nHere's the files and directories up to 2 levels deep in /workdir, excluding hidden items:\n" +
          "/workdir\n",
      ),
    );
    assert.ok(dir.includes("/workdir/wc.py\n") && dir.endsWith("\n\n\n"));
    assert.equal(await one(ep, "bash", { command: "echo hi; echo err >&2" }), "OBSERVATION:\nhi\nerr\n");
    assert.equal(await one(ep, "bash", { command: "printf 'no newline'" }), "OBSERVATION:\nno newline");
    assert.equal(await one(ep, "bash", { command: "true" }), NO_OUTPUT);
    assert.equal(await one(ep, "bash", { command: "printf '  \\n\\t'" }), NO_OUTPUT);
    assert.equal(await one(ep, "bash", { command: "exit 3" }), NO_OUTPUT, "no exit code is shown");
    assert.equal(await one(ep, "bash", { command: "printf '\\033[31mred\\033[0m\\n'" }), "OBSERVATION:\nred\n");
    const big = await one(ep, "bash", { command: "head -c 100005 /dev/zero | tr '\\0' a" });
    assert.ok(big.startsWith("Observation: aaa"));
    assert.ok(
      big.endsWith(
        "a<response clipped><NOTE>Observations should not exceeded 100000 characters. 5 characters were elided. " +
          "Please try a different command that produces less output or use head/tail/grep/redirect the output to a " +
          "file. Do not use interactive pagers.</NOTE>",
      ),
    );
    const syntax = await one(ep, "bash", { command: "echo )" });
    assert.ok(
      syntax.startsWith(
        "Your bash command contained syntax errors and was NOT executed. Please fix the syntax errors and try again. " +
          "This can be the result of not adhering to the syntax for multi-line commands. Here is the output of " +
          "`bash -n`:\n\nbash: line 1: syntax error near unexpected token `)'",
      ),
      syntax,
    );
  });
});

dockerTest("swe-agent: persistent bash (cd, export) and the timeout", async (docker) => {
  await withEpisode(docker, sweAgent(), FIX, async (ep) => {
    assert.equal(await one(ep, "bash", { command: "pwd" }), "OBSERVATION:\n/workdir\n");
    assert.equal(
      await one(ep, "bash", { command: "echo $PAGER $GIT_PAGER $ROOT" }),
      "OBSERVATION:\ncat cat /workdir\n",
    );
    assert.equal(await one(ep, "bash", { command: "mkdir -p /tmp/sw && cd /tmp/sw && export FOO=bar" }), NO_OUTPUT);
    assert.equal(await one(ep, "bash", { command: "pwd; echo $FOO" }), "OBSERVATION:\n/tmp/sw\nbar\n");
    assert.equal(
      await one(ep, "str_replace_editor", { command: "view", path: "x.txt" }),
      "OBSERVATION:\nThe path x.txt is not an absolute path, it should start with `/`. Maybe you meant /tmp/sw/x.txt?\n",
      "the editor resolves against the shell's cwd",
    );
    const r = await ep.step({ content: "", tool_calls: [call("bash", { command: "  sleep 45  " })] });
    assert.equal(
      r.observations[0].content,
      "The command 'sleep 45' was cancelled because it took more than 30 seconds. Please try a different command " +
        "that completes more quickly. Note: A common source of this error is if the command is interactive or " +
        "requires user input (it is impossible to receive user input in the current environment, so the command " +
        "will never complete).",
    );
    assert.equal(r.done, false);
    assert.equal(await one(ep, "bash", { command: "echo $FOO" }), "OBSERVATION:\nbar\n", "the shell survives");
    const left = await one(ep, "bash", { command: "ps -eo args= | grep -cx 'sleep 45' || true" });
    assert.equal(left, "OBSERVATION:\n0\n", "the cancelled command was killed, not left running");
  });
});

Deno.test("swe-agent: unknown tool, bad JSON and a turn without calls are requeries (local runtime)", async () => {
  await withLocalEpisode(sweAgent(), FIX, async (ep) => {
    let r = await ep.step({ content: "", tool_calls: [call("edit", { path: "x" })] });
    assert.deepEqual(r.observations, [{
      role: "user",
      content: "Your action could not be parsed properly: Command 'edit' not found in list of available commands..\n",
    }]);
    r = await ep.step({ content: "", tool_calls: [call("bash", null, "{not json")] });
    assert.equal(
      r.observations[0].content,
      "Your action could not be parsed properly: Tool call arguments are not valid JSON..\n",
    );
    r = await ep.step({ content: "thinking" });
    assert.equal(r.observations[0].role, "user");
    assert.match(r.observations[0].content as string, /^Your last output did not use any tool calls!\n/);
    assert.equal(r.done, true, "the third requery in a row ends the episode (exit_format)");
    assert.equal(r.exitStatus, "format_errors");
  });
});

dockerTest("swe-agent: a turn with two calls is refused whole (one call per turn), and stays in the history", async (
  docker,
) => {
  await withEpisode(docker, sweAgent(), FIX, async (ep) => {
    const turn = {
      content: "two at once",
      tool_calls: [call("bash", { command: "touch first.txt" }), call("bash", { command: "touch second.txt" })],
    };
    const r = await ep.step(turn);
    assert.deepEqual(r.observations, [{
      role: "user",
      content: "Your last output included multiple tool calls!\n" +
        "Please make sure your output includes a thought and exactly _ONE_ function call.",
    }]);
    assert.equal(r.done, false);
    const ls = await one(ep, "bash", {
      command: "ls first.txt second.txt 2>&1 | wc -l; ls *.txt | grep -c -e first -e second",
    });
    assert.equal(ls, "OBSERVATION:\n2\n0\n", "neither call ran");
    // Token-exact: the refused turn and the requery stay where the policy saw them (upstream drops both).
    const roles = ep.messages.slice(2).map((m) => [m.role, m.tool_calls?.length ?? 0]);
    assert.deepEqual(roles.slice(0, 2), [["assistant", 2], ["user", 0]]);
  });
});

dockerTest("swe-agent: submit shows the review with the diff once, the second submit ends", async (docker) => {
  await withEpisode(docker, sweAgent(), FIX, async (ep) => {
    await one(ep, "bash", { command: "echo extra >> README.md && echo hi > new.txt" });
    const review = await one(ep, "submit", {});
    assert.ok(review.startsWith("OBSERVATION:\nThank you for your work on this issue. Please carefully follow"));
    assert.ok(
      review.includes("\n4. Run the submit command again to confirm.\n\nHere is a list of all of your changes"),
    );
    assert.match(review, /<diff>\ndiff --git a\/README\.md b\/README\.md\n[\s\S]*\+extra\n/);
    assert.match(review, /diff --git a\/new\.txt b\/new\.txt\nnew file mode 100644\n[\s\S]*\+hi\n\n<\/diff>\n\n$/);
    assert.equal(ep.done, false);
    const ls = await ep.session.box.exec("ls -a /workdir", { shell: "sh", timeoutSec: 10 });
    assert.ok(!new TextDecoder().decode(ls.stdout).includes(".git"), "the workdir gains no .git");
    const r = await ep.step({ content: "done", tool_calls: [call("submit", {})] });
    assert.equal(r.done, true);
    assert.deepEqual(r.observations, []);
    assert.match(ep.answer(), /^diff --git a\/README\.md b\/README\.md\n[\s\S]*\+hi\n$/, "the answer is the patch");
  });
});

dockerTest("swe-agent: an empty diff still reviews", async (docker) => {
  await withEpisode(docker, sweAgent(), FIX, async (ep) => {
    const review = await one(ep, "submit", {});
    assert.ok(review.endsWith("Here is a list of all of your changes:\n\n<diff>\n\n</diff>\n\n"));
    await ep.step({ content: "nothing to change", tool_calls: [call("submit", {})] });
    assert.equal(ep.done, true);
    assert.equal(ep.answer(), "", "a blank patch is no submission");
  });
});

// The oracle on the example tasks (fix-word-count scores 1; count-error-lines scores 0, no answer channel) is in
// tests/profiles_suite_test.ts.
