/**
 * palingenesis-default@2 (nanocode): schemas, prompt, every result and error string byte for byte (the oracle on the
 * example tasks is in tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import type { HarnessProfile } from "../../lib/harness/types.ts";
import type { Sandbox } from "../../lib/runtime/sandbox.ts";
import { pyRepr } from "../../lib/harness/lang/python_text.ts";
import { NO_PYTHON3, palingenesisDefaultV2 } from "./v2.ts";
import { pyStrip } from "../../lib/harness/lang/python_values.ts";
import { dockerTest, makeTask, removeTask } from "../../tests/docker_helpers.ts";
// `run(ep, name, args, raw?)`: one tool call, its result string (nanocode's results are plain strings).
import { call, runTool as run, withEpisode } from "../../tests/profile_helpers.ts";

/** nanocode's make_schema() output, as the fact sheet gives it (harness-sources.md §7). */
const MAKE_SCHEMA = `[{"name":"read","description":"Read file with line numbers (file path, not directory)",` +
  `"input_schema":{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},` +
  `"limit":{"type":"integer"}},"required":["path"]}},` +
  `{"name":"write","description":"Write content to file","input_schema":{"type":"object","properties":` +
  `{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}},` +
  `{"name":"edit","description":"Replace old with new in file (old must be unique unless all=true)",` +
  `"input_schema":{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},` +
  `"new":{"type":"string"},"all":{"type":"boolean"}},"required":["path","old","new"]}},` +
  `{"name":"glob","description":"Find files by pattern, sorted by mtime","input_schema":{"type":"object",` +
  `"properties":{"pat":{"type":"string"},"path":{"type":"string"}},"required":["pat"]}},` +
  `{"name":"grep","description":"Search files for regex pattern","input_schema":{"type":"object","properties":` +
  `{"pat":{"type":"string"},"path":{"type":"string"}},"required":["pat"]}},` +
  `{"name":"bash","description":"Run shell command","input_schema":{"type":"object","properties":` +
  `{"cmd":{"type":"string"}},"required":["cmd"]}}]`;

/** The same tools as OpenAI function tools, byte for byte. */
const GOLDEN_TOOLS = `[{"type":"function","function":{"name":"read","description":"Read file with line numbers ` +
  `(file path, not directory)","parameters":{"type":"object","properties":{"path":{"type":"string"},"offset":` +
  `{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}}},{"type":"function","function":{"name":` +
  `"write","description":"Write content to file","parameters":{"type":"object","properties":{"path":{"type":` +
  `"string"},"content":{"type":"string"}},"required":["path","content"]}}},{"type":"function","function":{"name":` +
  `"edit","description":"Replace old with new in file (old must be unique unless all=true)","parameters":{"type":` +
  `"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"},"all":{"type":` +
  `"boolean"}},"required":["path","old","new"]}}},{"type":"function","function":{"name":"glob","description":` +
  `"Find files by pattern, sorted by mtime","parameters":{"type":"object","properties":{"pat":{"type":"string"},` +
  `"path":{"type":"string"}},"required":["pat"]}}},{"type":"function","function":{"name":"grep","description":` +
  `"Search files for regex pattern","parameters":{"type":"object","properties":{"pat":{"type":"string"},"path":` +
  `{"type":"string"}},"required":["pat"]}}},{"type":"function","function":{"name":"bash","description":` +
  `"Run shell command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}}}]`;

const ODD = `it's a "quoted" name.txt`;

/** A task on pgs-base:1 (root) with a few files in /workdir. */
function fixtureTask(): Promise<string> {
  return makeTask({
    "environment/workdir/a.txt": "one\ntwo\nthree\n",
    "environment/workdir/dup.txt": "x = 1\nx = 1\n",
    "environment/workdir/crlf.txt": "l1\r\nl2\r\n",
    "environment/workdir/sub/inner.txt": "needle inside\n",
    [`environment/workdir/${ODD}`]: "odd needle\n",
    "environment/workdir/nul.dat": "a\0b\nneedle after nul\n",
  });
}

