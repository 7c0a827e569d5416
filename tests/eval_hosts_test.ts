/**
 * `pgs eval --docker-host A --docker-host B`: episodes spread over two engines (two dockerd on their own sockets),
 * each with its own concurrency and image cache. The second engine is PGS_DOCKER_HOST_2 (`.ci/run` starts one);
 * without it the test is ignored outside CI.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { containersWith, dockerAvailable, engineTest, makeTask, removeTask } from "./docker_helpers.ts";
import { assertSummaryMatches, pgsEval } from "./eval_helpers.ts";
import { TIER } from "./tier.ts";

const second = Deno.env.get("PGS_DOCKER_HOST_2");
const first = Deno.env.get("DOCKER_HOST");
const inCI = Deno.env.get("CI") === "true";
if (!second && !inCI && TIER === "ci") {
  console.error("note: two-engine eval test ignored: set PGS_DOCKER_HOST_2 to a second engine");
}

engineTest({
  name: "eval over two Docker engines: both run episodes, each builds its own image",
  ignore: !inCI && (!second || !dockerAvailable),
  async fn() {
    assert.ok(second && first, "CI needs DOCKER_HOST and PGS_DOCKER_HOST_2 (two engines)");
    const a = new Docker(first), b = new Docker(second);
    assert.ok(await b.ping(), `the second engine answers at ${second}`);
    const dir = await Deno.makeTempDir({ prefix: "pgs_eval_hosts_" });
    // A Dockerfile task with a unique layer: each engine must build it in its own cache.
    const tag = crypto.randomUUID();
    const task = await makeTask({
      "task.toml": "[environment]\n",
      "environment/Dockerfile": `FROM pgs-base:1\nRUN echo ${tag} > /tag\n`,
      "solution/solve.sh": "#!/bin/bash\ncat /tag\n",
    });
    try {
      const out = join(dir, "out");
      const r = await pgsEval([
        "--tasks",
        task,
        "--policy",
        "oracle",
        "-k",
        "6",
        "--max-concurrent",
        "2",
        "--docker-host",
        first,
        "--docker-host",
        second,
        "--out",
        out,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const { ts } = await assertSummaryMatches(out);
      assert.equal(ts.length, 6);
      const byHost = new Map<string, number>();
      for (const t of ts) byHost.set(t.docker_host, (byHost.get(t.docker_host) ?? 0) + 1);
      assert.deepEqual([...byHost.keys()].sort(), [first, second].sort());
      for (const t of ts) assert.equal(t.reward, 1);
      for (const t of ts) assert.ok(t.answer.includes(tag), "the episode ran in the task's built image");
      // Only the task's image has /tag: both engines built it, each in its own cache; nothing is left running.
      for (const d of [a, b]) assert.deepEqual(await containersWith(d, "pgs=1", `pgs.task=${ts[0].task}`), []);
    } finally {
      await removeTask(task);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
