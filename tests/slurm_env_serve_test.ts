/**
 * `pgs env serve --slurm` on a real two-node Slurm cluster (`eval "$(bash scripts/slurm_cluster.sh start)"`: n1, n2)
 * and a Docker engine every node shares: the Python client in examples/ drives episodes to a reward through the one
 * address; episodes land on both nodes; a node's server step cancelled loses only its open episode (503 node_lost
 * naming n2) while n1's goes on and new episodes still start; SIGTERM ends the node servers, releases the job and
 * leaves no box.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { slurmCall } from "../lib/cluster/slurm.ts";
import { countStub, ROOT } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";
import { slurmTest, squeueJob, squeueSteps, waitFor } from "./slurm_helpers.ts";

const TOKEN = "s3cret-slurm";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const TASK_NAME = "slurm/env-count";

/** count-error-lines under a name of its own, so its boxes are told from any other run's on the shared engine. */
async function countTask(dir: string): Promise<string> {
  const t = join(dir, "count");
  await new Deno.Command("cp", { args: ["-r", join(EXAMPLE_TASKS, "count-error-lines"), t] }).output();
  const toml = await Deno.readTextFile(join(t, "task.toml"));
  await Deno.writeTextFile(join(t, "task.toml"), toml.replace(/^name = ".*"$/m, `name = "${TASK_NAME}"`));
  return t;
}

/** Boxes of the task on the engine now. */
async function boxes(): Promise<string> {
  const r = await new Deno.Command("docker", {
    args: ["ps", "-a", "-q", "--filter", `label=pgs.task=${TASK_NAME}`],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(r.stdout).trim();
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: auth,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const bash = (id: string, command: string) => ({
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
});

slurmTest(
  "slurm env serve: the Python client through one address, both nodes used, a lost node named, SIGTERM releases",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs-slurm-env-" });
    const stub = await countStub(dir);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(ROOT, "main.ts"), "env", "serve", "--slurm", "--nodes", "2", "--time", "10"].concat(
        ["--port", "0", "--token-env", "PGS_T", "--profile", "pi", "--max-episodes", "4"],
      ),
      cwd: ROOT,
      env: { PGS_T: TOKEN },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const reading = (async () => {
      for await (const c of child.stderr.pipeThrough(new TextDecoderStream())) stderr += c;
    })();
    let job: string | undefined;
    try {
      const task = await countTask(dir);
      await waitFor("the router to listen", () => /listening on (\S+)/.test(stderr) || /error/i.test(stderr), 180_000);
      const base = /listening on (\S+)/.exec(stderr)?.[1];
      assert.ok(base, stderr);
      job = /of Slurm job (\d+)/.exec(stderr)?.[1];
      assert.ok(job, stderr);
      const health = await (await fetch(`${base}/health`)).json();
      assert.deepEqual(health.nodes.map((n: { node: string }) => n.node).sort(), ["n1", "n2"]);

      // The Python client, unchanged, drives two episodes to a reward through the router.
      const out = await new Deno.Command("python3", {
        args: [join(ROOT, "examples", "python", "pgs_env_client.py"), "--env", base.replace(/\/v1$/, "")].concat(
          ["--token-env", "PGS_T", "--endpoint", `http://127.0.0.1:${stub.port}`, "--task", task, "--samples", "2"],
        ),
        env: { PGS_T: TOKEN },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr) + stderr);
      const results = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(results.map((r) => [r.reward, r.exit_status, r.turns]), [[1, "stop_rule", 2], [
        1,
        "stop_rule",
        2,
      ]]);

      // Two open episodes: one on each node, each stepped there.
      const a = await call(base, "POST", "/episodes", { row: { task_dir: task } });
      const b = await call(base, "POST", "/episodes", { row: { task_dir: task } });
      assert.deepEqual([a.status, b.status], [201, 201], JSON.stringify([a.json, b.json]));
      assert.deepEqual([a.json.node, b.json.node].sort(), ["n1", "n2"]);
      const [on1, on2] = a.json.node === "n1" ? [a.json, b.json] : [b.json, a.json];
      for (const e of [on1, on2]) {
        const st = await call(base, "POST", `/episodes/${e.episode_id}/step`, bash("c1", "echo hi"));
        assert.equal(st.status, 200, JSON.stringify(st.json));
        assert.match(JSON.stringify(st.json.observations), /hi/);
      }

      // n2's server step cancelled: its episode answers 503 naming n2; n1's goes on; a new one starts on n1.
      const step = (await squeueSteps(job)).find((l) => l.endsWith(" n2"))?.split(" ")[0];
      assert.ok(step, "n2's server step is listed");
      await slurmCall("scancel", [step]);
      await waitFor("n2 written off", () => /node n2 lost/.test(stderr), 30_000);
      const lost = await call(base, "POST", `/episodes/${on2.episode_id}/step`, bash("c2", "echo again"));
      assert.equal(lost.status, 503);
      assert.equal(lost.json.error.type, "node_lost");
      assert.match(lost.json.error.message, /node n2, which is lost/);
      const st1 = await call(base, "POST", `/episodes/${on1.episode_id}/step`, { content: "Answer: 35" });
      assert.equal(st1.status, 200, JSON.stringify(st1.json));
      const fin = await call(base, "POST", `/episodes/${on1.episode_id}/finish`);
      assert.equal(fin.status, 200, JSON.stringify(fin.json));
      assert.equal(fin.json.episode_id, on1.episode_id);
      const c = await call(base, "POST", "/episodes", { row: { task_dir: task } });
      assert.deepEqual([c.status, c.json.node], [201, "n1"], JSON.stringify(c.json));
      const h2 = await (await fetch(`${base}/health`)).json();
      assert.equal(h2.ok, true);
      assert.match(h2.nodes.find((n: { node: string }) => n.node === "n2").lost, /ended/);

      // SIGTERM: the node servers end (removing their boxes), the job is released.
      child.kill("SIGTERM");
      const status = await child.status;
      await reading;
      assert.equal(status.code, 143, stderr);
      await waitFor(`job ${job} gone`, async () => (await squeueJob(job!)).length === 0, 60_000);
      await waitFor("no box of the task left", async () => (await boxes()) === "", 60_000);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* ended */ }
      await reading.catch(() => undefined);
      if (job) await slurmCall("scancel", [job], { anyCode: true });
      await stub.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
