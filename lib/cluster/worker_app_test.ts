/** The worker's HTTP app with a fake episode runner (no engine): auth, health, bad requests, capacity, stop. */
import assert from "node:assert/strict";
import { createWorkerApp, type WorkerAppOptions } from "./worker_app.ts";
import { EpisodeRefused, type EpisodeRequest, WORKER_PROTOCOL } from "./worker_protocol.ts";
import type { EpisodeRunner } from "./worker_runner.ts";
import { traj } from "../../tests/trajectory_fixture.ts";
import { UsageError } from "../base/errors.ts";

const TOKEN = "t0k3n";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const REQ: EpisodeRequest = {
  settings: { policy: { kind: "oracle" }, maxTurns: 4 },
  row: { task_dir: "/tasks/a" },
  rowId: "abc123",
  sample: 1,
};

/** A runner answering a record of the request's row and sample. */
const echo: EpisodeRunner = (req) => Promise.resolve(traj({ row_id: req.rowId, sample: req.sample }));

function app(runner: EpisodeRunner = echo, more: Partial<WorkerAppOptions> = {}) {
  return createWorkerApp({ token: TOKEN, node: "n1", capacity: 2, runner, ...more });
}

async function call(w: ReturnType<typeof app>, method: string, path: string, body?: unknown, headers = auth) {
  const res = await w.app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json(), retryAfter: res.headers.get("retry-after") };
}

Deno.test("worker app: every route asks for the bearer token", async () => {
  const w = app();
  for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: TOKEN }, { authorization: "" }]) {
    for (const [method, path] of [["GET", "/v1/health"], ["POST", "/v1/episodes"], ["GET", "/v1/other"]]) {
      const r = await call(w, method, path, method === "POST" ? REQ : undefined, headers as typeof auth);
      assert.equal(r.status, 401, `${method} ${path} with ${JSON.stringify(headers)}`);
      assert.deepEqual(r.json, {
        error: "n1: missing or wrong bearer token (Authorization: Bearer ...)",
        kind: "unauthorized",
      });
    }
  }
  assert.throws(() => createWorkerApp({ token: "", node: "n", capacity: 1, runner: echo }), /token/);
  assert.throws(() => createWorkerApp({ token: "x", node: "n", capacity: 0, runner: echo }), /capacity/);
});

Deno.test("worker app: health, and an episode answered with its node", async () => {
  const seen: EpisodeRequest[] = [];
  const w = app((req, signal) => {
    assert.equal(signal.aborted, false);
    seen.push(req);
    return echo(req, signal);
  }, { runtime: "podman" });
  const h = await call(w, "GET", "/v1/health");
  assert.equal(h.status, 200);
  assert.equal(h.json.node, "n1");
  assert.equal(h.json.capacity, 2);
  assert.equal(h.json.inFlight, 0);
  assert.equal(h.json.runtime, "podman");
  assert.equal(h.json.protocol, WORKER_PROTOCOL);
  assert.equal(h.json.stopping, false);
  assert.match(h.json.version, /^\d+\.\d+\.\d+/);
  const r = await call(w, "POST", "/v1/episodes", REQ);
  assert.equal(r.status, 200);
  assert.equal(r.json.node, "n1");
  assert.equal(r.json.id, "abc123/1");
  assert.deepEqual(seen, [REQ]);
  assert.equal((await call(w, "GET", "/v1/episodes")).status, 404);
});

