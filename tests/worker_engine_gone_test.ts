/**
 * Issue #42, item 3, for a node whose engine goes away: two `pgs worker` processes, A reaching the engine through an
 * in-process unix-socket proxy (its node's engine) and B directly, run episodes through `runOnWorkers`. Once A has a
 * box running the proxy is closed. A loses only its in-flight episodes: each is recorded once as an infrastructure
 * error of stage `node` (never a reward), a note says node a was lost, nothing is scored on a after that, and every
 * episode ends with one scored trajectory, the lost ones re-run on b. B leaves no box; A says its boxes may be left,
 * and they are the test's to remove.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { rowId } from "../lib/eval/episode_runner.ts";
import { latestById, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { type DispatchWorker, type EpisodeJobSpec, runOnWorkers } from "../lib/cluster/dispatch.ts";
import { pgsArgv } from "../lib/cluster/slurm_workers.ts";
import { WorkerClient } from "../lib/cluster/worker_client.ts";
import type { EpisodeSettings } from "../lib/cluster/worker_protocol.ts";
import { containersWith, dockerTest, waitFor } from "./docker_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

const TOKEN = crypto.randomUUID();
const ENGINE = (Deno.env.get("DOCKER_HOST") || "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");
/** A script whose first command sleeps 4 s, so the engine can go while A's episodes run. */
const SLEEPER: EpisodeSettings = {
  policy: {
    kind: "script",
    name: "script:sleep",
    turns: [{ tool_calls: [{ name: "bash", arguments: { command: "sleep 4" } }] }, { content: "Answer: 0" }],
  },
};

/** A `pgs worker` child process and its client. */
interface Worker {
  proc: Deno.ChildProcess;
  client: WorkerClient;
  stderr: () => string;
}

