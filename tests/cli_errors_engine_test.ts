/**
 * Bad input that reaches the engine's side of the CLI is still one line, and nothing starts: an endpoint that does not
 * answer is found before any container (the engine's event log says none was created), a port in use for `env serve`;
 * and `pgs eval -k N` against `pgs harness serve` started with its defaults.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scriptPolicy } from "../lib/policies/policy.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { LABELS } from "../lib/runtime/hygiene.ts";
import { dockerTest } from "./docker_helpers.ts";
import { command, COUNT, freePort, oneLine, pgs } from "./cli_helpers.ts";

/** Container creations by process `pid` between two instants (unix seconds), from the engine's event log. */
async function createdBy(pid: number, since: number, until: number): Promise<string[]> {
  const o = await new Deno.Command("docker", {
    args: [
      "events",
      "--since",
      String(since),
      "--until",
      String(until),
      "--filter",
      "type=container",
      "--filter",
      "event=create",
      "--filter",
      `label=${LABELS.pid}=${pid}`,
      "--format",
      "{{.ID}}",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(o.code, 0, new TextDecoder().decode(o.stderr));
  return new TextDecoder().decode(o.stdout).split("\n").filter(Boolean);
}

dockerTest("eval checks the endpoint before any container: one line naming the address, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
  try {
    const url = `http://127.0.0.1:${freePort()}/v1`;
    const since = Math.floor(Date.now() / 1000) - 1;
    // With --model the run needs no model list, yet the endpoint is still asked first.
    const child = command(["eval", "--tasks", COUNT, "--endpoint", url, "--model", "m", "--out", join(dir, "out")])
      .spawn();
    const o = await child.output();
    const err = new TextDecoder().decode(o.stderr).trim();
    assert.equal(o.code, 1, err);
    assert.equal(err.split("\n").length, 1, err);
    assert.match(
      err,
      new RegExp(`^pgs: --endpoint ${url.replace(/[/.]/g, "\\$&")} does not answer: GET ${url}/models: `),
    );
    assert.deepEqual(await createdBy(child.pid, since, Math.ceil(Date.now() / 1000) + 1), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest("env serve on a port in use: one line naming the address, exit 1", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (busy.addr as Deno.NetAddr).port;
    await oneLine(
      ["env", "serve", "--port", String(port)],
      1,
      new RegExp(`^pgs: env serve: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`),
    );
  } finally {
    busy.close();
  }
});

/** Starts `pgs harness serve` with its default flags but a free port; returns its URL and a stop function. */
async function harnessServe(script: string, out: string) {
  const child = command(["harness", "serve", "--script", script, "--out", out, "--port", "0"]).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "", url: string | undefined;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`harness serve exited early: ${log}`);
    log += value;
    url = log.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/)?.[1];
  }
  return {
    url,
    log,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      while (!(await reader.read()).done);
    },
  };
}

dockerTest(
  "eval -k 3 against pgs harness serve with its default flags: every sample plays the whole script",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_cli_errors_" });
    const script = join(dir, "turns.json");
    // Three turns: under per-request advancing, identical samples would take each other's turns and only one could
    // reach the answer.
    await Deno.writeTextFile(
      script,
      JSON.stringify([
        { tool_calls: [{ name: "bash", arguments: { command: "ls" } }] },
        { tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }] },
        { content: "There are 35.\n\nAnswer: 35" },
      ]),
    );
    const stub = await harnessServe(script, join(dir, "requests.jsonl"));
    try {
      assert.match(stub.log, /advance by history/);
      const out = join(dir, "out");
      const r = await pgs([
        "eval",
        "--tasks",
        COUNT,
        "--endpoint",
        stub.url,
        "--profile",
        "pi",
        "-k",
        "3",
        "--out",
        out,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const ts = (await Deno.readTextFile(join(out, "trajectories.jsonl"))).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.equal(ts.length, 3);
      for (const t of ts) {
        assert.equal(t.reward, 1, `sample ${t.sample}: ${t.answer}`);
        assert.equal(t.turns, 3, `sample ${t.sample}`);
      }
    } finally {
      await stub.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

dockerTest(
  "a library run of a script under a profile that lacks its tools is an infrastructure error naming them",
  async () => {
    const turns = [{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }] }, { content: "Answer: 35" }];
    const [[t]] = await runEpisodes(scriptPolicy(turns), [{ task_dir: COUNT }], { profile: "claude-code" }, { k: 1 });
    assert.equal(t.reward, null, "never scored");
    assert.match(String(t.error), /calls bash, which claude-code@[\w.]+ does not have \(its tools: Bash, /);
  },
);