Deno.test("worker app: bad requests are 400 bad_request, failures 500 infra, each one line", async () => {
  const w = app((req) => {
    if (req.sample === 7) return Promise.reject(new EpisodeRefused("cannot see task_dir /x", "infra"));
    if (req.sample === 8) return Promise.reject(new EpisodeRefused("row: task_dir must be absolute", "bad_request"));
    if (req.sample === 9) return Promise.reject(new UsageError("--api-key-env: environment variable K is not set"));
    return Promise.reject(new Error("boom\nsecond line"));
  });
  const bad = async (body: unknown, re: RegExp) => {
    const r = await call(w, "POST", "/v1/episodes", body);
    assert.deepEqual([r.status, r.json.kind], [400, "bad_request"], JSON.stringify(r.json));
    assert.match(r.json.error, re);
  };
  await bad("{nope", /^n1: the body is not JSON/);
  await bad([], /must be a JSON object/);
  await bad({ ...REQ, settings: undefined }, /settings must be an object/);
  await bad({ ...REQ, settings: { policy: { kind: "magic" } } }, /settings.policy.kind must be endpoint/);
  await bad({ ...REQ, settings: { policy: { kind: "script", name: "s" } } }, /settings.policy.turns/);
  await bad({ ...REQ, settings: { policy: { kind: "endpoint" } } }, /settings.policy.url/);
  await bad({ ...REQ, row: "x" }, /row must be an object/);
  await bad({ ...REQ, rowId: 3 }, /rowId/);
  await bad({ ...REQ, sample: -1 }, /sample/);
  await bad({ ...REQ, sample: 8 }, /^n1: row: task_dir must be absolute$/);
  await bad({ ...REQ, sample: 9 }, /api-key-env/);
  const infra = await call(w, "POST", "/v1/episodes", { ...REQ, sample: 7 });
  assert.deepEqual(infra.json, { error: "n1: cannot see task_dir /x", kind: "infra" });
  assert.equal(infra.status, 500);
  const boom = await call(w, "POST", "/v1/episodes", { ...REQ, sample: 0 });
  assert.deepEqual([boom.status, boom.json], [500, { error: "n1: Error: boom second line", kind: "infra" }]);
  assert.equal(w.inFlight, 0);
});

Deno.test("worker app: past capacity 429 with Retry-After; stop ends running episodes as infra errors", async () => {
  const gates: (() => void)[] = [];
  const w = app(
    (req, signal) =>
      new Promise((resolve, reject) => {
        gates.push(() => resolve(traj({ row_id: req.rowId, sample: req.sample })));
        signal.addEventListener("abort", () => reject(new Error("aborted")));
      }),
    { retryAfterSec: 3 },
  );
  const a = call(w, "POST", "/v1/episodes", REQ);
  const b = call(w, "POST", "/v1/episodes", { ...REQ, sample: 2 });
  while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.equal(w.inFlight, 2);
  assert.equal((await call(w, "GET", "/v1/health")).json.inFlight, 2);
  const busy = await call(w, "POST", "/v1/episodes", { ...REQ, sample: 3 });
  assert.deepEqual([busy.status, busy.json.kind, busy.retryAfter], [429, "busy", "3"]);
  gates[0]();
  assert.equal((await a).json.id, "abc123/1");
  w.stop("SIGTERM on n1");
  const ended = await b;
  assert.deepEqual([ended.status, ended.json], [503, {
    error: "n1: the worker is stopping (SIGTERM on n1)",
    kind: "infra",
  }]);
  await w.settled(1000);
  assert.equal(w.inFlight, 0);
  const after = await call(w, "POST", "/v1/episodes", REQ);
  assert.deepEqual([after.status, after.json.kind], [503, "infra"]);
  assert.equal((await call(w, "GET", "/v1/health")).json.stopping, true);
});

Deno.test("worker app: POST /v1/stop (with the token) stops it, or calls onStopRequest with the reason", async () => {
  const w = app();
  assert.equal((await call(w, "POST", "/v1/stop", {}, { ...auth, authorization: "Bearer wrong" })).status, 401);
  assert.equal((await call(w, "POST", "/v1/stop", { reason: "node lost" })).status, 202);
  const after = await call(w, "POST", "/v1/episodes", REQ);
  assert.equal(after.status, 503);
  assert.match(after.json.error, /stop asked by the runner: node lost/);
  const asked: string[] = [];
  const v = app(echo, { onStopRequest: (r) => asked.push(r) });
  assert.equal((await call(v, "POST", "/v1/stop", { reason: "x" })).status, 202);
  assert.deepEqual(asked, ["stop asked by the runner: x"]);
});
