/**
 * small-agent@1, pgs's own small-model harness: the action language (pure), and every action against a real
 * container: `map`'s outline and budget, `read`, the recoverable `edit`, `append`/`write`, `run`, the loop guard, the
 * project docs in the first user turn, and the reply that ends the episode (the oracle on the example tasks is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import { read } from "../../lib/harness/tools/ops.ts";
import { SMALL_AGENT_EDIT } from "./edit_match.ts";
import { smallAgent } from "./mod.ts";
import { MAP_BUDGET, mapDir } from "./map.ts";
import { parseAction, parseSections } from "./parse.ts";
import { DOCS_CAP, formatDocs, TRUNCATED } from "./project_docs.ts";
import { dockerTest, makeTask, removeTask } from "../../tests/docker_helpers.ts";
import { EXAMPLE_TASKS, withEpisode, withLocalEpisode } from "../../tests/profile_helpers.ts";

const FENCE = "```";
const INSTRUCTION = "Fix wc.py so that it counts words.\n";
const AGENTS = "# Rules\n\n" + "- Indent with four spaces; run the tests before finishing.\n".repeat(40);

const UTIL_PY = `"""Helpers."""
import os


def slug(text):
    return text.lower()


class Counter:
    """Counts."""

    def __init__(self):
        self.n = 0

    def add(self, k=1):
        def inner():
            pass
        self.n += k
`;
const APP_TS = `export function main(): void {}
export const double = (x: number): number => x * 2;
export class App {
  run() {}
}
const local = () => 1;
`;
const WC_PY = `def count(text):
    words = text.split(" ")
    return len(words)


def show(n):
    print(n)
    print(n)
`;

/** A task on pgs-base:1 with a small project in /workdir; `docs` names the rules files to add. */
function fixtureTask(docs: Record<string, string>): Promise<string> {
  const files: Record<string, string> = {
    "instruction.md": INSTRUCTION,
    "environment/workdir/pkg/__init__.py": "",
    "environment/workdir/pkg/util.py": UTIL_PY,
    "environment/workdir/web/app.ts": APP_TS,
    "environment/workdir/wc.py": WC_PY,
  };
  for (const [name, text] of Object.entries(docs)) files[`environment/workdir/${name}`] = text;
  return makeTask(files);
}

async function withFixture(
  docker: Parameters<typeof withEpisode>[0],
  docs: Record<string, string>,
  fn: (ep: ProfileEpisode) => Promise<void>,
): Promise<void> {
  const dir = await fixtureTask(docs);
  try {
    await withEpisode(docker, smallAgent(), dir, (ep) => fn(ep));
  } finally {
    await removeTask(dir);
  }
}

/** One action block (after a line of thought, as a model writes it); returns the one observation's text. */
async function act(ep: ProfileEpisode, body: string): Promise<string> {
  const r = await ep.step({ content: `Next step.\n\n${FENCE}action\n${body}\n${FENCE}\n` });
  assert.equal(r.done, false, `the episode goes on after ${body.split("\n")[0]}`);
  assert.equal(r.observations.length, 1);
  assert.equal(r.observations[0].role, "user");
  assert.equal(typeof r.observations[0].content, "string");
  return r.observations[0].content as string;
}

const userText = (ep: ProfileEpisode) => ep.messages.find((m) => m.role === "user")!.content as string;

// ---------------------------------------------------------------------------------------------------------------------
// Pure: the profile's shape and the action language.

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

