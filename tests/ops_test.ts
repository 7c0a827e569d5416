/** The container ops profiles bind onto, against the real engine: results, OpError kinds, odd inputs. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { text } from "../lib/runtime/channel.ts";
import * as ops from "../lib/harness/tools/ops.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

async function withBox(docker: import("../lib/runtime/docker/mod.ts").Docker, fn: (box: Sandbox) => Promise<void>) {
  // fix-word-count runs as an unprivileged user, which is what agents usually are.
  const box = await Sandbox.start(await loadTask(join(EXAMPLE_TASKS, "fix-word-count")), new ImageStore(docker));
  try {
    await fn(box);
  } finally {
    await box.remove();
  }
}

const kind = (k: ops.OpErrorKind) => (e: unknown) => e instanceof ops.OpError && e.kind === k;

dockerTest("ops: read, write and their errors; write keeps mode and owner, creates parents", async (docker) => {
  await withBox(docker, async (box) => {
    await assert.rejects(ops.read(box, "/workdir/nope"), kind("not_found"));
    await assert.rejects(ops.read(box, "/workdir"), kind("is_dir"));
    await assert.rejects(ops.read(box, "/etc/shadow"), kind("denied"));
    await ops.write(box, "/workdir/a/b/c.txt", "héllo 'q' \\n $HOME `x`\n");
    assert.equal(await ops.read(box, "/workdir/a/b/c.txt"), "héllo 'q' \\n $HOME `x`\n");
    await box.exec("chmod 751 wc.py");
    await ops.write(box, "/workdir/wc.py", "print(1)\n");
    const st = await box.exec("stat -c '%a %U' wc.py a/b/c.txt");
    assert.equal(text(st.stdout), "751 agent\n644 agent\n");
    await assert.rejects(ops.write(box, "/workdir/a", "x"), kind("is_dir"));
  });
});

dockerTest("ops: binary files, huge files and odd file names do not break ops", async (docker) => {
  await withBox(docker, async (box) => {
    const bin = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x5c, 0x27, 10, 0x80]);
    const odd = "/workdir/we ird 'name\" $x\\.txt";
    await ops.write(box, odd, bin);
    assert.deepEqual((await ops.readBytes(box, odd)).data, bin);
    await assert.rejects(ops.read(box, odd), kind("binary"));
    const big = "x".repeat(300_000) + "\n";
    await ops.write(box, "/workdir/big.txt", big);
    assert.equal((await ops.read(box, "/workdir/big.txt")).length, big.length);
    const hits = await ops.grep(box, "ird|wordcount", "/workdir");
    assert.ok(hits.every((h) => !h.path.endsWith(".txt") || !h.path.includes("ird")), "binary files are skipped");
    const names = (await ops.listDir(box, "/workdir")).map((e) => e.path);
    assert.ok(names.includes("we ird 'name\" $x\\.txt"));
  });
});

dockerTest("ops: replace, multiReplace, insert, undoEdit and their OpError kinds", async (docker) => {
  await withBox(docker, async (box) => {
    const f = "/workdir/e.txt";
    await ops.write(box, f, "a b a\nline2\n");
    await assert.rejects(ops.replace(box, f, "", "x"), kind("empty_old"));
    await assert.rejects(ops.replace(box, f, "a", "a"), kind("identical"));
    await assert.rejects(ops.replace(box, f, "zzz", "x"), kind("no_match"));
    await assert.rejects(
      ops.replace(box, f, "a", "x"),
      (e) => kind("multiple")(e) && (e as ops.OpError).data.count === 2,
    );
    assert.equal((await ops.replace(box, f, "a", "x", true)).after, "x b x\nline2\n");
    await ops.undoEdit(box, f);
    assert.equal(await ops.read(box, f), "a b a\nline2\n");
    await assert.rejects(ops.undoEdit(box, f), kind("no_history"));
    const m = await ops.multiReplace(box, f, [{ old: "b", new: "B" }, { old: "line2", new: "L2" }]);
    assert.equal(m.after, "a B a\nL2\n");
    await assert.rejects(
      ops.multiReplace(box, f, [{ old: "a B", new: "1" }, { old: "B a", new: "2" }]),
      kind("overlap"),
    );
    assert.equal((await ops.insert(box, f, 1, "ins")).after, "a B a\nins\nL2\n");
    assert.equal((await ops.insert(box, f, 0, "top\n")).after, "top\na B a\nins\nL2\n");
    await assert.rejects(ops.insert(box, f, 99, "x"), kind("bad_line"));
    // Multi-level: each undo goes one edit further back.
    await ops.undoEdit(box, f);
    assert.equal(await ops.read(box, f), "a B a\nins\nL2\n");
    await ops.undoEdit(box, f);
    assert.equal(await ops.read(box, f), "a B a\nL2\n");
    await ops.undoEdit(box, f);
    assert.equal(await ops.read(box, f), "a b a\nline2\n");
    await assert.rejects(ops.undoEdit(box, f), kind("no_history"));
  });
});

dockerTest("ops: glob newest first, grep with extended regex, bad pattern", async (docker) => {
  await withBox(docker, async (box) => {
    await box.exec("mkdir -p g/sub && touch -d '2020-01-01' g/old.py && touch g/sub/new.py && touch g/x.txt");
    assert.deepEqual(await ops.glob(box, "**/*.py", "g"), ["g/sub/new.py", "g/old.py"]);
    assert.deepEqual(await ops.glob(box, "*.rs", "g"), []);
    const hits = await ops.grep(box, "def (tokenize|count_words)", "/workdir", "*.py");
    assert.ok(hits.length >= 2 && hits.every((h) => h.path.endsWith("wordcount.py") && h.line > 0));
    assert.deepEqual(await ops.grep(box, "no-such-text-anywhere", "/workdir"), []);
    await assert.rejects(ops.grep(box, "(unclosed", "/workdir"), kind("bad_pattern"));
  });
});

