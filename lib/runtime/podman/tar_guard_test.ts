import assert from "node:assert/strict";
import { tarArchive, type TarEntry } from "../../base/tar.ts";
import { tarGuard } from "./tar_guard.ts";

const enc = new TextEncoder();
const file = (name: string, text = "x"): TarEntry => ({
  name,
  type: "file",
  mode: 0o644,
  uid: 1000,
  gid: 1000,
  data: enc.encode(text),
  mtime: 0,
});
const dir = (name: string): TarEntry => ({ name, type: "dir", mode: 0o755, uid: 0, gid: 0, mtime: 0 });
const link = (name: string, to: string): TarEntry => ({
  name,
  type: "symlink",
  mode: 0o777,
  uid: 0,
  gid: 0,
  linkname: to,
  mtime: 0,
});

/** `bytes` through the guard in chunks of `size`; the bytes it passed on, and its error if any. */
async function through(bytes: Uint8Array, top: string, size = 700): Promise<{ out: Uint8Array; error?: string }> {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
      c.close();
    },
  });
  const parts: Uint8Array[] = [];
  let error: string | undefined;
  try {
    await stream.pipeThrough(tarGuard(top)).pipeTo(new WritableStream({ write: (c) => void parts.push(c) }));
  } catch (e) {
    error = (e as Error).message;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return { out, error };
}

/** The archive with the (empty) file's header at `offset` turned into a hard link to `target`. */
function hardLink(tar: Uint8Array, offset: number, target: string): Uint8Array {
  const t = tar.slice();
  t[offset + 156] = "1".charCodeAt(0);
  t.fill(0, offset + 157, offset + 257);
  t.set(enc.encode(target), offset + 157);
  return t;
}

Deno.test("tar guard: a tree under its top folder passes byte for byte, in any chunking", async () => {
  const long = `wd/${"d".repeat(120)}/file`;
  const tar = tarArchive([dir("wd"), file("wd/a", "hello"), link("wd/l", "/etc"), dir("wd/sub"), file(long, "z")]);
  for (const size of [1, 7, 512, 700, tar.length]) {
    const { out, error } = await through(tar, "wd", size);
    assert.deepEqual(error, undefined);
    assert.deepEqual(out, tar);
  }
});

Deno.test("tar guard: members outside the top folder, with `..`, absolute, or below a symlink are refused", async () => {
  const cases: [TarEntry[], RegExp][] = [
    [[dir("wd"), file(".pgs-tests/test.sh")], /outside wd/],
    [[dir("wd"), file("wd/../.pgs-tests/test.sh")], /outside wd/],
    [[dir("wd"), file("/etc/passwd")], /outside wd/],
    [[dir("wd"), file("wdx/a")], /outside wd/],
    [[dir("wd"), link("wd/l", "/.pgs-stage/.pgs-tests"), file("wd/l/test.sh")], /below the symlink wd\/l/],
    [[dir("wd"), file(`wd/../${"p".repeat(150)}`)], /outside wd/], // through a pax path record
  ];
  for (const [entries, why] of cases) {
    const { error } = await through(tarArchive(entries), "wd");
    assert(error && why.test(error), `${entries.map((e) => e.name).join(", ")}: ${error}`);
  }
});

Deno.test("tar guard: the refused member's header is never passed on", async () => {
  const good = tarArchive([dir("wd"), file("wd/a", "hello")]);
  const tar = tarArchive([dir("wd"), file("wd/a", "hello"), file("evil", "planted")]);
  const { out, error } = await through(tar, "wd", 1);
  assert(error);
  // Everything before the bad member (the good archive without its end blocks), and not one byte more.
  assert.deepEqual(out, good.subarray(0, good.length - 1024));
});

Deno.test("tar guard: hard links must point inside the top folder", async () => {
  const tar = tarArchive([dir("wd"), file("wd/a"), file("wd/b", "")]);
  const bOffset = 512 * 3; // wd, wd/a and its data block, then wd/b (empty: no data block)
  assert.deepEqual((await through(hardLink(tar, bOffset, "wd/a"), "wd")).error, undefined);
  const out = await through(hardLink(tar, bOffset, ".pgs-tests/test.sh"), "wd");
  assert(out.error && /hard link/.test(out.error), out.error);
});

Deno.test("tar guard: data after the end blocks and a truncated archive are errors", async () => {
  const tar = tarArchive([dir("wd"), file("wd/a")]);
  const after = new Uint8Array(tar.length + 512);
  after.set(tar);
  after.set(tarArchive([file("evil")]).subarray(0, 512), tar.length);
  assert((await through(after, "wd")).error);
  const cut = await through(tar.subarray(0, 512 + 100), "wd");
  assert(cut.error && /ends inside/.test(cut.error), cut.error);
});

Deno.test("tar guard: unknown member types and global pax headers are refused", async () => {
  const tar = tarArchive([dir("wd"), file("wd/a")]);
  const g = tar.slice();
  g[512 + 156] = "g".charCodeAt(0);
  const { error } = await through(g, "wd");
  assert.match(error ?? "", /type "g"/);
});
