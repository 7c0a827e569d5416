/**
 * The JSR package: a licence (MIT, deno.json's `license` and the LICENSE file agree), `deno task check` runs
 * `deno publish --dry-run`, and the published file set is what a library user needs (mod.ts, lib/, profiles/, stub/,
 * the licence and README), never the tests, benches, scripts, fixtures or recordings.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ciTest } from "./tier.ts";

const ROOT = join(import.meta.dirname!, "..");
const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));

/** Where no published file may live. */
const NEVER =
  /^(tests|bench|scripts|cli|examples|docs|dist|\.ci)\/|_test\.ts$|\/(fixtures|testdata|golden|recordings)\//;

Deno.test("publish: an MIT licence, in deno.json and in LICENSE, copyright the pgs authors", async () => {
  assert.equal(config.license, "MIT");
  const text = await Deno.readTextFile(join(ROOT, "LICENSE"));
  assert.match(text, /^MIT License\n\nCopyright \(c\) \d{4} the pgs authors\n/);
  assert.match(text, /THE SOFTWARE IS PROVIDED "AS IS"/);
});

Deno.test("publish: the package's files are listed by what a library user needs; check runs the dry run", () => {
  assert.deepEqual(config.publish.include, ["LICENSE", "README.md", "mod.ts", "lib/", "profiles/", "stub/"]);
  for (const x of ["**/*_test.ts", "**/fixtures/", "**/recordings/"]) assert.ok(config.publish.exclude.includes(x), x);
  // Every export lives in the published folders.
  for (const path of Object.values(config.exports) as string[]) {
    assert.match(path, /^\.\/(mod\.ts|lib\/|stub\/)/, path);
  }
  assert.match(config.tasks.check, /&& deno publish --dry-run --allow-dirty --quiet"?$/);
});

ciTest({ name: "publish: deno publish --dry-run passes and lists the library's files only" }, async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  assert.doesNotMatch(text, /^error/m, text);
  const rel = [...text.matchAll(/^\s+(file:\/\/\S+) \(/gm)].map((m) => new URL(m[1]).pathname.slice(ROOT.length + 1));
  assert.ok(rel.length > 100, `the file list: ${rel.length} files`);
  assert.deepEqual(rel.filter((f) => NEVER.test(f)), []);
  for (const f of ["LICENSE", "mod.ts", "deno.json", "stub/mod.ts", "lib/harness/mod.ts"]) {
    assert.ok(rel.includes(f), f);
  }
  assert.deepEqual([...new Set(rel.map((f) => f.split("/")[0]))].sort(), [
    "LICENSE",
    "README.md",
    "deno.json",
    "lib",
    "mod.ts",
    "profiles",
    "stub",
  ]);
});