async function withFixture(
  docker: Parameters<typeof withEpisode>[0],
  fn: (ep: ProfileEpisode, box: Sandbox) => Promise<void>,
  profile: HarnessProfile = palingenesisDefaultV2(),
): Promise<void> {
  const dir = await fixtureTask();
  try {
    await withEpisode(docker, profile, dir, (ep, _score, box) => fn(ep, box));
  } finally {
    await removeTask(dir);
  }
}

Deno.test("default@2: tools are make_schema's, as OpenAI function tools, byte for byte", () => {
  const p = palingenesisDefaultV2();
  const converted = (JSON.parse(MAKE_SCHEMA) as { name: string; description: string; input_schema: unknown }[])
    .map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    }));
  assert.equal(JSON.stringify(converted), GOLDEN_TOOLS);
  assert.equal(JSON.stringify(p.tools.map((t) => t.schema)), GOLDEN_TOOLS);
  assert.equal(p.name, "palingenesis-default");
  assert.equal(p.version, "2");
  assert.equal(p.system, "Concise coding assistant. cwd: {workdir}");
  assert.equal(p.user, "{instruction}");
  assert.deepEqual(p.stop, { kind: "no_call" });
  assert.deepEqual(p.answer, { kind: "last_text" });
  assert.equal(p.execTimeout, 30);
  assert.equal(p.emulates.harness, "nanocode");
  assert.equal(p.emulates.version, "b009d3d");
});

Deno.test("default@2: Python's repr for unknown tools and Python's strip", () => {
  const p = palingenesisDefaultV2();
  assert.equal(p.unknownTool!("name", [], {}), "error: 'name'");
  assert.equal(p.unknownTool!("it's", [], {}), `error: "it's"`);
  assert.equal(pyRepr(`a'b"c\\\n\u0001é`), `'a\\'b"c\\\\\\n\\x01é'`);
  assert.equal(pyStrip("\x1c\x85 x y\u00a0\n"), "x y");
  assert.equal(pyStrip("\ufeffx"), "\ufeffx");
  assert.equal(p.badArguments!("read", "[1]", ""), "error: list indices must be integers or slices, not str");
  assert.equal(p.badArguments!("glob", "3", ""), "error: 'int' object has no attribute 'get'");
});

dockerTest("default@2: first prompt; read, write and edit results and errors byte for byte", async (docker) => {
  await withFixture(docker, async (ep) => {
    assert.equal(JSON.stringify(ep.tools), GOLDEN_TOOLS);
    assert.deepEqual(ep.messages[0], { role: "system", content: "Concise coding assistant. cwd: /workdir" });
    assert.deepEqual(ep.messages[1], { role: "user", content: "A test task.\n" });

    assert.equal(await run(ep, "read", { path: "a.txt" }), "   1| one\n   2| two\n   3| three\n");
    assert.equal(await run(ep, "read", { path: "a.txt", offset: 1, limit: 1 }), "   2| two\n");
    assert.equal(await run(ep, "read", { path: "a.txt", offset: 2 }), "   3| three\n");
    assert.equal(await run(ep, "read", { path: "crlf.txt" }), "   1| l1\n   2| l2\n");
    assert.equal(await run(ep, "read", { path: "x.txt" }), "error: [Errno 2] No such file or directory: 'x.txt'");
    assert.equal(await run(ep, "read", { path: "sub" }), "error: [Errno 21] Is a directory: 'sub'");
    assert.equal(await run(ep, "read", {}), "error: 'path'");

    assert.equal(await run(ep, "write", { path: "new.txt", content: "héllo ✓ 😀\nline 2" }), "ok");
    assert.equal(await run(ep, "read", { path: "new.txt" }), "   1| héllo ✓ 😀\n   2| line 2");
    assert.equal(
      await run(ep, "write", { path: "nodir/x.txt", content: "x" }),
      "error: [Errno 2] No such file or directory: 'nodir/x.txt'",
    );
    assert.equal(await run(ep, "read", { path: "nodir" }), "error: [Errno 2] No such file or directory: 'nodir'");
    assert.equal(await run(ep, "write", { path: "w.txt" }), "error: 'content'");
    // Large content and the argument heredoc's own delimiter travel intact (JSON on stdin, not argv).
    const big = "0123456789abcdef\n".repeat(20_000) + "\nPGS_NANOCODE_ARGS\n'\"$(x)`\\";
    assert.equal(await run(ep, "write", { path: "big.txt", content: big }), "ok");
    assert.equal(await run(ep, "bash", { cmd: "wc -c < big.txt; tail -n 1 big.txt" }), `${big.length}\n'"$(x)\`\\`);
    assert.equal(
      await run(ep, "read", { path: "empty.txt" }),
      "error: [Errno 2] No such file or directory: 'empty.txt'",
    );
    assert.equal(await run(ep, "write", { path: "empty.txt", content: "" }), "ok");
    assert.equal(await run(ep, "read", { path: "empty.txt" }), "");

    assert.equal(await run(ep, "edit", { path: "a.txt", old: "four", new: "4" }), "error: old_string not found");
    assert.equal(
      await run(ep, "edit", { path: "dup.txt", old: "x = 1", new: "x = 2" }),
      "error: old_string appears 2 times, must be unique (use all=true)",
    );
    assert.equal(await run(ep, "edit", { path: "dup.txt", old: "x = 1", new: "x = 2", all: true }), "ok");
    assert.equal(await run(ep, "read", { path: "dup.txt" }), "   1| x = 2\n   2| x = 2\n");
    assert.equal(await run(ep, "edit", { path: "a.txt", old: "two", new: "2" }), "ok");
    assert.equal(await run(ep, "read", { path: "a.txt" }), "   1| one\n   2| 2\n   3| three\n");
    assert.equal(await run(ep, "edit", { path: "a.txt", new: "2" }), "error: 'old'");
    assert.equal(
      await run(ep, "edit", { path: "gone.txt", old: "a", new: "b" }),
      "error: [Errno 2] No such file or directory: 'gone.txt'",
    );
  });
});

