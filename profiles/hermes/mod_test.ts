/**
 * hermes@main-e6899c8: the tools array against the golden, every tool's JSON results and errors in a real container
 * (strings from tools/file_tools.py and the result classes), the persistent terminal, the read-first rule, hermes'
 * argument and unknown-tool errors (the oracle is in tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { hermes } from "./mod.ts";
import { pyDumps } from "./json.ts";
import { truncateOutput } from "./terminal.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { assertApprox, EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "hermes");

Deno.test("hermes: the tools array is the golden one, in hermes' order", async () => {
  const golden = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "tools.json")));
  const p = hermes();
  assert.equal(JSON.stringify(p.tools.map((t) => t.schema)), JSON.stringify(golden));
  assert.deepEqual(p.tools.map((t) => t.schema.function.name), [
    "terminal",
    "process",
    "read_file",
    "write_file",
    "patch",
    "search_files",
  ]);
  assert.equal(`${p.name}@${p.version}`, "hermes@main-e6899c8");
  assert.deepEqual([p.protocol, p.stop, p.answer], [{ kind: "native" }, { kind: "no_call" }, { kind: "last_text" }]);
  assert.deepEqual(p.shell, { tool: "terminal", arg: "command" });
  assert.ok(p.system.length < 1000);
});

Deno.test("hermes: Python json.dumps separators and the truncation marker", () => {
  assert.equal(pyDumps({ a: 1, b: [true, null], c: "é\n" }), '{"a": 1, "b": [true, null], "c": "é\\n"}');
  const t = truncateOutput("x".repeat(60_000));
  assert.equal(t.length, 50_000 + "\n\n... [OUTPUT TRUNCATED - 10000 chars omitted out of 60000 total] ...\n\n".length);
  assert.ok(t.startsWith("x".repeat(20_000) + "\n\n... [OUTPUT TRUNCATED - 10000 chars omitted out of 60000 total]"));
});

dockerTest("hermes: terminal, read_file, write_file, patch and search_files results and errors", async (docker) => {
  await withEpisode(docker, hermes(), resolve(EXAMPLE_TASKS, "fix-word-count"), async (ep) => {
    const run = (name: string, args: unknown, raw?: string) => runTool(ep, name, args, raw);
    // terminal: JSON shape, persistence, exit-code meaning, timeout.
    assert.equal(
      await run("terminal", { command: "echo hi; echo err >&2" }),
      '{"output": "hi\\nerr", "exit_code": 0, "error": null}',
    );
    assert.equal(
      await run("terminal", { command: "mkdir -p /tmp/hx && cd /tmp/hx && export HX=42" }),
      '{"output": "", "exit_code": 0, "error": null}',
    );
    assert.equal(
      await run("terminal", { command: "pwd; echo $HX" }),
      '{"output": "/tmp/hx\\n42", "exit_code": 0, "error": null}',
    );
    assert.equal(
      await run("terminal", { command: "cd /workdir && echo x | grep y" }),
      '{"output": "", "exit_code": 1, "error": null, "exit_code_meaning": "No matches found (not an error)"}',
    );
    assert.equal(await run("terminal", { command: "exit 3" }), '{"output": "", "exit_code": 3, "error": null}');
    assert.equal(
      await run("terminal", { command: "echo start; sleep 5", timeout: 1 }),
      '{"output": "", "exit_code": 124, "error": "Command timed out after 1 seconds"}',
    );
    // write_file / read_file
    assert.equal(
      await run("write_file", { path: "notes/a.txt", content: "one\ntwo\n" }),
      '{"bytes_written": 8, "dirs_created": true, "verified": true, "resolved_path": "/workdir/notes/a.txt", "files_modified": ["/workdir/notes/a.txt"]}',
    );
    assert.equal(
      await run("read_file", { path: "notes/a.txt" }),
      '{"content": "1|one\\n2|two\\n3|", "total_lines": 2, "file_size": 8, "truncated": false, "is_binary": false, "is_image": false}',
    );
    assert.equal(
      await run("read_file", { path: "notes/a.txt", offset: 2, limit: 1 }),
      '{"content": "2|two\\n3|", "total_lines": 2, "file_size": 8, "truncated": false, "is_binary": false, "is_image": false}',
    );
    assert.equal(
      await run("read_file", { path: "notes/a.txt", offset: 1, limit: 1 }),
      '{"content": "1|one\\n2|", "total_lines": 2, "file_size": 8, "truncated": true, "hint": "Use offset=2 to continue reading (showing 1-1 of 2 lines)", "is_binary": false, "is_image": false}',
    );
    assert.equal(
      await run("read_file", { path: "notes/b.txt" }),
      '{"content": "", "total_lines": 0, "file_size": 0, "truncated": false, "is_binary": false, "is_image": false, "error": "File not found: notes/b.txt", "similar_files": ["notes/a.txt"]}',
    );
    assert.equal(
      await run("read_file", { path: "notes" }),
      '{"content": "", "total_lines": 0, "file_size": 0, "truncated": false, "is_binary": false, "is_image": false, "error": "Cannot read \'notes\': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely."}',
    );
    // read first: wc.py exists and was not read in this episode.
    const refused = JSON.parse(await run("write_file", { path: "wc.py", content: "print(1)\n" }));
    assert.deepEqual(Object.keys(refused), ["error"]);
    assert.match(refused.error, /has not been read/);
    assert.match(await run("read_file", { path: "wc.py" }), /^\{"content": "1\|/);
    assert.match(await run("write_file", { path: "wc.py", content: "print(1)\n" }), /^\{"bytes_written": 9, /);
    assert.equal(
      await run("write_file", { path: "x.txt" }),
      '{"error": "write_file: missing required field \'content\'. The tool call included a path but no content argument — this is almost always a dropped-arg bug under context pressure. Re-emit the tool call with the full content payload, or use execute_code with hermes_tools.write_file() for very large files."}',
    );
    assert.equal(
      await run("write_file", { path: "x.txt", content: 5 }),
      '{"error": "write_file: \'content\' must be a string, got int."}',
    );
    // patch
    await run("write_file", { path: "notes/c.txt", content: "one\ntwo\none\n" });
    assert.equal(
      await run("patch", { mode: "replace", path: "notes/c.txt", old_string: "two", new_string: "2" }),
      '{"success": true, "diff": "--- a//workdir/notes/c.txt\\n+++ b//workdir/notes/c.txt\\n@@ -1,3 +1,3 @@\\n one\\n-two\\n+2\\n one\\n", "files_modified": ["/workdir/notes/c.txt"], "resolved_path": "/workdir/notes/c.txt"}',
    );
    assert.equal(
      await run("patch", { mode: "replace", path: "notes/c.txt", old_string: "one", new_string: "1" }),
      '{"success": false, "error": "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\\n  L1: one\\n  L3: one"}',
    );
    assert.match(
      await run("patch", { path: "notes/c.txt", old_string: "one", new_string: "1", replace_all: true }),
      /^\{"success": true, "diff": "--- a\/\/workdir\/notes\/c.txt/,
    );
    const miss = '{"success": false, "error": "Could not find a match for old_string in the file", "_hint": ';
    assert.equal(
      await run("patch", { mode: "replace", path: "notes/c.txt", old_string: "zzz", new_string: "1" }),
      miss +
        '"old_string not found. Use read_file to verify the current content, or search_files to locate the text."}',
    );
    await run("patch", { mode: "replace", path: "notes/c.txt", old_string: "zzz", new_string: "1" });
    assert.match(
      await run("patch", { mode: "replace", path: "notes/c.txt", old_string: "zzz", new_string: "1" }),
      /"_hint": "This is failure #3 patching 'notes\/c.txt'\. Stop retrying/,
    );
    assert.equal(
      await run("patch", { mode: "replace", old_string: "a", new_string: "b" }),
      '{"error": "path required"}',
    );
    assert.equal(
      await run("patch", { mode: "replace", path: "notes/c.txt" }),
      '{"error": "old_string and new_string required"}',
    );
    assert.equal(await run("patch", { mode: "edit", path: "x" }), '{"error": "Unknown mode: edit"}');
    assert.equal(
      await run("patch", { mode: "replace", path: "nope.txt", old_string: "a", new_string: "b" }),
      '{"success": false, "error": "Failed to read file: /workdir/nope.txt"}',
    );
    // search_files
    assert.equal(
      await run("search_files", { pattern: "^2$", path: "notes" }),
      '{"total_count": 1, "matches": [{"path": "notes/c.txt", "line": 2, "content": "2"}]}',
    );
    assert.equal(await run("search_files", { pattern: "qqqzzz", path: "notes" }), '{"total_count": 0}');
    assert.equal(
      await run("search_files", { pattern: "*.txt", target: "files", path: "notes", limit: 1 }),
      '{"total_count": 2, "files": ["notes/c.txt"], "truncated": true, "total_count_is_lower_bound": true}\n\n' +
        "[Hint: Results truncated. Use offset=1 to see more, or narrow with a more specific pattern or file_glob.]",
    );
    await run("terminal", { command: "seq 1 6 > notes/s.txt" });
    assert.equal(
      await run("search_files", { pattern: "[0-9]", path: "notes/s.txt" }),
      '{"total_count": 6, "matches_format": "path-grouped: each file path on its own line, followed by indented \'<line>: <content>\' rows for matches in that file", "matches_text": "notes/s.txt\\n  1: 1\\n  2: 2\\n  3: 3\\n  4: 4\\n  5: 5\\n  6: 6"}',
    );
    // unknown tool and bad JSON arguments
    assertApprox(await run("Terminal", { command: "ls" }), '{"error": "Unknown tool: Terminal"}');
    assert.equal(ep.counters.unknownTools, 1);
    const bad = JSON.parse(await run("terminal", null, "{not json"));
    assert.match(bad.error, /^Invalid JSON arguments for terminal: /);
  });
});

// The oracle on the example tasks is in tests/profiles_suite_test.ts.
