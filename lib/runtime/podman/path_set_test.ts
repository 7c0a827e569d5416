import assert from "node:assert/strict";
import { tarArchive, type TarEntry } from "../../base/tar.ts";
import { PathSet } from "./path_set.ts";
import { tarGuard } from "./tar_guard.ts";

Deno.test("path set: holds what was added through its growth, nothing else; full at its bound", () => {
  const s = new PathSet(100_000);
  for (let i = 0; i < 100_000; i++) assert.ok(s.add(`wd/d${i % 97}/link-${i}`));
  assert.equal(s.size, 100_000);
  for (let i = 0; i < 100_000; i++) assert.ok(s.has(`wd/d${i % 97}/link-${i}`), `link-${i}`);
  for (let i = 100_000; i < 200_000; i++) assert.ok(!s.has(`wd/d${i % 97}/link-${i}`), `link-${i}`);
  assert.ok(s.add("wd/d0/link-0"), "a path already held is no new entry");
  assert.equal(s.add("wd/one-more"), false);
  assert.equal(s.size, 100_000);
});

const link = (name: string): TarEntry => ({ name, type: "symlink", mode: 0o777, uid: 0, gid: 0, linkname: "/etc" });

/** The guard's verdict on `entries`: undefined when it passed them, else its error. */
async function guard(entries: TarEntry[], maxSymlinks?: number): Promise<string | undefined> {
  try {
    await ReadableStream.from([tarArchive(entries)]).pipeThrough(tarGuard("wd", () => {}, maxSymlinks)).pipeTo(
      new WritableStream(),
    );
  } catch (e) {
    return (e as Error).message;
  }
}

Deno.test("tar guard: symlinks are remembered up to a bound, past which the archive is refused", async () => {
  const top: TarEntry = { name: "wd", type: "dir", mode: 0o755, uid: 0, gid: 0 };
  const links = Array.from({ length: 3000 }, (_, i) => link(`wd/l${i}`));
  const below = { name: "wd/l2999/passwd", type: "file" as const, mode: 0o644, uid: 0, gid: 0 };
  assert.equal(await guard([top, ...links]), undefined);
  assert.equal(await guard([top, ...links, below]), 'member "wd/l2999/passwd": it lies below the symlink wd/l2999');
  assert.equal(await guard([top, ...links], 2999), "more than 2999 symlinks");
});
