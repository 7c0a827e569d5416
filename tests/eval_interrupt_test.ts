/**
 * Stopping `pgs eval` mid-run: Ctrl-C removes its containers and keeps finished episodes; SIGKILL leaves containers
 * that the next run removes before it resumes where the killed one stopped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { latestById, readTrajectories } from "../lib/eval/records/trajectory.ts";
import type { Summary } from "../lib/eval/records/summary.ts";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { containersWith, dockerTest, waitFor } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { pgsEval, spawnEval } from "./eval_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const COUNT = join(EXAMPLE_TASKS, "count-error-lines");

/** Waits until `child` has finished an episode and has another alive, i.e. it is in the middle of its run. */
async function midRun(docker: Docker, traj: string, child: Deno.ChildProcess): Promise<boolean> {
  return await waitFor(
    async () => lines(traj) >= 1 && (await containersWith(docker, `pgs.pid=${child.pid}`)).length > 0,
    60_000,
  );
}

function lines(path: string): number {
  try {
    return Deno.readTextFileSync(path).split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

dockerTest("eval killed with SIGKILL: the next run removes its leftover containers and resumes", async (docker) => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_kill_" });
  const out = join(dir, "out");
  const args = ["--tasks", COUNT, "--policy", "oracle", "--profile", "pi", "-k", "6", "--max-concurrent", "1"];
  const child = spawnEval([...args, "--out", out]);
  const traj = join(out, "trajectories.jsonl");
  const caught = await midRun(docker, traj, child);
  child.kill("SIGKILL");
  const status = await child.status;
  await child.stderr.cancel();
  assert.ok(caught, "an episode finished and another was running");
  assert.equal(status.signal, "SIGKILL");
  const left = await containersWith(docker, `pgs.pid=${child.pid}`);
  assert.ok(left.length > 0, "SIGKILL leaves the live episode's containers");
  const before = lines(traj);

  const r = await pgsEval([...args, "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await containersWith(docker, `pgs.pid=${child.pid}`), []);
  const m = r.stderr.match(/(\d+) run now, (\d+) already done/);
  assert.ok(m, r.stderr);
  assert.equal(Number(m[2]), before);
  assert.equal(Number(m[1]) + Number(m[2]), 6);
  const ts = latestById(readTrajectories(traj));
  assert.deepEqual(ts.map((t) => t.sample).sort(), [0, 1, 2, 3, 4, 5]);
  const summary = JSON.parse(await Deno.readTextFile(join(out, "summary.json"))) as Summary;
  assert.equal(summary.complete, true);
  assert.equal(summary.overall.passes, 6);
  await Deno.remove(dir, { recursive: true });
});

dockerTest(
  "eval interrupted with SIGINT: containers removed, finished episodes and a partial summary kept",
  async (docker) => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_eval_int_" });
    const out = join(dir, "out");
    const child = spawnEval([
      "--tasks",
      COUNT,
      "--policy",
      "oracle",
      "-k",
      "8",
      "--max-concurrent",
      "2",
      "--out",
      out,
    ]);
    const traj = join(out, "trajectories.jsonl");
    const caught = await midRun(docker, traj, child);
    child.kill("SIGINT");
    const status = await child.status;
    const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
    assert.ok(caught);
    assert.equal(status.code, 130, stderr);
    assert.match(stderr, /interrupted; containers removed, finished episodes kept/);
    assert.deepEqual(await containersWith(docker, `pgs.pid=${child.pid}`), []);
    const done = readTrajectories(traj);
    assert.ok(done.length >= 1 && done.length < 8);
    const summary = JSON.parse(await Deno.readTextFile(join(out, "summary.json"))) as Summary;
    assert.equal(summary.complete, false);
    assert.equal(summary.overall.episodes, done.length);
    assert.equal(summary.expected, 8);
    await Deno.remove(dir, { recursive: true });
  },
);
