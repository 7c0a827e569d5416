/** The verifier script's frames as the host reads them. */
import assert from "node:assert/strict";
import { parseFrames, testScript } from "./verifier_container.ts";

const enc = new TextEncoder();

Deno.test("frames: the tests' exit, their own time by the box's clock, and the result files", () => {
  const out = enc.encode("PGS-READY\nPGS-EXIT 137\nPGS-TESTS 100.25 102.75\nPGS-FILE reward.txt 2\n1\n");
  const f = parseFrames(out);
  assert.equal(f.ready, true);
  assert.equal(f.exit, 137);
  assert.equal(f.testsSec, 2.5);
  assert.deepEqual(f.files, { "reward.txt": "1\n" });
  // A box without /proc/uptime says 0: no time is held against the tests then.
  assert.equal(parseFrames(enc.encode("PGS-TESTS 0 0\n")).testsSec, undefined);
});

Deno.test("the test part bounds test.sh in the box at its timeout, rounded up, when the box has `timeout`", () => {
  const s = testScript("/app", 1.5);
  assert.match(s, /pgs_to="timeout -s KILL 2"/);
  assert.match(s, /\$pgs_to bash -c \/tests\/test\.sh/);
});
