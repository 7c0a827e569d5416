/**
 * `deno task bench` (naive part): in one run on one engine, a one-call task (and a 25-call task) as the naive shell
 * loop (`naive_loop.ts`: run, exec per call, cp out, a second run, cp in, test.sh, rm twice), as pgs (`runEpisodes`,
 * scripted policy, isolated verifier) and the engine's own rate (`docker run --rm` of a no-op), at several episodes
 * at once; wall time, episodes/min, median episode, the ratio pgs/naive, and where the machine's CPU went. Prints;
 * asserts nothing; leaves no container, image or folder of its own behind.
 *
 * BENCH_CONCURRENCY (1,8,32,64), BENCH_EPISODES (32 a point, at least as many as at once), BENCH_LONG_CONCURRENCY
 * (1,8: the 25-call task), BENCH_SKIP_LONG=1, BENCH_NAIVE_PARALLEL_RM=1 (removals at once in the naive loop and the
 * no-op rate on an engine with moby/moby#46661; off by default there, since it may wedge a shared engine).
 */
import { makeBenchTask } from "./bench_task.ts";
import {
  atOnce,
  BENCH_LABEL,
  buildNaiveImage,
  docker,
  hasRemovalDeadlock,
  leftovers,
  LIMITS,
  naiveEpisode,
  noopContainer,
  Remover,
} from "./naive_loop.ts";
import { CALL, median, pgsPoint } from "./pgs_runs.ts";
import { cpuBetween, cpuSample, daemonPids, formatCpu } from "./docker_trace.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const levels = (k: string, d: string) => (Deno.env.get(k) ?? d).split(",").map(Number);
const LEVELS = levels("BENCH_CONCURRENCY", "1,8,32,64");
const LONG_LEVELS = Deno.env.get("BENCH_SKIP_LONG") === "1" ? [] : levels("BENCH_LONG_CONCURRENCY", "1,8");
const EPISODES = Number(Deno.env.get("BENCH_EPISODES") ?? 32);

let version = "";
try {
  version = await docker(["version", "--format", "{{.Server.Version}}"]);
} catch {
  console.error("bench: no Docker engine answers (start dockerd or set DOCKER_HOST)");
  Deno.exit(1);
}
const sick = hasRemovalDeadlock(version);
const parallelRm = !sick || Deno.env.get("BENCH_NAIVE_PARALLEL_RM") === "1";
const pids = daemonPids(Deno.env.get("DOCKER_HOST") ?? "unix:///var/run/docker.sock");
const dir = await makeBenchTask(image, "hello\n".repeat(100), "pgs-naive-bench-");
const tag = `pgs-naive-bench:${Deno.pid}`;
const f0 = (x: number) => x.toFixed(0);