dockerTest("default@2: glob newest first, grep hits and none, odd names and binary files", async (docker) => {
  await withFixture(docker, async (ep) => {
    const setup = 'mkdir logs && for f in old mid new; do echo "ERROR in $f" > logs/$f.log; done && ' +
      "touch -d '2020-01-01' logs/old.log && touch -d '2021-01-01' logs/mid.log && touch -d '2022-01-01' logs/new.log && " +
      "mkdir logs/deep && printf 'x\\nERROR deep\\n' > logs/deep/d.log && " +
      "seq 1 60 | sed 's/^/hit /' > many.txt && printf '\\377\\376 needle\\n' > bad.bin";
    assert.equal(await run(ep, "bash", { cmd: setup }), "(empty)");
    assert.equal(await run(ep, "glob", { pat: "*.log", path: "logs" }), "logs/new.log\nlogs/mid.log\nlogs/old.log");
    assert.equal(
      await run(ep, "glob", { pat: "logs/**/*.log" }),
      "./logs/deep/d.log\n./logs/new.log\n./logs/mid.log\n./logs/old.log",
    );
    assert.equal(await run(ep, "glob", { pat: "*.nothing" }), "none");
    assert.equal(await run(ep, "glob", { pat: "*quoted*" }), `./${ODD}`);
    assert.equal(await run(ep, "glob", {}), "error: 'pat'");

    assert.equal(await run(ep, "grep", { pat: "ERROR deep", path: "logs" }), "logs/deep/d.log:2:ERROR deep");
    assert.equal(await run(ep, "grep", { pat: "^nothing here$" }), "none");
    const many = String(await run(ep, "grep", { pat: "^hit \\d+$", path: "." })).split("\n");
    assert.equal(many.length, 50);
    assert.equal(many[0], "./many.txt:1:hit 1");
    assert.equal(many[49], "./many.txt:50:hit 50");
    const needles = String(await run(ep, "grep", { pat: "needle" })).split("\n").sort();
    assert.deepEqual(needles, [
      `./${ODD}:1:odd needle`,
      "./nul.dat:2:needle after nul",
      "./sub/inner.txt:1:needle inside",
    ]);
    assert.equal(await run(ep, "grep", { pat: "(" }), "error: missing ), unterminated subpattern at position 0");
    assert.equal(await run(ep, "grep", {}), "error: 'pat'");

    assert.equal(await run(ep, "read", { path: ODD }), "   1| odd needle\n");
    assert.equal(await run(ep, "read", { path: "nul.dat" }), "   1| a\0b\n   2| needle after nul\n");
    assert.equal(
      await run(ep, "read", { path: "bad.bin" }),
      "error: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
    );
    assert.equal(await run(ep, "edit", { path: ODD, old: "odd", new: "even" }), "ok");
    assert.equal(await run(ep, "bash", { cmd: `cat ${JSON.stringify(ODD).replaceAll("$", "\\$")}` }), "even needle");
  });
});