dockerTest(
  "small-agent: AGENTS.md is prepended to the user turn, capped; map lists files and signatures",
  async (docker) => {
    await withFixture(docker, { "AGENTS.md": AGENTS, "CLAUDE.md": "not this one\n" }, async (ep) => {
      const user = userText(ep);
      const docs = `## Project rules (from AGENTS.md)\n\n${AGENTS.trim().slice(0, DOCS_CAP).trimEnd()}${TRUNCATED}`;
      assert.equal(user, `${docs}\n\n## Task\n\n${INSTRUCTION}`);
      assert.ok(!user.includes("not this one"), "AGENTS.md wins over CLAUDE.md");

      const map = await act(ep, "map");
      assert.equal(
        map,
        [
          "Files in /workdir (6):",
          "AGENTS.md",
          "CLAUDE.md",
          "pkg/__init__.py",
          "pkg/util.py",
          "wc.py",
          "web/app.ts",
          "",
          "Outline (line: definition):",
          "pkg/util.py",
          "  5: def slug(text):",
          "  9: class Counter:",
          "  12:     def __init__(self):",
          "  15:     def add(self, k=1):",
          "wc.py",
          "  1: def count(text):",
          "  6: def show(n):",
          "web/app.ts",
          "  1: export function main(): void {}",
          "  2: export const double = (x: number): number => x * 2;",
          "  3: export class App {",
        ].join("\n"),
      );
      assert.match(await act(ep, "map web"), /^Files in \/workdir\/web \(1\):\napp\.ts\n/);
      assert.match(await act(ep, "map nowhere"), /^Error: there is no directory `nowhere`/);
      assert.match(await act(ep, "map wc.py"), /^Error: `wc.py` is a file, not a directory; use `read wc.py`\.$/);
    });
  },
);

dockerTest(
  "small-agent: map keeps to its budget on a big tree, and falls back to a file list without python3",
  async (docker) => {
    await withFixture(docker, { "CONTRIBUTING.md": "Write tests.\n" }, async (ep) => {
      assert.ok(userText(ep).startsWith("## Project rules (from CONTRIBUTING.md)\n\nWrite tests.\n\n## Task\n\n"));
      const made = await act(
        ep,
        "run python3 -c \"\nfor i in range(150):\n    open(f'm{i:03}.py', 'w').write(f'def f{i}():\\n    pass\\n')\"",
      );
      assert.equal(made, "[exit 0]\n(no output)");
      const map = await act(ep, "map");
      const lines = map.split("\n");
      assert.equal(lines.length, MAP_BUDGET, "the whole answer is the budget");
      assert.equal(lines[0], "Files in /workdir (155):");
      assert.match(lines[MAP_BUDGET / 2 - 1], /^… \d+ more files$/);
      assert.match(lines.at(-1)!, /^… \d+ more lines$/);
      const plain = await mapDir(ep.session, ".", "pgs-no-such-python3");
      const plainLines = plain.split("\n");
      assert.equal(plainLines[0], "Files in /workdir (no python3 here, so no outline):");
      assert.equal(plainLines.length, MAP_BUDGET);
      assert.deepEqual(plainLines.slice(1, 4), ["CONTRIBUTING.md", "m000.py", "m001.py"]);
      assert.match(plainLines.at(-1)!, /^… 37 more files$/);
    });
  },
);

dockerTest("small-agent: read numbers lines, caps them, and words its mistakes", async (docker) => {
  await withFixture(docker, {}, async (ep) => {
    assert.equal(userText(ep), INSTRUCTION, "no docs: the instruction alone");
    assert.equal(
      await act(ep, "read wc.py"),
      "wc.py (lines 1-8 of 8):\n" +
        "   1 | def count(text):\n" +
        '   2 |     words = text.split(" ")\n' +
        "   3 |     return len(words)\n" +
        "   4 | \n" +
        "   5 | \n" +
        "   6 | def show(n):\n" +
        "   7 |     print(n)\n" +
        "   8 |     print(n)",
    );
    assert.equal(
      await act(ep, "read wc.py 2-3"),
      'wc.py (lines 2-3 of 8):\n   2 |     words = text.split(" ")\n' +
        "   3 |     return len(words)",
    );
    assert.match(await act(ep, "read wc.py 20-30"), /^Error: wc.py has 8 lines; ask for a range within 1-8/);
    assert.match(await act(ep, "read nope.py"), /^Error: there is no file `nope.py`\. Run `map`/);
    assert.match(await act(ep, "read pkg"), /^Error: `pkg` is a directory; use `map pkg`/);
    assert.equal(await act(ep, "read pkg/__init__.py"), "pkg/__init__.py is empty.");
    await act(ep, "run seq 1 1000 > big.txt");
    const big = await act(ep, "read big.txt");
    assert.equal(big.split("\n").length, 1 + 400 + 1);
    assert.ok(big.endsWith("\n 400 | 400\n[400 lines at most per read: `read big.txt 401-800` shows more]"));
    assert.ok((await act(ep, "read big.txt 990")).endsWith("\n1000 | 1000"));
  });
});

