/**
 * `DockerHygiene.removeOwn` against a scripted CLI: it returns only once the engine lists none of this process's
 * boxes, so a box that another removal has in hand is waited for, within its bound.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DockerCli } from "./cli.ts";
import { DOCKER_ENGINE } from "./engine.ts";
import { DockerHygiene } from "./hygiene.ts";
import type { Runtime } from "../runtime.ts";

const ID = "a".repeat(64);

/**
 * A `docker` that lists one container until `rm` has been called `gone` times; each earlier `rm` fails as dockerd
 * does while another removal of the same box runs, and `inspect` finds the box three times, then no more. Every call
 * is appended to `calls.log`.
 */
async function scriptedCli(gone: number): Promise<{ dir: string; cli: DockerCli }> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_hygiene_" });
  const bin = join(dir, "docker");
  await Deno.writeTextFile(
    bin,
    `#!/bin/sh
echo "$1" >> "${dir}/calls.log"
n=$(grep -c '^rm$' "${dir}/calls.log")
case "$1" in
  ps) [ "$n" -lt ${gone} ] && echo ${ID}; exit 0 ;;
  rm) [ "$n" -lt ${gone} ] && { echo "Error response from daemon: removal of container ${ID} is already in progress" >&2; exit 1; }; exit 0 ;;
  inspect) [ "$(grep -c '^inspect$' "${dir}/calls.log")" -le 3 ] && { echo ${ID}; exit 0; }; echo "Error: No such object: ${ID}" >&2; exit 1 ;;
  version) echo 99.0.0 ;;
esac
`,
  );
  await Deno.chmod(bin, 0o755);
  return { dir, cli: new DockerCli("unix:///nonexistent.sock", { ...DOCKER_ENGINE, binary: bin }) };
}

const calls = (dir: string) => Deno.readTextFileSync(join(dir, "calls.log")).split("\n").filter(Boolean);

Deno.test("removeOwn waits until a box another removal has in hand is gone", async () => {
  const { dir, cli } = await scriptedCli(3);
  const hygiene = new DockerHygiene(cli, {} as Runtime);
  await hygiene.removeOwn(10_000);
  const log = calls(dir);
  assert.equal(log.filter((c) => c === "rm").length, 3, log.join(" "));
  assert.equal(log.at(-1), "ps", "it ends on a listing that shows none");
  assert.deepEqual(hygiene.tracked(), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("removeOwn gives up on a box that never goes after its bound", async () => {
  const { dir, cli } = await scriptedCli(1_000_000);
  const hygiene = new DockerHygiene(cli, {} as Runtime);
  const t0 = Date.now();
  await hygiene.removeOwn(600);
  const took = Date.now() - t0;
  assert.ok(took >= 600, `returned after ${took} ms, before its bound`);
  assert.ok(calls(dir).filter((c) => c === "rm").length >= 2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("remove of a box another removal has in hand waits for it to be gone, then forgets it", async () => {
  const { dir, cli } = await scriptedCli(1_000_000);
  // Tracking enlists the runtime for this process's exit sweep: a runtime with nothing of its own to sweep.
  const runtime = { tracked: () => [], removeOwn: () => Promise.resolve(), removeOwnSync: () => {} };
  const hygiene = new DockerHygiene(cli, runtime as unknown as Runtime);
  hygiene.track(ID);
  assert.equal(await hygiene.remove(ID), true);
  assert.deepEqual(hygiene.tracked(), []);
  assert.equal(calls(dir).filter((c) => c === "inspect").length, 4, "it looked until the engine no longer knew it");
  await Deno.remove(dir, { recursive: true });
});
