/**
 * Boxes started ahead (`HarborEnv.warm`, `POST /v1/warm`): a reset takes a ready box of its task, each box serves one
 * episode and starts fresh from the image, idle boxes are swept, and closing removes every one.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { createEnvServer } from "../lib/env/server_app.ts";
import type { ToolCall } from "../lib/harness/types.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const TASK = resolve(import.meta.dirname!, "..", "examples", "tasks", "fix-word-count");
const OTHER = resolve(import.meta.dirname!, "..", "examples", "tasks", "count-error-lines");
const bash = (command: string): { tool_calls: ToolCall[] } => ({
  tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
});

runtimeTest(
  "warm boxes: resets take them in turn, each fresh and used once; close removes the rest",
  async (docker) => {
    const env = new HarborEnv({ runtime: docker });
    const before = docker.tracked().length;
    try {
      assert.equal(await env.warm({ task_dir: TASK }, 2), 2);
      await env.pool.settled();
      assert.equal(env.pool.size, 2);
      const warmIds = new Set(docker.tracked());
      const first = await env.reset({ task_dir: TASK });
      const second = await env.reset({ task_dir: TASK });
      const third = await env.reset({ task_dir: TASK });
      try {
        assert.ok(warmIds.has(first.box.id) && warmIds.has(second.box.id), "the first two resets took warm boxes");
        assert.ok(!warmIds.has(third.box.id), "the third started its own");
        assert.equal(env.pool.size, 0);
        // Fresh from the image: what one episode writes, the next one never sees.
        await first.step(bash("echo mine > planted.txt"));
        const seen = await second.step(bash("cat planted.txt 2>&1 || true"));
        assert.match(String(seen.observations[0].content), /No such file/);
        const score = await second.finish();
        assert.equal(score.reward, 0, "nothing solved, nothing earned");
        assert.equal(score.verifierError, undefined);
      } finally {
        await Promise.all([first.close(), second.close(), third.close()]);
      }
    } finally {
      await env.close();
    }
    assert.equal(docker.tracked().length, before, "every box started ahead is removed at close");
  },
);

runtimeTest(
  "warm boxes: resets that come while they still start take them, never doubling the group",
  async (docker) => {
    const env = new HarborEnv({ runtime: docker });
    try {
      assert.equal(await env.warm({ task_dir: TASK }, 2), 2);
      // At once, before any box is ready: one waits for the box being started, the other takes its queued fill back.
      const eps = await Promise.all([env.reset({ task_dir: TASK }), env.reset({ task_dir: TASK })]);
      try {
        await env.pool.settled();
        assert.deepEqual([env.pool.size, env.pool.pending], [0, 0], "no warm box is left idle beside the group");
      } finally {
        await Promise.all(eps.map((e) => e.close()));
      }
    } finally {
      await env.close();
    }
  },
);

runtimeTest("warm boxes idle past their bound are swept", async (docker) => {
  const env = new HarborEnv({ runtime: docker, warmIdleSec: 0 });
  const before = docker.tracked().length;
  try {
    await env.warm({ task_dir: TASK }, 1);
    await env.pool.settled();
    assert.equal(env.pool.size, 1);
    assert.equal(await env.pool.sweep(Date.now() + 1), 1);
    assert.equal(env.pool.size, 0);
    assert.equal(docker.tracked().length, before);
  } finally {
    await env.close();
  }
});

runtimeTest("POST /v1/warm queues boxes, GET /v1/health counts them, a bad count is one line", async (docker) => {
  const env = new HarborEnv({ runtime: docker, warmMax: 1 });
  const server = createEnvServer({ env });
  const post = async (body: unknown) => {
    const r = await server.app.request("/v1/warm", { method: "POST", body: JSON.stringify(body) });
    return { status: r.status, json: await r.json() };
  };
  try {
    const r = await post({ task_dir: TASK, n: 3 });
    assert.equal(r.status, 202);
    assert.equal(r.json.queued, 1, "warmMax bounds the pool");
    await env.pool.settled();
    const health = await (await server.app.request("/v1/health")).json();
    assert.equal(health.warm, 1);
    // ready and pending are the asked task's; ready_all counts every task's.
    const other = await post({ task_dir: OTHER, n: 0 });
    assert.deepEqual([other.json.ready, other.json.pending, other.json.ready_all], [0, 0, 1]);
    const same = await post({ task_dir: TASK, n: 0 });
    assert.deepEqual([same.json.ready, same.json.pending], [1, 0]);
    const bad = await post({ task_dir: TASK, n: -1 });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.message, "n must be an integer from 0 to 1024");
    const missing = await post({ n: 1 });
    assert.equal(missing.status, 400);
  } finally {
    await server.close();
    await env.close();
  }
});
