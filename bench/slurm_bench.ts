/**
 * `deno task bench:slurm`: what a Slurm worker costs and whether a run over nodes keeps count, on the cluster SLURM_CONF
 * names (`eval "$(bash scripts/slurm_cluster.sh start)"`: n1, n2) and the engine DOCKER_HOST names. Prints figures,
 * asserts nothing, leaves nothing behind; without Slurm (or an engine) it says so in one line and exits 0.
 *
 * (t) The tool-call hop: a `pgs env serve --slurm --nodes 1` and a local `pgs env serve`, both up at once, each with
 *     SLURM_BENCH_EPISODES (10) episodes of count-error-lines (the create's time: the start) and 5 bash calls in each
 *     (`step`), the two servers in turn call by call (so both see the same engine load): p50 and p90 of both, and the
 *     differences. Skipped with a line when the Slurm server does not come up.
 * (a) The worker hop: an oracle episode of examples/tasks/count-error-lines through a pgs worker on a node
 *     (`WorkerClient.runEpisode`, one at a time) against the same episode run here (`runEpisodes`, one at a time):
 *     p50 and p90 of the start (`timings.start_ms`), of the episode (`timings.total_ms`) and, through the worker, of
 *     the runner's round trip, whose excess over the episode is the hop. SLURM_BENCH_EPISODES (10) each, after one
 *     warm-up each (the image built).
 * (b) The count: `pgs eval --slurm --nodes 2 --policy oracle -k SLURM_BENCH_K (64)` on count-error-lines,
 *     `--max-concurrent SLURM_BENCH_CONCURRENT (4)` per node: episodes scored, per node, run twice (must be 0), lost
 *     (must be 0), and the wall time.
 * SLURM_BENCH_PARTS (tab) picks the parts.
 */
import { join, resolve } from "node:path";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { latestById, readTrajectories, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { oraclePolicy } from "../lib/policies/policy.ts";
import { slurmAvailable, stopAllSync } from "../lib/cluster/slurm.ts";
import { startSlurmWorkers } from "../lib/cluster/slurm_workers.ts";
import type { EpisodeSettings } from "../lib/cluster/worker_protocol.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { median } from "./pgs_runs.ts";

registerBuiltins();
const ROOT = resolve(import.meta.dirname!, "..");
const TASK = join(ROOT, "examples", "tasks", "count-error-lines");
const N = Number(Deno.env.get("SLURM_BENCH_EPISODES") ?? 10);
const K = Number(Deno.env.get("SLURM_BENCH_K") ?? 64);
const CONCURRENT = Number(Deno.env.get("SLURM_BENCH_CONCURRENT") ?? 4);

const absent = await slurmAvailable();
if (absent) {
  console.log(`slurm bench: skipped (${absent}; start a cluster: eval "$(bash scripts/slurm_cluster.sh start)")`);
  Deno.exit(0);
}
const runtime = createRuntime();
if (!await runtime.ping()) {
  console.log(`slurm bench: skipped (no ${runtime.kind} engine answers at ${runtime.engine})`);
  Deno.exit(0);
}
Deno.addSignalListener("SIGINT", () => {
  stopAllSync(5_000);
  Deno.exit(130);
});

const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const f0 = (x: number) => x.toFixed(0);
const both = (xs: number[]) => `p50 ${f0(median(xs))} ms, p90 ${f0(p90(xs))} ms`;

const TOKEN = crypto.randomUUID();
const CALLS = 5;

/** A `pgs env serve` (`--slurm` ones with a one-node job) on `port`, answering /v1/health, and its end. */
async function serve(port: number, slurm: boolean): Promise<{ base: string; stop: () => Promise<void> } | string> {
  const args = ["run", "-A", "--quiet", join(ROOT, "main.ts"), "env", "serve", "--port", String(port)];
  if (slurm) args.push("--slurm", "--nodes", "1", "--time", "15");
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args, "--token-env", "PGS_BENCH_TOKEN"],
    env: { PGS_BENCH_TOKEN: TOKEN },
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const err: string[] = [];
  const dec = new TextDecoder();
  (async () => {
    for await (const b of child.stderr) err.push(dec.decode(b));
  })().catch(() => undefined);
  const base = `http://127.0.0.1:${port}/v1`;
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
  };
  const end = Date.now() + 180_000;
  while (Date.now() < end) {
    const ok = await fetch(`${base}/health`).then(async (r) => (await r.body?.cancel(), r.ok), () => false);
    if (ok) return { base, stop };
    const st = await Promise.race([child.status, new Promise((r) => setTimeout(r, 500, undefined))]);
    if (st) return `it exited: ${err.join("").trim().split("\n").slice(-2).join(" ")}`;
  }
  await stop();
  return "it did not answer /v1/health within 180 s";
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** (t) N episodes opened on each server in turn, CALLS bash calls each, the two servers' calls alternating. */
async function toolCalls(bases: string[]): Promise<{ create: number[]; step: number[] }[]> {
  const out = bases.map(() => ({ create: [] as number[], step: [] as number[] }));
  for (let i = 0; i <= N; i++) {
    const ids: string[] = [];
    for (const [k, base] of bases.entries()) {
      const t0 = performance.now();
      const ep = await call(base, "POST", "/episodes", { row: { task_dir: TASK }, group: i });
      if (i > 0) out[k].create.push(performance.now() - t0); // the first builds the image
      ids.push(ep.episode_id as string);
    }
    for (let c = 0; c < CALLS; c++) {
      for (const [k, base] of bases.entries()) {
        const args = JSON.stringify({ command: "wc -l app.log" });
        const t0 = performance.now();
        await call(base, "POST", `/episodes/${ids[k]}/step`, {
          content: null,
          tool_calls: [{ id: `c${c}`, type: "function", function: { name: "bash", arguments: args } }],
        });
        if (i > 0) out[k].step.push(performance.now() - t0);
      }
    }
    for (const [k, base] of bases.entries()) await call(base, "DELETE", `/episodes/${ids[k]}`);
  }
  return out;
}

