/**
 * The endpoint's retry rule on a 200 whose body is not JSON (a server or proxy cutting the answer mid-object): it is
 * retried like a 500 or a dropped connection, within the same attempts; when every attempt is cut, the episode is
 * the endpoint's infrastructure error naming the address and the cause, never a scored episode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { endpointPolicy } from "../lib/policies/endpoint_policy.ts";
import { postJson } from "../lib/policies/http_post.ts";
import { PolicyError, type PolicyRequest } from "../lib/policies/policy.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import type { HarborEpisode } from "../lib/env/harbor_env.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

registerBuiltins();
const TASK = join(EXAMPLE_TASKS, "count-error-lines");
const GOOD = JSON.stringify({
  choices: [{ message: { role: "assistant", content: "Answer: 35" }, finish_reason: "stop" }],
});
const CUT = GOOD.slice(0, 30);

/**
 * A model server on 127.0.0.1 answering each POST with the next of `bodies` (the last one repeats): a string is a
 * 200 with that body, `[status, body]` another status.
 */
function server(bodies: (string | [number, string])[]) {
  let posts = 0;
  const abort = new AbortController();
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} }, (req) => {
    if (req.method !== "POST") return new Response("{}", { status: 404 });
    const next = bodies[Math.min(posts++, bodies.length - 1)];
    const [status, body] = typeof next === "string" ? [200, next] : next;
    return new Response(body, { status, headers: { "content-type": "application/json" } });
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/v1`,
    get posts() {
      return posts;
    },
    async stop() {
      abort.abort();
      await http.finished;
    },
  };
}

/** A server whose first answer promises 500 bytes, sends 30 and closes the connection; then it answers `GOOD`. */
function droppingServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let posts = 0;
  const served = (async () => {
    for await (const conn of listener) {
      const buf = new Uint8Array(65536);
      await conn.read(buf); // the request (small enough for one read)
      const body = posts++ === 0 ? CUT : GOOD;
      const length = posts === 1 ? 500 : body.length;
      const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n` +
        "connection: close\r\n\r\n";
      await conn.write(new TextEncoder().encode(head + body));
      conn.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1`,
    get posts() {
      return posts;
    },
    async stop() {
      listener.close();
      await served.catch(() => {});
    },
  };
}

const OPTS = { headers: {}, attempts: 3, timeoutMs: 10_000 };

Deno.test("postJson: a truncated 200 is retried, and the next good answer is returned", async () => {
  const s = server([CUT, GOOD]);
  try {
    const data = await postJson(`${s.url}/chat/completions`, {}, OPTS);
    assert.deepEqual(data, JSON.parse(GOOD));
    assert.equal(s.posts, 2);
  } finally {
    await s.stop();
  }
});

Deno.test("postJson: a connection dropped mid-body is retried too", async () => {
  const s = droppingServer();
  try {
    assert.deepEqual(await postJson(`${s.url}/chat/completions`, {}, OPTS), JSON.parse(GOOD));
    assert.equal(s.posts, 2);
  } finally {
    await s.stop();
  }
});

Deno.test("postJson: a 200 that is always cut is an endpoint error after the bound, naming the URL and the cause", async () => {
  const s = server([CUT]);
  try {
    const url = `${s.url}/chat/completions`;
    const e = await postJson(url, {}, OPTS).then(() => undefined, (e) => e);
    assert.ok(e instanceof PolicyError, String(e));
    assert.deepEqual([e.kind, e.stage], ["infra", "endpoint"]);
    assert.equal(s.posts, 3, "every attempt was made, and no more");
    assert.ok(e.message.startsWith(`endpoint: ${url} unreachable after 3 attempts: `), e.message);
    assert.match(e.message, /HTTP 200 with a body that is not JSON \(30 characters, cut short\?\)/);
    assert.ok(e.message.includes(JSON.stringify(CUT)), e.message);
    assert.equal(e.message.split("\n").length, 1);
  } finally {
    await s.stop();
  }
});

Deno.test("postJson: 500, a cut 200 and a good answer share one bound; a 404 is not retried and stays one line", async () => {
  const mixed = server([[500, "<html>\n<b>busy</b>\n</html>"], CUT, GOOD]);
  const missing = server([[404, "<html>\nno such\nroute</html>"]]);
  try {
    assert.deepEqual(await postJson(`${mixed.url}/chat/completions`, {}, OPTS), JSON.parse(GOOD));
    assert.equal(mixed.posts, 3);
    const url = `${missing.url}/chat/completions`;
    const e = await postJson(url, {}, OPTS).then(() => undefined, (e) => e);
    assert.ok(e instanceof PolicyError, String(e));
    assert.equal(e.message, `endpoint: ${url}: HTTP 404: <html> no such route</html>`);
    assert.equal(missing.posts, 1);
  } finally {
    await mixed.stop();
    await missing.stop();
  }
});

Deno.test("endpoint policy: one truncated answer, then the turn the server meant", async () => {
  const s = server([CUT, GOOD]);
  try {
    const policy = endpointPolicy({ baseUrl: s.url, model: "m", attempts: 3 });
    const req: PolicyRequest = {
      messages: [{ role: "user", content: "count" }],
      tools: [],
      chatTemplateKwargs: {},
      episode: {} as HarborEpisode,
      turn: 0,
      sample: 0,
    };
    const turn = await policy.turn(req);
    assert.deepEqual([turn.content, turn.finish_reason], ["Answer: 35", "stop"]);
  } finally {
    await s.stop();
  }
});

dockerTest(
  "eval episode: a truncated 200 then a good answer scores; always truncated is the endpoint's infra_error",
  async () => {
    const once = server([CUT, GOOD]);
    const always = server([CUT]);
    try {
      const [[ok]] = await runEpisodes({ baseUrl: once.url, model: "m", attempts: 3 }, [{ task_dir: TASK }], {
        profile: "pi",
      });
      assert.deepEqual([ok.exit_status, ok.reward, ok.error], ["stop_rule", 1, undefined]);
      const [[bad]] = await runEpisodes({ baseUrl: always.url, model: "m", attempts: 3 }, [{ task_dir: TASK }], {
        profile: "pi",
      });
      assert.deepEqual([bad.exit_status, bad.reward, bad.infra_stage], ["infra_error", null, "endpoint"]);
      assert.ok(
        bad.error?.startsWith(`endpoint: ${always.url}/chat/completions unreachable after 3 attempts`),
        bad.error,
      );
      assert.match(bad.error!, /not JSON/);
      assert.equal(always.posts, 3);
    } finally {
      await once.stop();
      await always.stop();
    }
  },
);