dockerTest("ops: exec_ stateless and persistent (cd and exports carry over), sh and bash", async (docker) => {
  await withBox(docker, async (box) => {
    const p = { timeout: 30, persistent: true };
    await ops.exec_(box, "cd /tmp && export FOO=bar", p);
    const r = await ops.exec_(box, 'echo "$PWD $FOO"', p);
    assert.equal(r.stdout, "/tmp bar\n");
    const s = await ops.exec_(box, 'echo "$PWD ${FOO:-unset}"', { timeout: 30 });
    assert.equal(s.stdout, "/workdir unset\n");
    const sh = await ops.exec_(box, "readlink /proc/$$/exe; echo e >&2", { timeout: 30, shell: "sh", merge: true });
    assert.equal(sh.output, "/usr/bin/dash\ne\n");
    const bash = await ops.exec_(box, "readlink /proc/$$/exe; true", { timeout: 30 });
    assert.equal(bash.stdout, "/usr/bin/bash\n");
    const t = await ops.exec_(box, "sleep 5", { timeout: 1 });
    assert.equal(t.timedOut, true);
  });
});

dockerTest(
  "ops: applyPatch in a container: verify, then write; codex's messages with the container's paths",
  async (docker) => {
    const { applyPatch, patchSummaryText } = await import("../profiles/codex/patch/apply.ts");
    await withBox(docker, async (box) => {
      const patch = [
        "*** Begin Patch",
        "*** Add File: notes/new.txt",
        "+hello",
        "*** Update File: sample.txt",
        "@@",
        "-Hello, world! Hello again.",
        "+Goodbye, world!",
        "*** End Patch",
      ].join("\n");
      const s = await applyPatch(box, patch);
      assert.equal(patchSummaryText(s), "Success. Updated the following files:\nA notes/new.txt\nM sample.txt\n");
      assert.equal(await ops.read(box, "/workdir/notes/new.txt"), "hello\n");
      assert.match(await ops.read(box, "/workdir/sample.txt"), /^Goodbye, world!\n/);
      await assert.rejects(
        applyPatch(box, "*** Begin Patch\n*** Delete File: /etc/shadow\n*** End Patch"),
        (e) =>
          e instanceof ops.OpError && e.data.message === "Failed to read /etc/shadow: Permission denied (os error 13)",
      );
    });
  },
);

dockerTest(
  "ops: a process outlives its call in a container, takes input and is killed with its children",
  async (docker) => {
    const p = await import("../lib/harness/tools/processes.ts");
    await withBox(docker, async (box) => {
      const h = await p.startProcess(box, 'echo up; read x; echo "in:$x"; sleep 300', {
        shell: ["bash", "-lc"],
        stdin: "pipe",
      });
      assert.equal(text((await p.readProcess(box, h, 300)).output), "up\n");
      const r = await p.readProcess(box, h, 300, { input: "abc\n" });
      assert.equal(text(r.output), "in:abc\n");
      assert.equal(r.exitCode, null);
      await p.killProcess(box, h);
      const left = await box.exec("ps -eo stat=,args= | grep -v '^Z' | grep -c ' sleep 300$' || true", { shell: "sh" });
      assert.equal(text(left.stdout).trim(), "0");
    });
  },
);
