/**
 * The `env serve --slurm` router over fake node servers (no Slurm, no engine): the trainer's token, placement on the
 * node with the fewest open episodes (and on the next when one answers 429), steps and finish routed to the episode's
 * node with their answers passed on byte for byte, a node whose connection fails written off (its episodes 503
 * node_lost naming it, new ones elsewhere), and every node lost.
 */
import assert from "node:assert/strict";
import { Hono } from "npm:hono@4.13.19";
import { createEnvRouter, type EnvNode } from "./env_router.ts";

const NODE_TOKEN = "node-token";

/** A fake node server: counts its open episodes, answers 429 past `max`, checks the run's token. */
function fakeNode(name: string, max = 8) {
  const open = new Set<string>();
  let n = 0;
  const app = new Hono();
  app.use("*", async (c, next) => {
    if (c.req.header("authorization") !== `Bearer ${NODE_TOKEN}`) return c.json({ error: "no token" }, 401);
    await next();
  });
  app.get("/v1/health", (c) => c.json({ ok: true, episodes: open.size, warm: 0 }));
  app.post("/v1/episodes", (c) => {
    if (open.size >= max) return c.json({ error: { type: "too_many_episodes", message: "full" } }, 429);
    const id = `${name}-${++n}`;
    open.add(id);
    return c.json({ episode_id: id, messages: [], at: name }, 201);
  });
  app.post(
    "/v1/episodes/:id/step",
    async (c) => c.json({ observations: [{ role: "tool", content: `${name}: ${await c.req.text()}` }], done: false }),
  );
  app.post("/v1/episodes/:id/finish", (c) => {
    open.delete(c.req.param("id"));
    return c.json({ episode_id: c.req.param("id"), reward: 1 });
  });
  const abort = new AbortController();
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} }, app.fetch);
  const node: EnvNode = { name, url: `http://127.0.0.1:${http.addr.port}` };
  return { node, open, stop: async () => (abort.abort(), await http.finished) };
}

async function call(
  app: { request: (p: string, i?: RequestInit) => Response | Promise<Response> },
  m: string,
  p: string,
  body?: unknown,
  token = "t",
) {
  const res = await app.request(p, {
    method: m,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

Deno.test("env router: placement, routing, 429 passed on, a lost node named, every node lost", async () => {
  const a = fakeNode("n1", 2);
  const b = fakeNode("n2", 8);
  const notes: string[] = [];
  const r = createEnvRouter({
    nodes: [a.node, b.node],
    token: "t",
    nodeToken: NODE_TOKEN,
    onNote: (l) => notes.push(l),
  });
  try {
    assert.equal((await call(r.app, "POST", "/v1/episodes", {}, "wrong")).status, 401);
    const health = JSON.parse((await call(r.app, "GET", "/v1/health", undefined, "")).text);
    assert.deepEqual(health.nodes.map((n: { node: string }) => n.node), ["n1", "n2"]);

    // Fewest open first, ties to the one that got an episode longest ago: n1, n2, n1, then n1 is full (429) → n2.
    const eps = [];
    for (let i = 0; i < 4; i++) {
      const e = await call(r.app, "POST", "/v1/episodes", { row: { task_dir: "x" } });
      assert.equal(e.status, 201, e.text);
      eps.push(JSON.parse(e.text));
    }
    assert.deepEqual(eps.map((e) => e.node), ["n1", "n2", "n1", "n2"]);
    assert.deepEqual(eps.map((e) => e.at), ["n1", "n2", "n1", "n2"]);
    assert.deepEqual(r.open(), { n1: 2, n2: 2 });

    // A step reaches its node, its answer passed on unchanged.
    const st = await call(r.app, "POST", `/v1/episodes/${eps[1].episode_id}/step`, { content: "hi" });
    assert.equal(st.status, 200);
    assert.equal(
      st.text,
      JSON.stringify({ observations: [{ role: "tool", content: 'n2: {"content":"hi"}' }], done: false }),
    );
    const fin = await call(r.app, "POST", `/v1/episodes/${eps[0].episode_id}/finish`);
    assert.deepEqual(JSON.parse(fin.text), { episode_id: eps[0].episode_id, reward: 1 });
    assert.deepEqual(r.open(), { n1: 1, n2: 2 });
    assert.equal((await call(r.app, "POST", "/v1/episodes/nope/step", {})).status, 404);

    // n2 stops answering: its episodes answer 503 node_lost naming it; new ones go to n1.
    await b.stop();
    const lost = await call(r.app, "POST", `/v1/episodes/${eps[3].episode_id}/step`, { content: "x" });
    assert.equal(lost.status, 503);
    const err = JSON.parse(lost.text).error;
    assert.equal(err.type, "node_lost");
    assert.match(err.message, /was on node n2, which is lost \(its server at http:\/\/127\.0\.0\.1:\d+ did not answer/);
    assert.match(notes.join("\n"), /node n2 lost .*: 2 open episode\(s\) on it answer 503 node_lost; 1 node\(s\) left/);
    const again = await call(r.app, "POST", `/v1/episodes/${eps[1].episode_id}/finish`);
    assert.equal(again.status, 503);
    const next = await call(r.app, "POST", "/v1/episodes", { row: { task_dir: "x" } });
    assert.equal(JSON.parse(next.text).node, "n1");

    // Every node lost.
    await a.stop();
    const none = await call(r.app, "POST", "/v1/episodes", { row: { task_dir: "x" } });
    assert.equal(none.status, 503);
    assert.match(JSON.parse(none.text).error.message, /^every node is lost \(n1: .*; n2: .*\)/);
    assert.equal(JSON.parse((await call(r.app, "GET", "/v1/health")).text).ok, false);
  } finally {
    await a.stop().catch(() => undefined);
    await b.stop().catch(() => undefined);
  }
});
