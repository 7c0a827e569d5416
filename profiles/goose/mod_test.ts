/**
 * goose@1.55.0 from its source: the tools array against the golden, every tool's results and errors in a real
 * container (strings from developer/{edit,shell,tree}.rs), goose's argument and unknown-tool errors (the oracle is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { goose } from "./mod.ts";
import { serdeParse } from "./args.ts";
import { rustLines, stringReplace } from "./files.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { assertApprox, call, EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "goose");

Deno.test("goose: the tools array is the golden one, in goose's order", async () => {
  const golden = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "tools.json")));
  assert.equal(JSON.stringify(goose().tools.map((t) => t.schema)), JSON.stringify(golden));
  assert.deepEqual(goose().tools.map((t) => t.schema.function.name), ["write", "edit", "shell", "tree"]);
  const p = goose();
  assert.equal(`${p.name}@${p.version}`, "goose@1.55.0");
  assert.deepEqual([p.protocol, p.stop, p.answer], [{ kind: "native" }, { kind: "no_call" }, { kind: "last_text" }]);
  assert.deepEqual(p.shell, { tool: "shell", arg: "command" });
  assert.ok(p.system.length < 1000);
});

Deno.test("goose: serde_json parse errors and Rust line counting", () => {
  const err = (s: string) => {
    const r = serdeParse(s);
    return "error" in r ? r.error : "ok";
  };
  assert.equal(err("{not json"), "key must be a string at line 1 column 2");
  assert.equal(err('{"a": "b"'), "EOF while parsing an object at line 1 column 9");
  assert.equal(err('{"a": "b'), "EOF while parsing a string at line 1 column 8");
  assert.equal(err('{"a" "b"}'), "expected `:` at line 1 column 6");
  assert.equal(err('{"a": 1} x'), "trailing characters at line 1 column 10");
  assert.equal(err('{"a": x}'), "expected value at line 1 column 7");
  assert.equal(err('{"a": 1 "b": 2}'), "expected `,` or `}` at line 1 column 9");
  assert.equal(err('{"a": 1}'), "ok");
  assert.deepEqual([rustLines(""), rustLines("a\n"), rustLines("a\r\nb"), rustLines("\n")], [[], ["a"], ["a", "b"], [
    "",
  ]]);
  assert.deepEqual(stringReplace("ab", "", "x"), {
    error:
      "Found 3 matches. Please provide more context to identify a unique match:\n\nMatch 1 (line 1):\n```\nab\n```" +
      "\nMatch 2 (line 1):\n```\nab\n```\n\n...and 1 more",
  });
});

dockerTest("goose: write, edit, shell and tree results and errors", async (docker) => {
  await withEpisode(docker, goose(), resolve(EXAMPLE_TASKS, "fix-word-count"), async (ep) => {
    const run = (name: string, args: unknown, raw?: string) => runTool(ep, name, args, raw);
    // write
    assert.equal(await run("write", { path: "notes/a.txt", content: "one\ntwo\n" }), "Created notes/a.txt (2 lines)");
    assert.equal(await run("write", { path: "notes/a.txt", content: "one\ntwo\none" }), "Wrote notes/a.txt (3 lines)");
    assert.equal(
      await run("write", { path: "notes/a.txt/x/y.txt", content: "" }),
      "Failed to create directory /workdir/notes/a.txt/x: Not a directory (os error 20)",
    );
    assert.equal(
      await run("write", { path: "notes/a.txt/y.txt", content: "" }),
      "Failed to write notes/a.txt/y.txt: Not a directory (os error 20)",
    );
    assert.equal(
      await run("write", { path: "notes", content: "" }),
      "Failed to write notes: Is a directory (os error 21)",
    );
    // edit
    assert.equal(
      await run("edit", { path: "notes/a.txt", before: "two", after: "2\n2" }),
      "Edited notes/a.txt (1 lines -> 2 lines)",
    );
    assert.equal(
      await run("edit", { path: "notes/a.txt", before: "one", after: "1" }),
      "Found 2 matches. Please provide more context to identify a unique match:\n\nMatch 1 (line 1):\n```\none\n2\n```" +
        "\nMatch 2 (line 4):\n```\n2\none\n```",
    );
    assert.equal(
      await run("edit", { path: "notes/a.txt", before: "zzz", after: "1" }),
      "No match found for the specified text.\n\nFile preview:\n```\n   1: one\n   2: 2\n   3: 2\n   4: one\n```",
    );
    assert.equal(
      await run("edit", { path: "notes/a.txt", before: "2 x", after: "1" }),
      "No match found for the specified text.\n\nDid you mean:\n```\none\n2\n2\none\n```\n\nFile preview:\n```\n   1: one\n" +
        "   2: 2\n   3: 2\n   4: one\n```",
    );
    assert.equal(
      await run("edit", { path: "missing.txt", before: "a", after: "b" }),
      "Failed to read missing.txt: No such file or directory (os error 2)",
    );
    assert.equal(
      await run("edit", { path: "notes", before: "a", after: "b" }),
      "Failed to read notes: Is a directory (os error 21)",
    );
    // shell
    assert.equal(await run("shell", { command: "echo hi; echo err >&2" }), "hi\nerr");
    assert.equal(await run("shell", { command: "true" }), "(no output)");
    assert.equal(await run("shell", { command: "  " }), "Command cannot be empty.");
    assert.equal(await run("shell", { command: "echo fail; exit 7" }), "fail\n\nCommand exited with code 7");
    assert.equal(
      await run("shell", { command: "echo start; sleep 5", timeout_secs: 1 }),
      "start\n\nCommand timed out after 1 seconds",
    );
    const long = await run("shell", { command: "seq 1 2500" });
    const m = long.match(
      /^([\s\S]*)\n\n\[Output exceeded 2000 line limit \(2500 lines total\)\. Full output saved to (\/tmp\/\.tmp[A-Za-z0-9]{6})\. Read it with shell commands like `head`, `tail`, or `sed -n '100,200p'` up to 2000 lines at a time\.\]$/,
    );
    assert.ok(m, long.slice(-300));
    assert.equal(m[1], Array.from({ length: 50 }, (_, i) => String(2451 + i)).join("\n"));
    assert.equal(await run("shell", { command: `wc -l < ${m[2]}` }), "2499");
    const bytes = await run("shell", {
      command: "for i in $(seq 1 60); do head -c 1000 /dev/zero | tr '\\0' x; echo; done",
    });
    assert.match(
      bytes,
      /\n\n\[Output exceeded 50000 byte limit \(60059 bytes total\)\. Full output saved to \/tmp\/\.tmp/,
    );
    assert.ok(bytes.includes(m[2]), "one temp file per episode");
    // tree
    await run("shell", {
      command: "mkdir -p t/sub/deep && printf 'a\\nb\\n' > t/sub/x.py && echo hid > t/.h && " +
        "printf 'ign/\\n*.log\\n' > t/.gitignore && mkdir t/ign && echo 1 > t/ign/f && echo 1 > t/a.log && " +
        "seq 1 1500 > t/big.txt && : > t/empty",
    });
    assert.equal(
      await run("tree", { path: "t" }),
      "sub/  [2]\n  deep/  [0]\n  x.py  [2]\nbig.txt  [1K]\nempty  [0]\n",
    );
    assert.equal(
      await run("tree", { path: "t", depth: 0 }),
      "sub/  [2]\n  deep/  [0]\n  x.py  [2]\nbig.txt  [1K]\nempty  [0]\n",
    );
    assert.equal(await run("tree", { path: "t/sub/deep" }), "(empty directory)");
    assert.equal(await run("tree", { path: "nope" }), "Path does not exist: /workdir/nope");
    assert.equal(await run("tree", { path: "t/empty" }), "Path is not a directory: /workdir/t/empty");
    // argument errors
    assert.equal(await run("shell", { cmd: "ls" }), "Error: Failed to parse arguments: missing field `command`");
    assert.equal(
      await run("shell", { command: 5 }),
      "Error: Failed to parse arguments: invalid type: integer `5`, expected a string",
    );
    assert.equal(
      await run("tree", { path: ".", depth: -1 }),
      "Error: Failed to parse arguments: invalid value: integer `-1`, expected u32",
    );
    const bad = call("shell", null, "{not json");
    const r = await ep.step({ content: "", tool_calls: [bad] });
    assertApprox(
      r.observations[0].content as string,
      `Error: -32602: Could not interpret tool use parameters for id ${bad.id}: key must be a string at line 1 column 2`,
    );
    assertApprox(
      await run("Shell", { command: "ls" }),
      "The tool call returned the following error:\n-32602: Tool 'Shell' not found",
    );
    assert.equal(ep.counters.unknownTools, 1);
  });
});

// The oracle on the example tasks is in tests/profiles_suite_test.ts.
