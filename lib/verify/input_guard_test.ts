/**
 * The input guard's script run by this machine's own /bin/sh on a scratch tree (no engine): what it removes and
 * keeps, and the frames that carry each removal whole (a name with a newline, a target with spaces).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { guardScript } from "./input_guard.ts";
import { parseFrames } from "./verifier_container.ts";

async function sh(script: string): Promise<Uint8Array> {
  const out = await new Deno.Command("/bin/sh", { args: ["-c", script], stdout: "piped", stderr: "piped" }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

Deno.test("input guard: links into the inputs, through /proc and chains go; honest links and files stay", async () => {
  const root = await Deno.makeTempDir({ prefix: "pgs_guard_" });
  try {
    const [work, keys, other] = [join(root, "work"), join(root, "keys"), join(root, "other")];
    for (const d of [work, keys, other, join(work, "sub")]) await Deno.mkdir(d, { recursive: true });
    await Deno.writeTextFile(join(keys, "expected.txt"), "key\n");
    await Deno.writeTextFile(join(work, "real.txt"), "mine\n");
    await Deno.symlink(join(keys, "expected.txt"), join(work, "abs.txt"));
    await Deno.symlink("../keys/expected.txt", join(work, "rel.txt"));
    await Deno.symlink(`/proc/self/root${keys}/expected.txt`, join(work, "proc.txt"));
    await Deno.symlink(keys, join(work, "sub", "keys dir"));
    await Deno.symlink(join(work, "sub", "keys dir", "expected.txt"), join(work, "via dir.txt"));
    await Deno.symlink(join(keys, "expected.txt"), join(work, "odd\nname"));
    // Onto a folder holding an input: the tests' own path (`up/tests/...`) would lead in.
    await Deno.symlink("/", join(work, "up"));
    await Deno.symlink("../../..", join(work, "sub", "climb"));
    // Honest: inside the working directory, to a system file, and a name holding a hint that resolves elsewhere.
    await Deno.symlink("real.txt", join(work, "answer.txt"));
    await Deno.symlink("/etc/hostname", join(work, "host"));
    await Deno.symlink(other, join(work, "tests-data"));
    await sh(`mkfifo ${join(work, "fifo")}`);

    const out = await sh(guardScript({ links: [work], specials: [work], inputs: [keys] }));
    const f = parseFrames(out);
    const seen = f.neutralised.map((n) => `${n.path.slice(work.length + 1)} ${n.kind} ${n.target ?? ""}`.trim());
    assert.deepEqual(
      seen.sort(),
      [
        `abs.txt symlink ${keys}/expected.txt`,
        "fifo fifo",
        `odd\nname symlink ${keys}/expected.txt`,
        `proc.txt symlink /proc/self/root${keys}/expected.txt`,
        "rel.txt symlink ../keys/expected.txt",
        `sub/keys dir symlink ${keys}`,
        "sub/climb symlink ../../..",
        "up symlink /",
        `via dir.txt symlink ${work}/sub/keys dir/expected.txt`,
      ].sort(),
    );
    assert.equal(f.neutralisedCount, 9);
    const left = [];
    for await (const e of Deno.readDir(work)) left.push(e.name);
    assert.deepEqual(left.sort(), ["answer.txt", "host", "real.txt", "sub", "tests-data"]);
    assert.equal(await Deno.readTextFile(join(work, "answer.txt")), "mine\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("input guard: nothing to neutralise prints nothing, and an empty guard is no script", async () => {
  const root = await Deno.makeTempDir({ prefix: "pgs_guard_" });
  try {
    await Deno.writeTextFile(join(root, "a"), "x");
    const f = parseFrames(await sh(guardScript({ links: [root], specials: [root] })));
    assert.deepEqual([f.neutralised, f.neutralisedCount], [[], 0]);
    assert.equal(guardScript({ links: [], specials: [] }), "");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
