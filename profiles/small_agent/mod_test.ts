/**
 * small-agent@1, pgs's own small-model harness: the action language (pure), and every action against a real
 * container: `map`'s outline and budget, `read`, the recoverable `edit`, `append`/`write`, `run`, the loop guard, the
 * project docs in the first user turn, and the reply that ends the episode (the oracle on the example tasks is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SMALL_AGENT_EDIT } from "./edit_match.ts";
import { smallAgent } from "./mod.ts";
import { parseAction, parseSections } from "./parse.ts";
import { DOCS_CAP, formatDocs, TRUNCATED } from "./project_docs.ts";
import { EXAMPLE_TASKS, withLocalEpisode } from "../../tests/profile_helpers.ts";

import { userText } from "./testdata/fixtures.ts";

Deno.test("small-agent: a fenced `action` protocol, one act tool, no_call stop, run-prefixed shell, its own edit", () => {
  const p = smallAgent();
  assert.equal(`${p.name}@${p.version}`, "small-agent@1");
  assert.deepEqual(p.protocol, { kind: "fenced", lang: "action", tool: "act", arg: "action" });
  assert.deepEqual(p.tools.map((t) => t.schema.function.name), ["act"]);
  assert.deepEqual(p.stop, { kind: "no_call" });
  assert.deepEqual(p.answer, { kind: "last_text" });
  assert.deepEqual(p.shell, { tool: "act", arg: "action", prefix: "run " });
  assert.equal(p.edits?.matcher, SMALL_AGENT_EDIT);
  assert.equal(p.user, "{project_docs}{instruction}");
  for (const word of ["map", "read PATH", "edit PATH", "append PATH", "write PATH", "run COMMAND", "Find:"]) {
    assert.ok(p.system.includes(word), `the prompt teaches ${word}`);
  }
  assert.match(p.system, /One action per turn/);
  assert.match(p.system, /reply without an action block\. That reply is your answer/);
  assert.match(p.emulates.harness, /not an emulation/);
});

Deno.test("small-agent: actions parse from a block's body; errors are one line naming the fix", () => {
  assert.deepEqual(parseAction("map"), { kind: "map", dir: "." });
  assert.deepEqual(parseAction("MAP pkg"), { kind: "map", dir: "pkg" });
  assert.deepEqual(parseAction("read wc.py"), { kind: "read", path: "wc.py" });
  assert.deepEqual(parseAction("read wc.py 3-9"), { kind: "read", path: "wc.py", start: 3, end: 9 });
  assert.deepEqual(parseAction("read: 'a b.py' 3:9"), { kind: "read", path: "a b.py", start: 3, end: 9 });
  assert.deepEqual(parseAction("read wc.py 5"), { kind: "read", path: "wc.py", start: 5 });
  assert.deepEqual(parseAction("read wc.py\nread x.py"), {
    kind: "read",
    path: "wc.py",
    note: "(1 more line of the block ignored: one action per turn)",
  });
  assert.match((parseAction("read wc.py lines") as { message: string }).message, /write it as START-END/);
  assert.deepEqual(parseAction("run cd pkg &&\nls"), { kind: "run", command: "cd pkg &&\nls" });
  assert.deepEqual(parseAction("write a.txt\nx\n  y"), { kind: "write", path: "a.txt", body: "x\n  y" });
  assert.deepEqual(parseAction("edit wc.py\nFind:\n    a\nReplace:\n    b\n\n    c"), {
    kind: "edit",
    path: "wc.py",
    find: "    a",
    replace: "    b\n\n    c",
  });
  // Inline sections, padding blank lines, an empty Replace (a deletion).
  assert.deepEqual(parseSections(["find: x = 1", "", "Replace:"]), { find: "x = 1", replace: "" });
  assert.deepEqual(parseSections(["Find:", "", "a", "", "Replace: b"]), { find: "a", replace: "b" });
  for (
    const [body, re] of [
      ["edit wc.py\nReplace:\nb", /no `Find:` line\. The format is: edit PATH, then a line `Find:`/],
      ["edit wc.py\nFind:\na", /no `Replace:` line after `Find:`/],
      ["read", /`read` needs a path/],
      ["run", /`run` needs a command/],
      [
        "cat wc.py",
        /^Error: unknown action `cat`\. Start the block with one of: map, read, edit, append, write, run\.$/,
      ],
      ["", /^Error: the action block is empty\./],
    ] as const
  ) {
    const a = parseAction(body);
    assert.equal(a.kind, "error", body);
    if (a.kind === "error") {
      assert.match(a.message, re);
      assert.ok(!a.message.includes("\n"), "one line");
    }
  }
});

Deno.test("small-agent: project docs are trimmed, capped at 1200 characters and headed above the task", () => {
  assert.equal(formatDocs("AGENTS.md", " \n"), "");
  assert.equal(formatDocs("CLAUDE.md", "Be brief.\n"), "## Project rules (from CLAUDE.md)\n\nBe brief.\n\n## Task\n\n");
  const long = formatDocs("AGENTS.md", "é".repeat(DOCS_CAP + 5));
  assert.equal(long, `## Project rules (from AGENTS.md)\n\n${"é".repeat(DOCS_CAP)}${TRUNCATED}\n\n## Task\n\n`);
});

Deno.test("small-agent: without project docs the user turn is the instruction alone (local runtime)", async () => {
  const task = join(EXAMPLE_TASKS, "fix-word-count");
  const instruction = await Deno.readTextFile(join(task, "instruction.md"));
  await withLocalEpisode(smallAgent(), task, (ep) => {
    assert.equal(userText(ep), instruction);
    return Promise.resolve();
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// In a container.
