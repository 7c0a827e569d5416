/**
 * `pgs worker` as a child process on the real engine, driven through `WorkerClient` as a runner would: oracle episodes
 * scored with the node on them, a wrong token refused, a worker killed outright lost (`WorkerLost`) mid-episode, and
 * SIGTERM ending the running episode as an infrastructure error, exiting 0 and leaving no box.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildConfig } from "../lib/eval/config.ts";
import { rowId } from "../lib/eval/episode_runner.ts";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { type EpisodeRequest, type EpisodeSettings, episodeSettings } from "../lib/cluster/worker_protocol.ts";
import { WorkerClient, WorkerEpisodeError, WorkerLost } from "../lib/cluster/worker_client.ts";
import { containersWith, dockerTest } from "./docker_helpers.ts";
import { NO_ENGINE, oneLine } from "./cli_helpers.ts";
import { ROOT } from "./eval_helpers.ts";
import { EXAMPLE_TASKS } from "./profile_helpers.ts";

const COUNT = join(EXAMPLE_TASKS, "count-error-lines");
const TOKEN = crypto.randomUUID();
const MINUTE = 60_000;

/** A started `pgs worker`: its process, the client its ready line points at, and what it wrote on stderr. */
interface Worker {
  proc: Deno.ChildProcess;
  client: WorkerClient;
  url: string;
  stderr: () => string;
}

/** Starts `pgs worker --token-env T ...args` and waits for its one ready line. */
async function startWorker(args: string[]): Promise<Worker> {
  const proc = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), "worker", "--token-env", "PGS_TEST_WORKER_TOKEN", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", PGS_TEST_WORKER_TOKEN: TOKEN },
  }).spawn();
  let err = "";
  void proc.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (s) => void (err += s) }),
  ).catch(() => {});
  // The first line on stdout; the rest of stdout is drained (nothing more is expected there).
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  const first = { value: out.split("\n")[0] };
  const m = /^pgs-worker ready (http:\/\/127\.0\.0\.1:\d+) node=(\S+) capacity=(\d+)$/.exec(first.value ?? "");
  assert.ok(m, `no ready line: ${JSON.stringify(first.value)}; stderr: ${err}`);
  return { proc, url: m[1], client: new WorkerClient({ url: m[1], token: TOKEN }), stderr: () => err };
}

/** An episode of count-error-lines under `settings`. */
function episode(settings: EpisodeSettings, sample: number): EpisodeRequest {
  const row = { task_dir: COUNT };
  return { settings, row, rowId: rowId(row), sample };
}

/** A script whose first command sleeps 5 s, so a test can act while the episode runs. */
const SLEEPER: EpisodeSettings = {
  policy: {
    kind: "script",
    name: "script:sleep",
    turns: [{ tool_calls: [{ name: "bash", arguments: { command: "sleep 5" } }] }, { content: "Answer: 0" }],
  },
};

/** Waits until a box of worker `pid` runs, plus `extraMs` (its command has started). */
async function boxRunning(docker: Docker, pid: number, extraMs: number): Promise<void> {
  const until = Date.now() + MINUTE;
  while ((await containersWith(docker, `pgs.pid=${pid}`)).length === 0) {
    assert.ok(Date.now() < until, `no box of worker ${pid} started within a minute`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, extraMs));
}

Deno.test("pgs worker: bad flags are one line, exit 2", async () => {
  const env = { PGS_TEST_WORKER_TOKEN: TOKEN, DOCKER_HOST: NO_ENGINE };
  await oneLine(["worker"], 2, /^pgs: worker: give --token-env NAME/, env);
  await oneLine(["worker", "--token-env", "PGS_NO_SUCH_VAR_X"], 2, /PGS_NO_SUCH_VAR_X is not set$/, env);
  const w = ["worker", "--token-env", "PGS_TEST_WORKER_TOKEN"];
  await oneLine([...w, "--max-concurrent", "0"], 2, /--max-concurrent must be a positive integer, got "0"$/, env);
  await oneLine([...w, "--port", "x"], 2, /--port must be an integer from 0 to 65535/, env);
  await oneLine([...w, "--max-concurent", "2"], 2, /Unknown option '--max-concurent'.*--max-concurrent/, env);
  await oneLine(w, 2, /^pgs: worker: no docker engine answers at unix:\/\/\/nonexistent/, env);
});

