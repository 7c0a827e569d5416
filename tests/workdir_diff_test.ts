/**
 * The files an episode changed: the tar reader on what `tar` and our writer produce, the diff of two trees (text,
 * modes, binary files named, .git/ left out, the cap), and, against the engine, a real sandbox recorded from its start
 * to its end without anything new appearing in the container.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readTar, type TarMember } from "../lib/base/tar_read.ts";
import { tarArchive } from "../lib/base/tar.ts";
import {
  diffTrees,
  readTree,
  recordWorkdir,
  type Tree,
  type TreeEntry,
  WORKDIR_DIFF_CAP,
} from "../lib/eval/workdir_diff.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import type { Box } from "../lib/runtime/runtime.ts";
import { loadTask } from "../lib/task/task.ts";
import { dockerTest } from "./docker_helpers.ts";
import { pgsEval } from "./eval_helpers.ts";
import { readTrajectories, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

const enc = new TextEncoder();

async function members(bytes: Uint8Array): Promise<(TarMember & { text?: string })[]> {
  const out: (TarMember & { text?: string })[] = [];
  await readTar(ReadableStream.from([bytes]), (m) => {
    out.push({ ...m });
    return "keep";
  }, (m, data) => {
    out.find((x) => x.name === m.name)!.text = new TextDecoder().decode(data);
  });
  return out;
}

Deno.test("tar reader: reads back our writer's archive, pax long names and symlinks included", async () => {
  const long = `d/${"x".repeat(150)}.txt`;
  const bytes = tarArchive([
    { name: "w", type: "dir", mode: 0o755, uid: 0, gid: 0 },
    { name: "w/a.txt", type: "file", mode: 0o644, uid: 0, gid: 0, data: enc.encode("a\n".repeat(300)) },
    { name: `w/${long}`, type: "file", mode: 0o755, uid: 0, gid: 0, data: enc.encode("long") },
    { name: "w/l", type: "symlink", mode: 0o777, uid: 0, gid: 0, linkname: "a.txt" },
  ]);
  const got = await members(bytes);
  assert.deepEqual(got.map((m) => [m.name, m.type, m.mode, m.size]), [
    ["w", "dir", 0o755, 0],
    ["w/a.txt", "file", 0o644, 600],
    [`w/${long}`, "file", 0o755, 4],
    ["w/l", "symlink", 0o777, 0],
  ]);
  assert.equal(got[1].text, "a\n".repeat(300));
  assert.equal(got[2].text, "long");
  assert.equal(got[3].linkname, "a.txt");
});

Deno.test("tar reader: GNU and pax archives from tar(1), long names and all; a cut archive is an error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_tar_" });
  try {
    const deep = join("w", "n".repeat(120), "m".repeat(60) + ".txt");
    await Deno.mkdir(join(dir, "w", "n".repeat(120)), { recursive: true });
    await Deno.writeTextFile(join(dir, deep), "deep\n");
    await Deno.writeTextFile(join(dir, "w", "ü.txt"), "umlaut\n");
    for (const format of ["gnu", "pax"]) {
      const r = await new Deno.Command("tar", { args: [`--format=${format}`, "-C", dir, "-cf", "-", "w"] }).output();
      assert.equal(r.code, 0);
      const got = await members(r.stdout);
      const byName = new Map(got.map((m) => [m.name, m]));
      assert.equal(byName.get(deep)?.text, "deep\n", `${format}: ${[...byName.keys()]}`);
      assert.equal(byName.get("w/ü.txt")?.text, "umlaut\n", format);
      await assert.rejects(members(r.stdout.subarray(0, 1024 + 100)), /truncated/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const file = (text: string, mode = 0o644): TreeEntry => ({
  type: "file",
  mode,
  size: enc.encode(text).length,
  data: enc.encode(text),
});

Deno.test("workdir diff: added, deleted and modified files in git's layout; modes; binary files named only", () => {
  const before: Tree = new Map([
    ["src", { type: "dir", mode: 0o755, size: 0 }],
    ["src/a.py", file("one\ntwo\nthree\n")],
    ["gone.txt", file("bye\n")],
    ["run.sh", file("echo hi\n")],
    ["img.bin", file("\0\x01\x02")],
    ["same.txt", file("same\n")],
    ["big.dat", { type: "file", mode: 0o644, size: 2_000_000, hash: "h1" }],
  ]);
  const after: Tree = new Map([
    ["big.dat", { type: "file", mode: 0o644, size: 2_000_001, hash: "h2" }],
    ["src", { type: "dir", mode: 0o755, size: 0 }],
    ["src/a.py", file("one\nTWO\nthree\n")],
    ["run.sh", file("echo hi\n", 0o755)],
    ["img.bin", file("\0\x01\x03")],
    ["same.txt", file("same\n")],
    ["new.txt", file("fresh")],
  ]);
  const d = diffTrees(before, after);
  assert.deepEqual(d.files, [
    { path: "big.dat", change: "modified", added: 0, removed: 0, large: true },
    { path: "gone.txt", change: "deleted", added: 0, removed: 1 },
    { path: "img.bin", change: "modified", added: 0, removed: 0, binary: true },
    { path: "new.txt", change: "added", added: 1, removed: 0 },
    { path: "run.sh", change: "modified", added: 0, removed: 0 },
    { path: "src/a.py", change: "modified", added: 1, removed: 1 },
  ]);
  assert.equal(
    d.patch,
    [
      "diff --git a/big.dat b/big.dat",
      "(not diffed for its size: 2000000 → 2000001 bytes)",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1,1 +0,0 @@",
      "-bye",
      "diff --git a/img.bin b/img.bin",
      "Binary files a/img.bin and b/img.bin differ",
      "diff --git a/new.txt b/new.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/new.txt",
      "@@ -0,0 +1,1 @@",
      "+fresh",
      "\\ No newline at end of file",
      "diff --git a/run.sh b/run.sh",
      "old mode 100644",
      "new mode 100755",
      "diff --git a/src/a.py b/src/a.py",
      "--- a/src/a.py",
      "+++ b/src/a.py",
      "@@ -1,3 +1,3 @@",
      " one",
      "-two",
      "+TWO",
      " three",
      "",
    ].join("\n"),
  );
  assert.equal(d.truncated, undefined);
  assert.equal(d.note, undefined);
});

Deno.test("workdir diff: .git/ is left out with a note; past the cap the patch is cut and every file still listed", () => {
  const before: Tree = new Map([[".git/index", { type: "file", mode: 0o644, size: 9, hash: "a" }]]);
  const after: Tree = new Map([[".git/index", { type: "file", mode: 0o644, size: 9, hash: "b" }]]);
  const line = "x".repeat(99) + "\n";
  for (let i = 0; i < 40; i++) after.set(`f${String(i).padStart(2, "0")}.txt`, file(line.repeat(100)));
  const d = diffTrees(before, after);
  assert.equal(d.files.length, 40, "every added file listed");
  assert.ok(!d.files.some((f) => f.path.startsWith(".git")));
  assert.ok(d.patch.length <= WORKDIR_DIFF_CAP, `${d.patch.length}`);
  assert.ok(d.patch.length > WORKDIR_DIFF_CAP - 11_000, "filled up to the cap");
  assert.ok(d.patch.endsWith("\n") && !d.patch.includes("diff --git a/f39.txt"));
  assert.equal(d.truncated, true);
  assert.equal(
    d.note,
    "the diff is cut at 256 KiB; every changed file is listed; 1 changed files under .git/ are not shown",
  );
  assert.deepEqual(diffTrees(after, after), { patch: "", files: [] });
  // A text rewritten through and through (past 2000 edits) is named, not diffed.
  const lines = (tag: string) => Array.from({ length: 3000 }, (_, i) => `${tag} ${i}\n`).join("");
  const rewritten = diffTrees(new Map([["r.txt", file(lines("a"))]]), new Map([["r.txt", file(lines("b"))]]));
  assert.deepEqual(rewritten.files, [{ path: "r.txt", change: "modified", added: 0, removed: 0, too_different: true }]);
  assert.match(rewritten.patch, /^\(too many changes to diff: 19890 → 19890 bytes\)$/m);
});

/** A stand-in for a box: `getArchive(PATH)` answered by tar(1) over a host folder (the archive's shape). */
function hostBox(root: string): Pick<Box, "getArchive"> {
  return {
    getArchive: (p: string) => {
      const child = new Deno.Command("tar", {
        args: ["--sort=name", "-C", root, "-cf", "-", p.replace(/^\//, "")],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const done = Promise.all([child.status, new Response(child.stderr).text()]).then(([s, err]) =>
        s.success ? { ok: true as const } : { ok: false as const, error: err.trim() }
      );
      // As a runtime's box does: cancelling a read that already ended is harmless.
      const cancel = () => {
        try {
          child.kill("SIGKILL");
        } catch { /* ended */ }
      };
      return { stream: child.stdout, done, cancel };
    },
  };
}

Deno.test("workdir diff: a tree's reads are bounded: files past the kept bytes are hashed, too large a tree is refused", async () => {
  const root = await Deno.makeTempDir({ prefix: "pgs_tree_" });
  try {
    await Deno.mkdir(join(root, "w"));
    for (const n of ["a", "b", "c"]) await Deno.writeTextFile(join(root, "w", `${n}.txt`), n.repeat(1000) + "\n");
    const box = hostBox(root);
    const before = await readTree(box, "/w", { maxKept: 2500 });
    assert.ok(typeof before !== "string", String(before));
    assert.deepEqual([...before.entries()].map(([p, e]) => [p, e.data ? "kept" : e.hash ? "hashed" : "-"]).sort(), [
      ["a.txt", "kept"],
      ["b.txt", "kept"],
      ["c.txt", "hashed"],
    ]);
    await Deno.writeTextFile(join(root, "w", "c.txt"), "changed\n");
    await Deno.writeTextFile(join(root, "w", "b.txt"), "changed\n");
    const after = await readTree(box, "/w", { maxKept: 2500 });
    assert.ok(typeof after !== "string");
    const d = diffTrees(before, after);
    assert.deepEqual(d.files.map((f) => [f.path, f.large ?? false, f.added, f.removed]), [
      ["b.txt", false, 1, 1],
      ["c.txt", true, 0, 0],
    ]);
    assert.match(d.patch, /^\(not diffed for its size: 1001 → 8 bytes\)$/m);
    assert.equal(
      await readTree(box, "/w", { maxTree: 1000 }),
      "the working directory holds more than 1000 bytes of files: not diffed",
    );
    assert.match(String(await readTree(box, "/nosuch")), /^cannot read the working directory: .*nosuch/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

dockerTest(
  "workdir diff: a sandbox's changes from its start to its end, nothing new seen in the container",
  async (docker) => {
    const task = await loadTask(join(EXAMPLE_TASKS, "fix-word-count"));
    const box = await Sandbox.start(task, new ImageStore(docker));
    try {
      const look = "ls -la --time-style=+ . /tmp /logs 2>&1; find / -xdev -newer /etc/hostname -not -path '/proc/*' " +
        "-not -path '/sys/*' -not -path '/dev/*' -not -path '/tmp/.pgs-ch*' 2>/dev/null | sort";
      const run = async (cmd: string) => {
        const r = await box.exec(cmd, { mergeStderr: true });
        return { code: r.exitCode, out: new TextDecoder().decode(r.stdout) };
      };
      const seen = (await run(look)).out;
      const rec = recordWorkdir(box, "isolated");
      await rec.ready;
      assert.equal((await run(look)).out, seen, "the start copy left nothing in the container");
      const r = await run(
        "printf 'new\\n' > added.txt && rm README.md && sed -i 's/def tokenize/def tokenise/' wordcount.py && " +
          "printf '\\0\\1' > blob.bin && mkdir -p .git && echo ref > .git/HEAD",
      );
      assert.equal(r.code, 0, r.out);
      const { diff } = await rec.end();
      const d = await diff;
      assert.deepEqual(d.files.map((f) => [f.path, f.change, f.added, f.removed, f.binary ?? false]), [
        [
          "README.md",
          "deleted",
          0,
          (await Deno.readTextFile(join(task.paths.workdir!, "README.md"))).split("\n").length - 1,
          false,
        ],
        ["added.txt", "added", 1, 0, false],
        ["blob.bin", "added", 0, 0, true],
        ["wordcount.py", "modified", 1, 1, false],
      ]);
      assert.match(d.patch, /^-def tokenize\(text\):$/m);
      assert.match(d.patch, /^\+def tokenise\(text\):$/m);
      assert.equal(d.note, "1 changed files under .git/ are not shown");
    } finally {
      await box.remove();
    }
  },
);

dockerTest(
  "workdir diff: pgs eval records it by default (the oracle's fix as a diff); --no-diff records none",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_eval_diff_" });
    try {
      const fix = join(EXAMPLE_TASKS, "fix-word-count");
      const runs: Record<string, Trajectory> = {};
      for (const [name, extra] of [["on", []], ["off", ["--no-diff"]]] as const) {
        const r = await pgsEval([
          "--tasks",
          fix,
          "--policy",
          "oracle",
          "--profile",
          "pi",
          "--out",
          join(dir, name),
          ...extra,
        ]);
        assert.equal(r.code, 0, r.stderr);
        [runs[name]] = readTrajectories(join(dir, name, "trajectories.jsonl"));
      }
      assert.equal(runs.on.reward, 1);
      const d = runs.on.workdir_diff!;
      // solve.sh runs the unit tests, which leave Python's bytecode behind: binary files, named only.
      assert.deepEqual(d.files.map((f) => [f.path.replace(/cpython-\d+/, "cpython-N"), f.change, f.binary ?? false]), [
        ["__pycache__/test_wordcount.cpython-N.pyc", "added", true],
        ["__pycache__/wordcount.cpython-N.pyc", "added", true],
        ["wc.py", "modified", false],
        ["wordcount.py", "modified", false],
      ]);
      assert.match(d.patch, /^\+_WORD = re\.compile/m);
      assert.match(d.patch, /^\+.*top_words\(text, args\.n\)/m);
      assert.equal(runs.off.reward, 1);
      assert.equal(runs.off.workdir_diff, undefined);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