console.log(
  `naive loop vs pgs vs the engine: dockerd ${version}, ${navigator.hardwareConcurrency} cores, load ${
    Deno.loadavg().map((x) => x.toFixed(1)).join(" ")
  }; naive removals ${parallelRm ? "at once" : "one at a time (moby/moby#46661 on this engine)"}`,
);
try {
  await buildNaiveImage(image, `${dir}/environment/workdir`, "/workdir", tag);
  const rows: string[] = [];
  for (const [calls, lv] of [[1, LEVELS], [25, LONG_LEVELS]] as const) {
    if (!lv.length) continue;
    console.log(`\n${calls}-call task (${calls} × \`${CALL}\`), isolated verifier; median episode, episodes/min:`);
    for (const [i, c] of lv.entries()) {
      const n = Math.max(EPISODES, c);
      const task = { image: tag, workdir: "/workdir", testsDir: `${dir}/tests`, commands: Array(calls).fill(CALL) };
      const naive = async () => {
        const remover = new Remover(parallelRm);
        const a = cpuSample(pids);
        const r = await atOnce(c, n, async () => {
          const reward = await naiveEpisode(task, image, remover);
          if (reward !== 1) throw new Error(`bench: a naive episode scored ${reward}`);
        });
        return { ...r, cpu: cpuBetween(a, cpuSample(pids)), rmWait: median(remover.waitMs) };
      };
      const pgs = async () => {
        const a = cpuSample(pids);
        const r = await pgsPoint(dir, calls, c, n);
        return { ...r, cpu: cpuBetween(a, cpuSample(pids)) };
      };
      // Alternate which goes first: the machine's load drifts.
      let nv, pg;
      if (i % 2 === 0) [nv, pg] = [await naive(), await pgs()];
      else [pg, nv] = [await pgs(), await naive()];
      const rate = (ms: number) => n / ms * 60_000;
      const ts = pg.trajectories;
      const med = (k: "start_ms" | "tools_ms" | "verify_ms") => f0(median(ts.map((t) => t.timings[k])));
      const pgMed = median(ts.map((t) => t.timings.total_ms));
      console.log(
        `  ${String(c).padStart(2)} at once, ${n} episodes: naive ${(nv.wallMs / 1000).toFixed(1)} s, ${
          f0(median(nv.each))
        } ms, ${f0(rate(nv.wallMs))}/min (removal wait ${f0(nv.rmWait)} ms) | pgs ${(pg.wallMs / 1000).toFixed(1)} s, ${
          f0(pgMed)
        } ms (start ${med("start_ms")}, tools ${med("tools_ms")}, verify+rm ${med("verify_ms")}), ${
          f0(rate(pg.wallMs))
        }/min | pgs/naive wall ${(pg.wallMs / nv.wallMs).toFixed(2)}×, episode ${
          (pgMed / median(nv.each)).toFixed(2)
        }×`,
      );
      console.log(`      naive ${formatCpu(nv.cpu)}`);
      console.log(`      pgs   ${formatCpu(pg.cpu)}`);
      rows.push(
        `| ${calls} | ${c} | ${n} | ${f0(rate(nv.wallMs))} | ${f0(rate(pg.wallMs))} | ${
          (pg.wallMs / nv.wallMs).toFixed(2)
        } | ${f0(median(nv.each))} | ${f0(pgMed)} |`,
      );
    }
  }

  // The engine's own rate: one container started and removed per job. With removals one at a time (this engine),
  // a no-op run and a serial `docker rm`: the ceiling pgs can reach with two containers an episode.
  console.log(`\nengine: no-op containers (${image} \`true\`, same limits):`);
  for (const c of LEVELS) {
    const n = Math.max(64, 2 * c);
    const row: string[] = [];
    if (parallelRm || c <= 8) {
      const a = cpuSample(pids);
      const r = await atOnce(c, n, () => noopContainer(image));
      row.push(
        `run --rm ${f0(n / r.wallMs * 60_000)}/min (median ${f0(median(r.each))} ms; ${
          formatCpu(cpuBetween(a, cpuSample(pids)))
        })`,
      );
    } else row.push("run --rm skipped (removals at once past 8 risk moby/moby#46661 here)");
    const remover = new Remover(false);
    const r = await atOnce(c, n, async () => {
      const id = await docker(["run", "-d", ...LIMITS, "--label", `${BENCH_LABEL}=1`, image, "true"]);
      await remover.remove(id);
    });
    row.push(`run -d + serial rm ${f0(n / r.wallMs * 60_000)}/min (rm ${f0(median(remover.rmMs))} ms each)`);
    console.log(`  ${String(c).padStart(2)} at once, ${n}: ${row.join("; ")}`);
  }
  console.log(
    "\n| calls | at once | episodes | naive/min | pgs/min | pgs/naive wall | naive median ms | pgs median ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
} finally {
  const left = await leftovers().catch(() => [] as string[]);
  if (left.length) await docker(["rm", "-f", "-v", ...left]).catch(() => {});
  await docker(["rmi", "-f", tag]).catch(() => {});
  await Deno.remove(dir, { recursive: true });
  const mine = await docker(["ps", "-aq", "--filter", `label=pgs.pid=${Deno.pid}`]).catch(() => "?");
  console.log(
    `left behind: ${left.length} bench containers (removed now), ${mine ? mine.split("\n").length : 0} pgs containers`,
  );
}