/** Starts `pgs worker --node NODE --max-concurrent 2` on the engine at `dockerHost`, once it prints its ready line. */
async function startWorker(node: string, dockerHost: string): Promise<Worker> {
  const proc = new Deno.Command(pgsArgv()[0], {
    args: [...pgsArgv().slice(1), "worker", "--token-env", "PGS_TEST_TOKEN", "--node", node, "--max-concurrent", "2"],
    env: { NO_COLOR: "1", PGS_TEST_TOKEN: TOKEN, DOCKER_HOST: dockerHost },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  proc.stderr.pipeThrough(new TextDecoderStream()).pipeTo(new WritableStream({ write: (s) => void (err += s) }))
    .catch(() => {});
  let out = "";
  const lines = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (!out.includes("\n")) {
    const r = await lines.read();
    if (r.done) break;
    out += r.value;
  }
  (async () => {
    while (!(await lines.read()).done) { /* the rest of stdout */ }
  })().catch(() => {});
  const url = /^pgs-worker ready (\S+) /.exec(out)?.[1];
  assert.ok(url, `worker ${node}: no ready line in ${JSON.stringify(out)}; stderr: ${err}`);
  return { proc, client: new WorkerClient({ url, token: TOKEN, node }), stderr: () => err };
}

/** Copies `from` into `to` until its end, then half-closes `to` (a `docker exec` closes its stdin so). */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  try {
    for (let n; (n = await from.read(buf)) !== null;) {
      for (let off = 0; off < n;) off += await to.write(buf.subarray(off, n));
    }
    await to.closeWrite();
  } catch { /* closed under it */ }
}

/** A unix socket in a temporary folder that forwards each connection to the real engine; `close()` is the engine gone. */
async function engineProxy(): Promise<{ host: string; close: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_engine_proxy_" });
  const listener = Deno.listen({ transport: "unix", path: join(dir, "docker.sock") });
  const conns = new Set<Deno.Conn>();
  const drop = (c: Deno.Conn) => conns.delete(c) && c.close();
  const pipes: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const c of listener) {
      const up = await Deno.connect({ transport: "unix", path: ENGINE }).catch(() => undefined);
      if (!up) c.close();
      else {
        for (const x of [c, up]) conns.add(x);
        pipes.push(Promise.all([pump(c, up), pump(up, c)]).then(() => [c, up].forEach(drop)));
      }
    }
  })().catch(() => {});
  return {
    host: `unix://${join(dir, "docker.sock")}`,
    close: async () => {
      listener.close();
      await accepting;
      conns.forEach(drop);
      await Promise.all(pipes);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A worker as `pgs eval --slurm` hands it to the dispatcher: written off, it is asked to stop. */
const dispatchable = (w: Worker): DispatchWorker => ({
  node: w.client.node,
  capacity: 2,
  runEpisode: (req, o) => w.client.runEpisode(req, o),
  retire: (why) => void w.client.stop(why),
});

/** Ends a worker: SIGTERM (unless it exited), then its exit, bounded by 60 s. */
async function stopWorker(w: Worker): Promise<Deno.CommandStatus> {
  try {
    w.proc.kill("SIGTERM");
  } catch { /* exited */ }
  const t = setTimeout(() => w.proc.kill("SIGKILL"), 60_000);
  return await w.proc.status.finally(() => clearTimeout(t));
}

dockerTest(
  "pgs worker: a node whose engine goes loses only its in-flight episodes, re-run elsewhere",
  async (docker) => {
    const proxy = await engineProxy();
    let proxyOpen = true;
    const a = await startWorker("a", proxy.host);
    const b = await startWorker("b", `unix://${ENGINE}`);
    const row = { task_dir: join(EXAMPLE_TASKS, "count-error-lines") };
    const jobs: EpisodeJobSpec[] = [0, 1, 2, 3, 4, 5].map((sample) => ({ row, rowId: rowId(row), sample }));
    const got: { t: Trajectory; at: number }[] = [];
    const notes: string[] = [];
    let goneAt = Infinity;
    try {
      const run = runOnWorkers([dispatchable(a), dispatchable(b)], jobs, SLEEPER, {
        onEpisode: (t) => got.push({ t, at: Date.now() }),
        onNote: (l) => notes.push(l),
      });
      await boxOf(docker, a.proc.pid);
      await proxy.close();
      proxyOpen = false;
      goneAt = Date.now();
      await run;

      const onA = got.filter((r) => r.t.node === "a");
      assert.equal(onA.length, 2, `A held two episodes: ${JSON.stringify(onA.map((r) => r.t.exit_status))}`);
      for (const { t } of onA) {
        assert.deepEqual([t.exit_status, t.infra_stage, t.reward], ["infra_error", "node", null], t.error);
        assert.match(t.error!, /^node a lost: /);
      }
      assert.ok(onA.every((r) => r.at >= goneAt), "nothing was recorded on a before its engine went");
      assert.equal(notes.length, 1, notes.join("\n"));
      assert.match(notes[0], /^node a lost \(infra: a: EngineDownError: .+\): 2 episode\(s\) re-queued; 1 node left$/);
      const latest = latestById(got.map((r) => r.t));
      assert.equal(latest.length, 6);
      for (const t of latest) {
        assert.notEqual(t.exit_status, "infra_error", `${t.id}: ${t.error}`);
        assert.equal(typeof t.reward, "number");
        assert.equal(t.node, "b");
      }
      for (const id of onA.map((r) => r.t.id)) assert.equal(got.filter((r) => r.t.id === id).length, 2, id);
    } finally {
      if (proxyOpen) await proxy.close();
      await Promise.all([stopWorker(a), stopWorker(b)]);
      // A's engine went away under it, so its boxes on the real engine are left: the test removes them.
      const left = await containersWith(docker, `pgs.pid=${a.proc.pid}`);
      if (left.length) await docker.call(["rm", "-f", ...left]);
    }
    assert.equal((await b.proc.status).code, 0, b.stderr());
    assert.deepEqual(await containersWith(docker, `pgs.pid=${b.proc.pid}`), [], "boxes left by worker b");
    assert.notEqual((await a.proc.status).signal, "SIGKILL", `worker a hung on its stop: ${a.stderr()}`);
    assert.match(a.stderr(), /does not answer, so boxes of this worker may be left there/, "A says what it left");
  },
);

/** Waits until a box of worker `pid` runs, and 1 s more (its first command has started). */
async function boxOf(docker: Docker, pid: number): Promise<void> {
  assert.ok(await waitFor(async () => (await containersWith(docker, `pgs.pid=${pid}`)).length > 0, 60_000));
  await new Promise((r) => setTimeout(r, 1000));
}
