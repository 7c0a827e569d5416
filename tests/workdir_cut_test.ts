/**
 * The working-directory diff's bounds: a tree keeps at most so many files and so many characters of paths, counts
 * the rest, and the diff says it was cut; empty files hold nothing of their own; the tar reader refuses an oversized
 * extension header and reads content right whatever the chunking. Against the engine: a working directory past the
 * cap gives a cut diff and a normal episode.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { tarArchive, type TarEntry } from "../lib/base/tar.ts";
import { readTar } from "../lib/base/tar_read.ts";
import { diffTrees, readTree, type Tree, type TreeEntry, WORKDIR_MAX_FILES } from "../lib/eval/workdir_diff.ts";
import { readTrajectories } from "../lib/eval/records/trajectory.ts";
import type { Box } from "../lib/runtime/runtime.ts";
import { dockerTest, makeTask, removeTask } from "./docker_helpers.ts";
import { pgsEval } from "./eval_helpers.ts";

const enc = new TextEncoder();
const entry = (name: string, data?: string): TarEntry => ({
  name,
  type: data === undefined ? "dir" : "file",
  mode: data === undefined ? 0o755 : 0o644,
  uid: 0,
  gid: 0,
  ...(data === undefined ? {} : { data: enc.encode(data) }),
});

/** An archive of folder `w` streamed in batches (never whole in memory): `w/name(i)` for i < n, then `tail`. */
function archive(n: number, name: (i: number) => string, tail: TarEntry[] = []): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      const batch: TarEntry[] = i === 0 ? [entry("w")] : [];
      for (let k = 0; k < 2000 && i < n; k++, i++) batch.push(entry(`w/${name(i)}`, ""));
      const last = i >= n;
      if (last) batch.push(...tail);
      const t = tarArchive(batch);
      // Only the last batch keeps its end blocks.
      c.enqueue(last ? t : t.subarray(0, t.length - 1024));
      if (last) c.close();
    },
  });
}

/** A box whose `getArchive` answers `make()`'s stream. */
function streamBox(make: () => ReadableStream<Uint8Array>): Pick<Box, "getArchive"> {
  return { getArchive: () => ({ stream: make(), done: Promise.resolve({ ok: true as const }), cancel() {} }) };
}

const file = (text: string): TreeEntry => ({ type: "file", mode: 0o644, size: text.length, data: enc.encode(text) });

Deno.test("workdir cut: past its file cap a tree counts entries without keeping them; empty files hold no array of their own", async () => {
  const n = WORKDIR_MAX_FILES + 30_000;
  const tree = await readTree(streamBox(() => archive(n, (i) => `d/${i}`, [entry("w/z.txt", "last\n")])), "/w");
  assert.ok(typeof tree !== "string", String(tree));
  assert.equal(tree.size, WORKDIR_MAX_FILES);
  assert.deepEqual(tree.cut, { files: n + 1, kept: WORKDIR_MAX_FILES });
  assert.ok(tree.has("d/0") && !tree.has(`d/${WORKDIR_MAX_FILES}`) && !tree.has("z.txt"));
  // Every empty file shares one empty array; none is hashed.
  const datas = new Set([...tree.values()].map((e) => e.data));
  assert.equal(datas.size, 1);
  assert.equal([...datas][0]!.length, 0);
  assert.ok([...tree.values()].every((e) => e.hash === undefined));
});

Deno.test("workdir cut: kept paths are bounded in characters too (long names)", async () => {
  const long = (i: number) => `${"p".repeat(200)}-${String(i).padStart(5, "0")}`;
  const tree = await readTree(streamBox(() => archive(1000, long)), "/w", { maxPathChars: 20_000 });
  assert.ok(typeof tree !== "string", String(tree));
  assert.equal(tree.size, Math.floor(20_000 / long(0).length));
  assert.deepEqual(tree.cut, { files: 1000, kept: tree.size });
  const whole = await readTree(streamBox(() => archive(1000, long)), "/w");
  assert.ok(typeof whole !== "string" && whole.size === 1000 && whole.cut === undefined);
});

Deno.test("workdir cut: a cut diff compares what both sides kept, counts the rest and says so", () => {
  // Before: whole. After: cut at 3 of 10. A path kept only after is added (before was whole); one kept only before
  // is not called deleted (after may hold it past its cut).
  const before: Tree = new Map([["a.txt", file("one\n")], ["b.txt", file("two\n")]]);
  const after: Tree = Object.assign(new Map([["a.txt", file("ONE\n")], ["c.txt", file("new\n")]]), {
    cut: { files: 10, kept: 2 },
  });
  const d = diffTrees(before, after);
  assert.deepEqual(d.files.map((f) => [f.path, f.change]), [["a.txt", "modified"], ["c.txt", "added"]]);
  assert.deepEqual(d.cut, { start_files: 2, start_kept: 2, end_files: 10, end_kept: 2, unmatched: 1 });
  assert.match(
    d.note ?? "",
    /^the diff is cut at 2 files per side: .* 2 files and links at the start and 10 at the end; 9 past/,
  );
  // Before cut, after whole: a path kept only after is not called added; one kept only before is deleted.
  const cutBefore: Tree = Object.assign(new Map([["a.txt", file("one\n")]]), { cut: { files: 5, kept: 1 } });
  const whole: Tree = new Map([["q.txt", file("q\n")]]);
  const e = diffTrees(cutBefore, whole);
  assert.deepEqual(e.files.map((f) => [f.path, f.change]), [["a.txt", "deleted"]]);
  assert.equal(e.cut?.unmatched, 1);
  // Neither side cut: no `cut`, as before.
  assert.equal(diffTrees(before, before).cut, undefined);
});