dockerTest(
  "small-agent: edit: exact, a near miss re-indented, ambiguity refused, a miss answered with close lines",
  async (docker) => {
    await withFixture(docker, {}, async (ep) => {
      const file = () => read(ep.session.box, "/workdir/wc.py");
      assert.equal(
        await act(ep, "edit wc.py\nFind:\ndef show(n):\nReplace:\ndef show(n, times=2):"),
        "Edited wc.py at line 6. Lines 4-8 now:\n   4 | \n   5 | \n   6 | def show(n, times=2):\n" +
          "   7 |     print(n)\n   8 |     print(n)",
      );
      assert.equal(
        await act(
          ep,
          'edit wc.py\nFind:\nwords = text.split(" ")\nreturn len(words)\nReplace:\nwords = text.split()\n' +
            "return len(words)",
        ),
        "Edited wc.py at line 2 (Find: matched with whitespace ignored; the replacement was re-indented by +4). " +
          "Lines 1-5 now:\n   1 | def count(text):\n   2 |     words = text.split()\n   3 |     return len(words)\n" +
          "   4 | \n   5 | ",
      );
      assert.ok((await file()).startsWith("def count(text):\n    words = text.split()\n    return len(words)\n"));
      const before = await file();
      assert.equal(
        await act(ep, "edit wc.py\nFind:\nprint(n)\nReplace:\nprint(n * times)"),
        "Error: Find: matches 2 places in wc.py (lines 7, 8); nothing was changed. Add a neighbouring line to Find: " +
          "so that it matches one place.",
      );
      assert.match(
        await act(ep, "edit wc.py\nFind:\n\tprint(n)\nReplace:\nx"),
        /^Error: Find: matches 2 places .*7, 8/,
      );
      const miss = await act(ep, "edit wc.py\nFind:\n    return len(word_list)\nReplace:\n    return 0");
      assert.equal(
        miss.split("\n").slice(0, 2).join("\n"),
        "Error: Find: does not match wc.py; nothing was changed. The closest lines in the file:\n" +
          "   3 |     return len(words)",
      );
      assert.match(
        miss,
        /\nCopy the lines you mean exactly \(without the numbers\), or `read wc.py 1-13` to see more\.$/,
      );
      assert.match(await act(ep, "edit wc.py\nFind:\n\nReplace:\nx"), /^Error: Find: is empty\. To add lines use/);
      assert.match(await act(ep, "edit nope.py\nFind:\na\nReplace:\nb"), /^Error: there is no file `nope.py`/);
      assert.equal(
        await act(ep, "edit wc.py\nFind:\ndef count\nReplace:\ndef count"),
        "No change: Replace: gives " +
          "the same text as Find: in wc.py.",
      );
      assert.equal(await file(), before, "the refused edits changed nothing");
    });
  },
);