/** (t) The same calls through a local server and a `--slurm` one, in turn, so both see the same load. */
async function toolHop(): Promise<void> {
  console.log(
    `(t) the tool-call hop: ${N} episodes of count-error-lines, ${CALLS} bash calls each, the two servers in turn`,
  );
  const servers: { stop: () => Promise<void> }[] = [];
  try {
    const bases: string[] = [];
    for (const [label, slurm, port] of [["env serve", false, 18731], ["env serve --slurm", true, 18732]] as const) {
      const s = await serve(port, slurm);
      if (typeof s === "string") return console.log(`    ${label}: skipped (${s})`);
      servers.push(s);
      bases.push(s.base);
    }
    const [a, b] = await toolCalls(bases);
    console.log(`    ${"env serve".padEnd(18)} tool call ${both(a.step)}; episode start ${both(a.create)}`);
    console.log(`    ${"env serve --slurm".padEnd(18)} tool call ${both(b.step)}; episode start ${both(b.create)}`);
    const diff = b.step.map((x, i) => x - a.step[i]);
    console.log(
      `    --slurm - local, p50: tool call ${(median(b.step) - median(a.step)).toFixed(1)} ms (p50 of the paired ` +
        `differences ${median(diff).toFixed(1)} ms); episode start ${f0(median(b.create) - median(a.create))} ms`,
    );
  } catch (e) {
    console.log(`    skipped (${(e as Error).message})`);
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** Which parts run: SLURM_BENCH_PARTS, any of t, a, b (default all). */
const PARTS = Deno.env.get("SLURM_BENCH_PARTS") ?? "tab";

/** (a) Local: N oracle episodes one at a time, after a warm-up. */
async function local(): Promise<Trajectory[]> {
  const rows = [{ task_dir: TASK }];
  await runEpisodes(oraclePolicy(), rows, {}, { k: 1, maxConcurrent: 1 });
  const [ts] = await runEpisodes(oraclePolicy(), rows, {}, { k: N, maxConcurrent: 1 });
  return ts;
}

/** (a) Through a worker on one node: N oracle episodes one at a time, after a warm-up; each with its round trip. */
async function worker(): Promise<{ ts: Trajectory[]; trips: number[]; node: string }> {
  const sw = await startSlurmWorkers({ nodes: 1, time: "15", maxConcurrent: 1 });
  try {
    const w = sw.workers[0];
    const settings: EpisodeSettings = { policy: { kind: "oracle" } };
    const one = async (sample: number) => {
      const t0 = performance.now();
      const t = await w.runEpisode({ settings, row: { task_dir: TASK }, rowId: "count-error-lines", sample }, {
        timeoutMs: 300_000,
      });
      return { t, ms: performance.now() - t0 };
    };
    await one(N);
    const ts: Trajectory[] = [], trips: number[] = [];
    for (let s = 0; s < N; s++) {
      const { t, ms } = await one(s);
      ts.push(t);
      trips.push(ms);
    }
    return { ts, trips, node: w.node };
  } finally {
    await sw.close();
  }
}

/** (b) The 64-episode eval over both nodes, counted from its trajectories. */
async function count(): Promise<void> {
  const out = await Deno.makeTempDir({ prefix: "pgs-slurm-bench-" });
  try {
    const t0 = performance.now();
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        join(ROOT, "main.ts"),
        "eval",
        "--slurm",
        "--nodes",
        "2",
        "--time",
        "30",
        "--policy",
        "oracle",
        "--tasks",
        TASK,
        "-k",
        String(K),
        "--max-concurrent",
        String(CONCURRENT),
        "--no-diff",
        "--out",
        out,
      ],
      cwd: ROOT,
      stdout: "null",
      stderr: "piped",
    }).output();
    const s = (performance.now() - t0) / 1000;
    let all: Trajectory[] = [];
    try {
      all = readTrajectories(join(out, "trajectories.jsonl"));
    } catch { /* none written */ }
    const scored = all.filter((t) => t.reward !== null);
    const ids = new Map<string, number>();
    for (const t of scored) ids.set(t.id, (ids.get(t.id) ?? 0) + 1);
    const twice = [...ids.values()].filter((n) => n > 1).length;
    const latest = latestById(all);
    const lost = K - latest.filter((t) => t.reward !== null).length;
    const perNode = new Map<string, number>();
    for (const t of scored) perNode.set(t.node ?? "-", (perNode.get(t.node ?? "-") ?? 0) + 1);
    const nodes = [...perNode].sort().map(([n, c]) => `${n} ${c}`).join(", ");
    const infra = all.filter((t) => t.exit_status === "infra_error").length;
    console.log(`(b) the count: pgs eval --slurm --nodes 2 --policy oracle -k ${K} (--max-concurrent ${CONCURRENT})`);
    console.log(
      `    exit ${r.code}; ${scored.length}/${K} episodes scored (reward 1: ${
        scored.filter((t) => t.reward === 1).length
      }); per node: ${nodes}; run twice: ${twice}; lost: ${lost}; infra errors: ${infra}; ${s.toFixed(1)} s`,
    );
    if (r.code !== 0) console.log(new TextDecoder().decode(r.stderr).trim().split("\n").slice(-5).join("\n"));
  } finally {
    await Deno.remove(out, { recursive: true }).catch(() => undefined);
  }
}

