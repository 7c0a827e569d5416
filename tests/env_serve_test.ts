/**
 * `pgs env serve`: the HTTP API over HarborEnv (auth, 4xx errors, a whole episode, max turns, the idle sweeper), the
 * standard-library Python client in examples/ driving it with the stub as the model, and the command itself.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEnvServer } from "../lib/env/server_app.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { countPidContainers, dockerTest, requireDocker } from "./docker_helpers.ts";
import { countStub, ROOT } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const TOKEN = "s3cret";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

/** Whether a container exists (running or not). */
async function exists(docker: Docker, id: string): Promise<boolean> {
  assert.match(id, /^[0-9a-f]{12,}$/);
  return (await docker.call(["inspect", "--format", "{{.Id}}", id])).code === 0;
}

function server(opts: { idleTimeoutSec?: number; profiles?: Record<string, number> } = {}) {
  const env = new HarborEnv({ profiles: opts.profiles ?? { pi: 1 }, runtime: requireDocker() });
  return createEnvServer({ env, token: TOKEN, idleTimeoutSec: opts.idleTimeoutSec });
}

async function call(s: ReturnType<typeof server>, method: string, path: string, body?: unknown, headers = auth) {
  const res = await s.app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

Deno.test("env serve API: bearer token, clear 4xx errors", async () => {
  const env = new HarborEnv({ profiles: { pi: 1 } });
  const s = createEnvServer({ env, token: TOKEN });
  try {
    assert.equal((await call(s, "GET", "/v1/health", undefined, {} as typeof auth)).status, 200);
    const noAuth = await call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT } }, {} as typeof auth);
    assert.equal(noAuth.status, 401);
    assert.equal(noAuth.json.error.type, "unauthorized");
    const bad = await call(s, "POST", "/v1/episodes", "{not json");
    assert.deepEqual([bad.status, bad.json.error.type], [400, "invalid_json"]);
    const noDir = await call(s, "POST", "/v1/episodes", { row: {} });
    assert.equal(noDir.status, 400);
    assert.match(noDir.json.error.message, /row.task_dir/);
    const profile = await call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT, harness_profile: "nope" } });
    assert.equal(profile.status, 400);
    assert.match(profile.json.error.message, /harness_profile/);
    const missing = await call(s, "POST", "/v1/episodes", { row: { task_dir: "/no/such/task" } });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error.type, "invalid_task");
    // A relative folder says where the server looked: its own folder is not the trainer's.
    const relative = await call(s, "POST", "/v1/episodes", { row: { task_dir: "data/no-such-task" } });
    assert.equal(relative.status, 400);
    assert.match(
      relative.json.error.message,
      new RegExp(`is relative: resolved against the server's folder ${Deno.cwd().replace(/[/.]/g, "\\$&")}, where`),
    );
    assert.equal((await call(s, "POST", "/v1/episodes/abc/step", { content: "hi" })).status, 404);
    assert.equal((await call(s, "GET", "/v1/nothing")).status, 404);
    const profiles = await call(s, "GET", "/v1/profiles");
    assert.deepEqual(profiles.json.mix, ["pi"]);
    assert.ok(profiles.json.profiles.includes("opencode@1.18.33"));
  } finally {
    await s.close();
  }
});

