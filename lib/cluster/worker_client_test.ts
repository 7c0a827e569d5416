/** The worker client against a served worker app (fake runner) and against workers that are gone. */
import assert from "node:assert/strict";
import { createWorkerApp } from "./worker_app.ts";
import type { EpisodeRequest } from "./worker_protocol.ts";
import type { EpisodeRunner } from "./worker_runner.ts";
import { WorkerClient, WorkerEpisodeError, WorkerLost } from "./worker_client.ts";
import { traj } from "../../tests/trajectory_fixture.ts";

const TOKEN = "run-token";
const REQ: EpisodeRequest = {
  settings: { policy: { kind: "oracle" } },
  row: { task_dir: "/tasks/a" },
  rowId: "r1",
  sample: 0,
};

/** Serves a worker app over `runner` on a free loopback port; returns its URL and its end. */
function serve(runner: EpisodeRunner, capacity = 1) {
  const w = createWorkerApp({ token: TOKEN, node: "n7", capacity, runner });
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, w.app.fetch);
  return { url: `http://127.0.0.1:${http.addr.port}`, w, close: () => http.shutdown() };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("worker client: health names the node; an episode comes back with it", async () => {
  const s = serve((req) => Promise.resolve(traj({ row_id: req.rowId, sample: req.sample })));
  try {
    const c = new WorkerClient({ url: `${s.url}/`, token: TOKEN });
    assert.equal(c.node, new URL(s.url).host);
    const h = await c.health();
    assert.deepEqual([h.node, h.capacity, h.inFlight], ["n7", 1, 0]);
    assert.equal(c.node, "n7");
    const t = await c.runEpisode(REQ, { timeoutMs: 5000 });
    assert.deepEqual([t.id, t.node, t.reward], ["r1/0", "n7", 1]);
    // A wrong token: the worker's answer, not a lost worker.
    const wrong = new WorkerClient({ url: s.url, token: "nope" });
    await assert.rejects(wrong.health(), (e) => e instanceof WorkerEpisodeError && e.kind === "unauthorized");
    await assert.rejects(
      wrong.runEpisode(REQ, { timeoutMs: 5000 }),
      (e) => e instanceof WorkerEpisodeError && e.status === 401,
    );
  } finally {
    await s.close();
  }
});

Deno.test("worker client: a busy worker and an episode error are WorkerEpisodeErrors of their kind", async () => {
  let release = () => {};
  const s = serve((req) =>
    req.sample === 5
      ? Promise.reject(new Error("engine trouble"))
      : new Promise((r) => release = () => r(traj({ row_id: req.rowId, sample: req.sample })))
  );
  try {
    const c = new WorkerClient({ url: s.url, token: TOKEN, node: "n7" });
    const first = c.runEpisode(REQ, { timeoutMs: 5000 });
    while (s.w.inFlight < 1) await new Promise((r) => setTimeout(r, 5));
    await assert.rejects(
      c.runEpisode({ ...REQ, sample: 1 }, { timeoutMs: 5000 }),
      (e) => e instanceof WorkerEpisodeError && e.kind === "busy" && e.status === 429 && e.retryAfterSec === 1,
    );
    release();
    assert.equal((await first).sample, 0);
    await assert.rejects(
      c.runEpisode({ ...REQ, sample: 5 }, { timeoutMs: 5000 }),
      (e) => e instanceof WorkerEpisodeError && e.kind === "infra" && /^n7: Error: engine trouble$/.test(e.message),
    );
  } finally {
    await s.close();
  }
});

Deno.test("worker client: a worker gone (refused, cut, silent) is WorkerLost naming its node", async () => {
  // Nothing listens.
  const none = new WorkerClient({ url: `http://127.0.0.1:${freePort()}`, token: TOKEN, node: "n9" });
  await assert.rejects(
    none.runEpisode(REQ, { timeoutMs: 5000 }),
    (e) => e instanceof WorkerLost && e.node === "n9" && e.reason === "connection" && /worker on n9/.test(e.message),
  );
  // A worker that dies holding the request: the connection is cut before any answer.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const cut = (async () => {
    const conn = await listener.accept();
    await conn.read(new Uint8Array(4096));
    conn.close();
  })();
  const dying = new WorkerClient({ url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`, token: TOKEN });
  await assert.rejects(
    dying.runEpisode(REQ, { timeoutMs: 5000 }),
    (e) => e instanceof WorkerLost && e.reason === "connection",
  );
  await cut;
  listener.close();
  // A worker that does not answer within the bound; and the caller's own stop is its reason, not a lost worker.
  const s = serve((_req, signal) => new Promise((_r, reject) => signal.addEventListener("abort", () => reject(0))), 2);
  try {
    const c = new WorkerClient({ url: s.url, token: TOKEN });
    await assert.rejects(
      c.runEpisode(REQ, { timeoutMs: 200 }),
      (e) => e instanceof WorkerLost && e.reason === "timeout" && /no answer within 0.2 s/.test(e.message),
    );
    const stop = new AbortController();
    const p = c.runEpisode(REQ, { timeoutMs: 5000, signal: stop.signal });
    stop.abort(new Error("run stopped"));
    await assert.rejects(p, { message: "run stopped" });
  } finally {
    s.w.stop();
    await s.close();
  }
});
