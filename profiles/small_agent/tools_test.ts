/** small-agent's actions against a real container (the profile's shape and its action language: `mod_test.ts`). */
import assert from "node:assert/strict";
import { read } from "../../lib/harness/tools/ops.ts";
import { MAP_BUDGET, mapDir } from "./map.ts";
import { DOCS_CAP, TRUNCATED } from "./project_docs.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";

import { act, AGENTS, FENCE, INSTRUCTION, userText, withFixture } from "./testdata/fixtures.ts";

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