dockerTest("small-agent: append and write; run shows the exit code and keeps cd and exports", async (docker) => {
  await withFixture(docker, {}, async (ep) => {
    assert.equal(await act(ep, "write notes/a.txt\none\n  two"), "Wrote notes/a.txt (2 lines).");
    assert.equal(await read(ep.session.box, "/workdir/notes/a.txt"), "one\n  two\n");
    assert.equal(await act(ep, "append notes/a.txt\nthree"), "Appended 1 line to notes/a.txt (now lines 3-3).");
    await act(ep, "run printf 'no newline' > b.txt");
    assert.equal(await act(ep, "append b.txt\nx\ny"), "Appended 2 lines to b.txt (now lines 2-3).");
    assert.equal(await read(ep.session.box, "/workdir/b.txt"), "no newline\nx\ny\n");
    assert.equal(await act(ep, "append new.txt\nfirst"), "Appended 1 line to new.txt (now lines 1-1).");
    assert.match(await act(ep, "write pkg\nx"), /^Error: `pkg` is a directory/);
    assert.equal(await act(ep, "run echo out; echo err >&2; exit 3"), "[exit 3]\nout\nerr\n");
    assert.equal(await act(ep, "run cd pkg && export PGS_X=42"), "[exit 0]\n(no output)");
    assert.equal(await act(ep, "run pwd; echo $PGS_X"), "[exit 0]\n/workdir/pkg\n42\n");
    const long = await act(ep, "run seq 1 5000");
    assert.match(long, /^\[exit 0\]\n1\n2\n[\s\S]*\n\[… \d+ characters cut …\]\n[\s\S]*\n5000\n$/);
    assert.ok(long.length < 8200);
  });
});

dockerTest(
  "small-agent: the loop guard refuses a repeated read once, then serves it; run and edit never",
  async (docker) => {
    await withFixture(docker, {}, async (ep) => {
      const first = await act(ep, "read wc.py");
      assert.equal(
        await act(ep, "read  ./wc.py"),
        "You already ran `read  ./wc.py` and nothing has changed since; its output is above. Next, edit the file " +
          "(`edit ./wc.py` with Find:/Replace:) or run the tests (`run` and the test command).",
      );
      assert.equal(await act(ep, "read wc.py"), first, "asked again, it is served");
      assert.equal(await act(ep, "read wc.py"), first, "and stays served");
      assert.equal((await act(ep, "read wc.py 1-2")).split("\n")[0], "wc.py (lines 1-2 of 8):", "another range is new");
      const map = await act(ep, "map");
      assert.equal(
        await act(ep, "map"),
        "You already ran `map` and nothing has changed since; its output is above. Next, read a file (`read PATH`) " +
          "or run a command (`run COMMAND`).",
      );
      // A change clears the guard: the same read is served at once.
      assert.equal(await act(ep, "append wc.py\n# end"), "Appended 1 line to wc.py (now lines 9-9).");
      assert.ok((await act(ep, "read wc.py")).endsWith("   9 | # end"));
      assert.equal(await act(ep, "map"), map);
      // run and edit are never refused, however often they repeat.
      for (let i = 0; i < 3; i++) assert.equal(await act(ep, "run echo hi"), "[exit 0]\nhi\n");
      for (let i = 0; i < 3; i++) assert.match(await act(ep, "edit wc.py\nFind:\nnope\nReplace:\nx"), /^Error: Find:/);
      // A failed edit changed nothing, so a read after it is still a repeat.
      assert.equal((await act(ep, "read wc.py 1-2")).split("\n")[0], "wc.py (lines 1-2 of 9):");
      assert.match(await act(ep, "read wc.py 1-2"), /^You already ran `read wc.py 1-2`/);
    });
  },
);

dockerTest(
  "small-agent: unknown actions and two blocks are answered; a reply without a block ends the episode",
  async (docker) => {
    await withFixture(docker, {}, async (ep) => {
      assert.equal(
        await act(ep, "grep count wc.py"),
        "Error: unknown action `grep`. Start the block with one of: map, read, edit, append, write, run.",
      );
      const two = await ep.step({ content: `${FENCE}action\nmap\n${FENCE}\n${FENCE}action\nread wc.py\n${FENCE}` });
      assert.equal(two.done, false);
      assert.equal(
        two.observations[0].content,
        "Error: one action per turn, and this reply has 2 action blocks. Send exactly one ```action block, or reply " +
          "without one when you are done.",
      );
      assert.equal(ep.counters.formatErrors, 1);
      const end = await ep.step({ content: "Done: wc.py now counts words.\n\nAnswer: 3" });
      assert.equal(end.done, true);
      assert.deepEqual(end.observations, []);
      assert.equal(ep.answer(), "Done: wc.py now counts words.\n\nAnswer: 3");
    });
  },
);