dockerTest(
  "default@2: bash output, merged stderr, (empty), timeout, missing argument, unknown tool",
  async (docker) => {
    const profile = palingenesisDefaultV2();
    profile.execTimeout = 2;
    await withFixture(docker, async (ep) => {
      assert.equal(await run(ep, "bash", { cmd: "echo hi" }), "hi");
      assert.equal(await run(ep, "bash", { cmd: "  true  " }), "(empty)");
      assert.equal(await run(ep, "bash", { cmd: "echo out; echo err >&2; echo out2; exit 3" }), "out\nerr\nout2");
      assert.equal(await run(ep, "bash", { cmd: "printf '\\n  a\\r\\nb\\rc  \\n\\n'" }), "a\nb\nc");
      assert.equal(await run(ep, "bash", { cmd: "pwd; echo $0" }), "/workdir\n/bin/sh");
      assert.equal(
        await run(ep, "bash", { cmd: "echo (" }),
        '/bin/sh: 1: Syntax error: end of file unexpected (expecting ")")',
      );
      assert.equal(await run(ep, "bash", { cmd: "echo partial; sleep 20" }), "(timed out after 2s)");
      assert.equal(await run(ep, "bash", { cmd: "ps -eo args= | grep -cx 'sleep 20'" }), "0", "killed at the timeout");
      assert.equal(await run(ep, "bash", { cmd: "echo still alive" }), "still alive");
      assert.equal(await run(ep, "bash", {}), "error: 'cmd'");
      assert.equal(await run(ep, "bash", { command: "ls" }), "error: 'cmd'");
      assert.equal(await run(ep, "bash", { cmd: null }), "error: 'NoneType' object is not iterable");
      assert.equal(await run(ep, "nosuch", { path: "a.txt" }), "error: 'nosuch'");
      assert.equal(await run(ep, "Read", { path: "a.txt" }), "error: 'Read'");
      assert.equal(ep.counters.unknownTools, 2);
      // approx.: nanocode always gets a dict; malformed JSON is answered as an error and the episode goes on.
      assert.match(String(await run(ep, "read", null, "{not json")), /^error: /);
      assert.equal(await run(ep, "read", null, "[1]"), "error: list indices must be integers or slices, not str");
    }, profile);
  },
);

dockerTest("default@2: without python3 the file tools say so and bash still works", async (docker) => {
  await withFixture(docker, async (ep, box) => {
    const r = await box.execRoot(["/bin/sh", "-c", "rm -f /usr/bin/python3 /usr/local/bin/python3"], 30);
    assert.equal(r.code, 0);
    for (const [name, args] of [["read", { path: "a.txt" }], ["write", { path: "b", content: "" }], ["glob", {}]]) {
      assert.equal(await run(ep, name as string, args), NO_PYTHON3);
    }
    assert.equal(await run(ep, "bash", { cmd: "cat a.txt" }), "one\ntwo\nthree");
  });
});

dockerTest("default@2: a reply without tool calls ends the episode and is the answer", async (docker) => {
  await withFixture(docker, async (ep) => {
    let r = await ep.step({ content: "Let me look.", tool_calls: [call("bash", { cmd: "echo 41" })] });
    assert.equal(r.done, false);
    assert.equal(r.observations[0].content, "41");
    r = await ep.step({ content: "The answer is 42." });
    assert.equal(r.done, true);
    assert.deepEqual(r.observations, []);
    assert.equal(ep.done, true);
    assert.equal(ep.answer(), "The answer is 42.");
    await assert.rejects(() => ep.step({ content: "more" }), /after the episode ended/);
  });
});

// The oracle on the example tasks (solve.sh through bash, then a reply) is in tests/profiles_suite_test.ts.