dockerTest(
  "pgs worker: oracle episodes with the node, a wrong token refused, SIGTERM exits 0 leaving no box",
  async (docker) => {
    const w = await startWorker(["--max-concurrent", "2", "--node", "test-node-a"]);
    const pid = w.proc.pid;
    try {
      const h = await w.client.health();
      assert.deepEqual([h.node, h.capacity, h.inFlight, h.runtime], ["test-node-a", 2, 0, "docker"]);
      const settings = await episodeSettings(buildConfig({}, { tasks: COUNT, policy: "oracle" }));
      const ts = await Promise.all(
        [0, 1].map((s) => w.client.runEpisode(episode(settings, s), { timeoutMs: 5 * MINUTE })),
      );
      for (const [i, t] of ts.entries()) {
        assert.equal(t.reward, 1, `sample ${i}: ${t.exit_status} ${t.error ?? ""}`);
        assert.equal(t.node, "test-node-a");
        assert.equal(t.sample, i);
        assert.equal(t.policy, "oracle");
      }
      assert.equal((await w.client.health()).inFlight, 0);

      const wrong = new WorkerClient({ url: w.url, token: "not-the-token" });
      await assert.rejects(wrong.health(), (e) => e instanceof WorkerEpisodeError && e.status === 401);

      // SIGTERM mid-episode: the episode ends as an infrastructure error (never a record), the worker exits 0.
      const running = w.client.runEpisode(episode(SLEEPER, 0), { timeoutMs: 5 * MINUTE });
      await boxRunning(docker, pid, 1000);
      w.proc.kill("SIGTERM");
      await assert.rejects(running, (e) => {
        assert.ok(e instanceof WorkerEpisodeError, `${e}`);
        assert.deepEqual([e.kind, e.status], ["infra", 503]);
        assert.match(e.message, /^test-node-a: the worker is stopping \(SIGTERM on test-node-a\)$/);
        return true;
      });
      const status = await w.proc.status;
      assert.equal(status.code, 0, w.stderr());
      assert.deepEqual(await containersWith(docker, `pgs.pid=${pid}`), [], "boxes left by the worker");
      assert.match(w.stderr(), /pgs worker: stopped; no box of this worker is left/);
    } finally {
      try {
        w.proc.kill("SIGKILL");
      } catch { /* exited */ }
      await w.proc.status;
    }
  },
);

dockerTest("pgs worker: a worker killed outright mid-episode is WorkerLost for its runner", async (docker) => {
  const w = await startWorker(["--max-concurrent", "1"]);
  const pid = w.proc.pid;
  try {
    const node = (await w.client.health()).node;
    const running = w.client.runEpisode(episode(SLEEPER, 0), { timeoutMs: 5 * MINUTE });
    await boxRunning(docker, pid, 1000);
    w.proc.kill("SIGKILL");
    await assert.rejects(running, (e) => {
      assert.ok(e instanceof WorkerLost, `${e}`);
      assert.deepEqual([e.node, e.reason], [node, "connection"]);
      return true;
    });
    await w.proc.status;
  } finally {
    try {
      w.proc.kill("SIGKILL");
    } catch { /* exited */ }
    await w.proc.status;
    // A worker killed outright removes nothing: its boxes are the next sweep's, or this test's.
    const left = await containersWith(docker, `pgs.pid=${pid}`);
    if (left.length) await docker.call(["rm", "-f", ...left]);
  }
});