dockerTest("env serve API: create → step → finish scores the episode and removes its containers", async (docker) => {
  const s = server({ profiles: { pi: 1, opencode: 1 } });
  try {
    const created = await call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT }, group: 3 });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const ep = created.json;
    assert.equal(await exists(docker, ep.container_id), true);
    assert.ok(["pi@0.73.1", "opencode@1.18.33"].includes(ep.harness_profile));
    assert.deepEqual(ep.tools.map((t: { function: { name: string } }) => t.function.name).includes("bash"), true);
    assert.equal(ep.messages.at(-1).role, "user");
    // The same group draws the same profile.
    const again = await call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT }, group: 3 });
    assert.equal(again.json.harness_profile, ep.harness_profile);
    assert.equal((await call(s, "DELETE", `/v1/episodes/${again.json.episode_id}`)).json.closed, true);

    const step1 = await call(s, "POST", `/v1/episodes/${ep.episode_id}/step`, {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "bash", arguments: '{"command":"awk \'$3 == \\"ERROR\\"\' app.log | wc -l"}' },
      }],
    });
    assert.equal(step1.status, 200, JSON.stringify(step1.json));
    assert.equal(step1.json.done, false);
    assert.equal(step1.json.observations[0].role, "tool");
    assert.match(JSON.stringify(step1.json.observations[0].content), /35/);
    const step2 = await call(s, "POST", `/v1/episodes/${ep.episode_id}/step`, { message: { content: "Answer: 35" } });
    assert.deepEqual([step2.json.done, step2.json.exit_status], [true, "stop_rule"]);
    const late = await call(s, "POST", `/v1/episodes/${ep.episode_id}/step`, { content: "more" });
    assert.deepEqual([late.status, late.json.error.type], [409, "episode_done"]);
    const state = await call(s, "GET", `/v1/episodes/${ep.episode_id}`);
    assert.equal(state.json.turns, 2);
    const fin = await call(s, "POST", `/v1/episodes/${ep.episode_id}/finish`);
    assert.equal(fin.status, 200);
    assert.equal(fin.json.reward, 1);
    assert.equal(fin.json.answer, "Answer: 35");
    assert.equal(fin.json.metrics[`metric/profile/${ep.profile_key}/reward`], 1);
    // The pipeline's timings: the start, the tools of two turns and the verification all took time.
    const t = fin.json.timings;
    assert.deepEqual(Object.keys(t).sort(), ["start_ms", "tools_ms", "verify_ms"]);
    assert.ok(t.start_ms > 0 && t.tools_ms > 0 && t.verify_ms > 0, JSON.stringify(t));
    // A finished episode is not unknown: finishing it again or stepping it is a 409 that says how it ended.
    for (const path of ["finish", "step"]) {
      const again = await call(s, "POST", `/v1/episodes/${ep.episode_id}/${path}`, { content: "x" });
      assert.deepEqual([again.status, again.json.error.type], [409, "episode_ended"], path);
      assert.match(again.json.error.message, /has ended: finished/);
    }
    assert.equal(s.size, 0);
    assert.equal(await exists(docker, ep.container_id), false);
  } finally {
    await s.close();
  }
});

dockerTest("env serve API: a row's max_turns ends the episode; idle episodes are swept", async (docker) => {
  const s = server({ idleTimeoutSec: 60 });
  try {
    const ep = (await call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT, max_turns: 1 } })).json;
    const st = await call(s, "POST", `/v1/episodes/${ep.episode_id}/step`, {
      tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: { command: "true" } } }],
    });
    assert.deepEqual([st.json.done, st.json.exit_status], [true, "max_turns"]);
    const fin = await call(s, "POST", `/v1/episodes/${ep.episode_id}/finish`);
    assert.equal(fin.json.exit_status, "max_turns");
    assert.equal(fin.json.reward, 0);

    const idle = (await call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT } })).json;
    assert.equal(await s.sweep(Date.now()), 0, "not idle yet");
    assert.equal(await s.sweep(Date.now() + 61_000), 1);
    const swept = await call(s, "GET", `/v1/episodes/${idle.episode_id}`);
    assert.deepEqual([swept.status, swept.json.error.type], [409, "episode_ended"]);
    assert.match(swept.json.error.message, /has ended: closed after 60 s idle/);
    assert.equal(await exists(docker, idle.container_id), false);
  } finally {
    await s.close();
  }
});