console.log(`slurm bench: SLURM_CONF=${Deno.env.get("SLURM_CONF") ?? "-"}, engine ${runtime.engine}`);
if (PARTS.includes("t")) await toolHop();
if (PARTS.includes("a")) await workerHop();
if (PARTS.includes("b")) await count();

/** (a) Both runs, and their figures. */
async function workerHop(): Promise<void> {
  const here = await local();
  const there = await worker();
  const start = (ts: Trajectory[]) => ts.map((t) => t.timings.start_ms);
  const total = (ts: Trajectory[]) => ts.map((t) => t.timings.total_ms);
  const hop = there.trips.map((ms, i) => ms - there.ts[i].timings.total_ms);
  console.log(`(a) the worker hop: ${N} oracle episodes of count-error-lines, one at a time`);
  console.log(`    ${"here:".padEnd(15)} start ${both(start(here))}; episode ${both(total(here))}`);
  console.log(
    `    ${`worker on ${there.node}:`.padEnd(15)} start ${both(start(there.ts))}; episode ${both(total(there.ts))}`,
  );
  console.log(`    ${"".padEnd(15)} round trip ${both(there.trips)}; hop (round trip - episode) ${both(hop)}`);
  console.log(
    `    start p50 through the worker - here: ${f0(median(start(there.ts)) - median(start(here)))} ms; ` +
      `round trip p50 - episode p50 here: ${f0(median(there.trips) - median(total(here)))} ms`,
  );
}
