/**
 * The test tiers (docs/testing.md): which declared tests each tier registers, run on a fixture with one test of each
 * kind, and the deno.json tasks that pick the tiers. Runs no engine: the engine tests are only listed (ignored).
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { SOAK_PREFIX } from "./tier.ts";

const ROOT = resolve(import.meta.dirname!, "..");
const FIXTURE = join(ROOT, "tests", "fixtures", "tiers", "declared.ts");

/** The names of the tests a `deno test` of the fixture registers under `tier` (run or ignored), sorted. */
async function registered(tier: string, extra: string[] = []): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--no-check", ...extra, FIXTURE],
    cwd: ROOT,
    env: { PGS_TEST_TIER: tier, DOCKER_HOST: "unix:///nonexistent/pgs-tier-test.sock", CI: "", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
  return [...text.matchAll(/^(.+?) \.\.\. (?:ok|ignored) \(/gm)].map((m) => m[1]).sort();
}

Deno.test("tiers: unit registers plain tests only; ci adds the engine and outside tests; soak only the soak test", async () => {
  assert.deepEqual(await registered("unit"), ["tiers fixture: plain"]);
  assert.deepEqual(await registered("ci"), [
    "tiers fixture: ci-only",
    "tiers fixture: docker",
    "tiers fixture: engine",
    "tiers fixture: plain",
  ]);
  assert.deepEqual(await registered("soak", [`--filter=/^${SOAK_PREFIX}/`]), [`${SOAK_PREFIX}tiers fixture: soak`]);
});

Deno.test("tiers: the deno.json tasks set each tier, the unit tier with no engine to reach", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks as Record<string, string>;
  assert.match(
    tasks["test:unit"],
    /PGS_TEST_TIER=unit DOCKER_HOST=unix:\/\/\/nonexistent\/\S+ PGS_DOCKER_HOST_2= deno test/,
  );
  assert.match(tasks.test, /PGS_TEST_TIER=ci deno test -A --parallel &&/);
  assert.match(tasks.test, /deno task doctest/);
  assert.ok(tasks["test:soak"].includes(`PGS_TEST_TIER=soak deno test -A --parallel --filter '/^${SOAK_PREFIX}/'`));
  for (const t of ["test", "test:soak"]) {
    assert.match(tasks[t], /^deno run -A tests\/leftovers\.ts --mark && .* && deno run -A tests\/leftovers\.ts$/, t);
  }
});