dockerTest("examples/python/pgs_env_client.py drives pgs env serve with the stub as the model", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_env_py_" });
  const stub = await countStub(dir);
  const s = server({ profiles: { pi: 1, opencode: 1 } });
  const abort = new AbortController();
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} }, s.app.fetch);
  try {
    const out = await new Deno.Command("python3", {
      args: [
        join(ROOT, "examples", "python", "pgs_env_client.py"),
        "--env",
        `http://127.0.0.1:${http.addr.port}`,
        "--token-env",
        "PGS_TEST_TOKEN",
        "--endpoint",
        `http://127.0.0.1:${stub.port}`,
        "--task",
        COUNT,
        "--group",
        "g1",
        "--samples",
        "2",
      ],
      env: { PGS_TEST_TOKEN: TOKEN },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const results = stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(results.length, 2);
    for (const r of results) {
      assert.equal(r.reward, 1);
      assert.equal(r.exit_status, "stop_rule");
      assert.equal(r.turns, 2);
    }
    assert.equal(results[0].harness_profile, results[1].harness_profile, "one group, one profile");
    const bodies = (await Deno.readTextFile(join(dir, "requests.jsonl"))).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(bodies.length, 4);
    assert.equal(bodies[1].messages.at(-1).role, "tool");
    assert.equal(s.size, 0);
  } finally {
    abort.abort();
    await http.finished;
    await s.close();
    await stub.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest(
  "pgs env serve: refuses an unset token variable; serves until SIGTERM, which removes open episodes",
  async (docker) => {
    const bad = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(ROOT, "main.ts"), "env", "serve", "--token-env", "PGS_SURELY_UNSET_VAR"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bad.code, 2);
    assert.match(
      new TextDecoder().decode(bad.stderr),
      /--token-env: environment variable PGS_SURELY_UNSET_VAR is not set/,
    );

    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        join(ROOT, "main.ts"),
        "env",
        "serve",
        "--port",
        "0",
        "--token-env",
        "PGS_T",
        "--profile",
        "pi",
      ],
      env: { PGS_T: TOKEN },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/listening on (\S+)/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const base = text.match(/listening on (\S+)/)![1];
    const health = await (await fetch(`${base}/health`)).json();
    assert.deepEqual(health, { ok: true, episodes: 0, warm: 0 });
    const res = await fetch(`${base}/episodes`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ row: { task_dir: COUNT } }),
    });
    const ep = await res.json();
    assert.equal(res.status, 201);
    assert.equal(ep.harness_profile, "pi@0.73.1");
    assert.equal(await countPidContainers(docker, child.pid), 2, "episode + verifier containers");
    child.kill("SIGTERM");
    const status = await child.status;
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    assert.match(rest, /stopped; closed 1 open episode\(s\) and removed 0 warm box\(es\) started ahead/);
    assert.equal(status.code, 143);
    assert.equal(await countPidContainers(docker, child.pid), 0);
  },
);

dockerTest(
  "env serve API: many episodes at once, each in its own container, a busy one refuses a second step",
  async (docker) => {
    const s = server({ profiles: { pi: 1 } });
    try {
      const eps = await Promise.all(
        Array.from({ length: 6 }, (_, i) => call(s, "POST", "/v1/episodes", { row: { task_dir: COUNT }, group: i })),
      );
      assert.deepEqual(eps.map((e) => e.status), [201, 201, 201, 201, 201, 201]);
      assert.equal(s.size, 6);
      // Each writes its own marker; none sees another's.
      const steps = await Promise.all(eps.map((e, i) =>
        call(s, "POST", `/v1/episodes/${e.json.episode_id}/step`, {
          tool_calls: [{
            id: "c",
            type: "function",
            function: { name: "bash", arguments: JSON.stringify({ command: `echo ${i} > mark; cat mark; ls mark*` }) },
          }],
        })
      ));
      steps.forEach((st, i) =>
        assert.match(JSON.stringify(st.json.observations[0].content), new RegExp(`${i}\\\\nmark\\\\n`))
      );
      // Two steps at once on one episode: the second is refused while the first runs.
      const id = eps[0].json.episode_id;
      const slow = call(s, "POST", `/v1/episodes/${id}/step`, {
        tool_calls: [{ id: "s", type: "function", function: { name: "bash", arguments: '{"command":"sleep 1"}' } }],
      });
      await new Promise((r) => setTimeout(r, 200));
      const busy = await call(s, "POST", `/v1/episodes/${id}/step`, { content: "x" });
      assert.deepEqual([busy.status, busy.json.error.type], [409, "episode_busy"]);
      assert.equal((await slow).status, 200);
      const fins = await Promise.all(eps.map((e) => call(s, "DELETE", `/v1/episodes/${e.json.episode_id}`)));
      assert.ok(fins.every((f) => f.status === 200));
      for (const e of eps) assert.equal(await exists(docker, e.json.container_id), false);
    } finally {
      await s.close();
    }
  },
);