Deno.test("workdir cut: hashed files get their own content's hash, the last one included (each finished at the next header)", async () => {
  const texts = ["x".repeat(3000), "y".repeat(5000), "z".repeat(7000)];
  const bytes = tarArchive([entry("w"), ...texts.map((t, i) => entry(`w/f${i}`, t))]);
  // maxKept 0: every non-empty file is hashed, each finished when the next header comes (or the archive ends).
  const tree = await readTree(streamBox(() => ReadableStream.from([bytes])), "/w", { maxKept: 0 });
  assert.ok(typeof tree !== "string", String(tree));
  texts.forEach((t, i) => assert.equal(tree.get(`f${i}`)?.hash, createHash("sha1").update(t).digest("hex")));
});

Deno.test("tar reader: content is read right in any chunking; an oversized extension header is refused", async () => {
  const texts = Array.from({ length: 20 }, (_, i) => String(i).repeat(100 + 97 * i));
  const bytes = tarArchive([entry("w"), ...texts.map((t, i) => entry(`w/f${i}`, t))]);
  for (const size of [1, 100, 512, 700, 4096, bytes.length]) {
    const chunks = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
    const got: string[] = [];
    await readTar(ReadableStream.from(chunks), () => "keep", (_, d) => void got.push(new TextDecoder().decode(d)));
    assert.deepEqual(got, texts, `chunks of ${size}`);
  }
  const pax = tarArchive([entry(`w/${"n".repeat(200)}`, "")]);
  // The pax header's size field (octal, at 124) made to claim 2 MiB: refused before it is read.
  pax.set(enc.encode("00010000000\0"), 124);
  await assert.rejects(readTar(ReadableStream.from([pax]), () => "skip"), /extension header of 2097152 bytes/);
});

dockerTest("workdir cut: 60,000 files in the working directory give a cut diff and a normal episode", async () => {
  const n = 60_000;
  const dir = await makeTask({
    "environment/workdir/seed.txt": "seed\n",
    // The verifier's copy must hold every file: the copy is not cut, only the diff.
    "tests/test.sh": `#!/bin/bash\nmkdir -p /logs/verifier\n` +
      `[ "$(ls /workdir/many | wc -l)" = ${n} ] && [ "$(cat /workdir/out.txt)" = ok ] && r=1 || r=0\n` +
      `echo $r > /logs/verifier/reward.txt\n`,
  });
  const out = await Deno.makeTempDir({ prefix: "pgs_workdir_cut_" });
  try {
    const make = `mkdir many && seq 1 ${n} | (cd many && xargs touch) && echo ok > out.txt`;
    const turns = [{ tool_calls: [{ name: "bash", arguments: { command: make } }] }, { content: "Done." }];
    await Deno.writeTextFile(join(out, "turns.json"), JSON.stringify(turns));
    const args = ["--tasks", dir, "--policy", `script:${join(out, "turns.json")}`, "--profile", "pi"];
    const r = await pgsEval([...args, "--out", join(out, "run")]);
    assert.equal(r.code, 0, r.stderr);
    const [t] = readTrajectories(join(out, "run", "trajectories.jsonl"));
    assert.equal(t.reward, 1, `${t.exit_status}: ${t.error ?? t.test_output ?? ""}`);
    assert.equal(t.exit_status, "stop_rule");
    const d = t.workdir_diff!;
    // seed.txt at the start; at the end, seed.txt, out.txt and the n files.
    // Docker's copy walks each folder in name order: the cut keeps 50,000 of many/, so seed.txt, kept at the start,
    // lies past the end's cut (unmatched) and out.txt is counted only.
    assert.deepEqual(d.cut, {
      start_files: 1,
      start_kept: 1,
      end_files: n + 2,
      end_kept: WORKDIR_MAX_FILES,
      unmatched: 1,
    });
    assert.match(d.note ?? "", /^the diff is cut at 50000 files per side/);
    assert.equal(d.files.length, 2000);
    assert.ok(d.files.every((f) => f.change === "added"));
  } finally {
    await Deno.remove(out, { recursive: true });
    await removeTask(dir);
  }
});
