/**
 * `deno task bench` (profile part): where a pgs episode's time goes, from outside the library (every docker CLI call
 * traced through `Deno.Command`, see docker_trace.ts). First one-call episodes one at a time: each call's offset and
 * duration in a typical warm episode, and the median of each phase. Then at several episodes at once: how each kind
 * of call slows, how busy the one-at-a-time removal queue is and how long removals wait for it, the event loop's lag
 * and where the CPU went. Prints; asserts nothing. BENCH_PROFILE_EPISODES (9), BENCH_PROFILE_CONCURRENCY (8,32,64).
 */
import { makeBenchTask } from "./bench_task.ts";
import { median, pgsPoint } from "./pgs_runs.ts";
import { type CallRecord, cpuBetween, cpuSample, daemonPids, formatCpu, traceCommands } from "./docker_trace.ts";
import { docker } from "./naive_loop.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const N1 = Number(Deno.env.get("BENCH_PROFILE_EPISODES") ?? 9);
const LEVELS = (Deno.env.get("BENCH_PROFILE_CONCURRENCY") ?? "8,32,64").split(",").map(Number);
const f0 = (x: number) => Number.isFinite(x) ? x.toFixed(0) : "-";

/** What a docker call was for, from its argv. */
function kind(r: CallRecord): string {
  const a = r.args, last = a[a.length - 1] ?? "";
  // The agent's box: `run -d` (idle main process) or `run -i` kept, its main process the killer; the verifier's:
  // `run -i --rm`, its main process the tied verifier server.
  if (a[0] === "run") return a.includes("--rm") || last.includes("PGS-EXIT") ? "run verifier" : "run agent";
  if (a[0] === "exec") {
    if (last.includes("PGS-KILLER")) return "killer exec";
    if (last.includes("PGS-READY ")) return "channel exec";
    if (last.includes("PGS-EXIT")) return "verifier script";
    return "exec other";
  }
  if (a[0] === "cp") return a[1] === "-" ? "cp into verifier" : a[2] === "-" ? "cp out of agent" : "cp other";
  if (a[0] === "rm") return "rm";
  return a.slice(0, 2).join(" ");
}

/** The container id a call names (for `run`, none: the id is in its output). */
function target(r: CallRecord): string {
  if (r.args[0] === "cp") return (r.args[1] === "-" ? r.args[2] : r.args[1]).split(":")[0];
  if (r.args[0] === "rm") return r.args[r.args.length - 1];
  if (r.args[0] === "exec") return r.args.find((x) => /^[0-9a-f]{64}$/.test(x)) ?? "";
  return "";
}

const dir = await makeBenchTask(image, "hello\n".repeat(100), "pgs-profile-");
const pids = daemonPids(Deno.env.get("DOCKER_HOST") ?? "unix:///var/run/docker.sock");
try {
  // The CLI's own cost: a call that takes no daemon lock.
  const cli: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    await docker(["version", "--format", "{{.Server.Version}}"]);
    cli.push(performance.now() - t);
  }
  console.log(`docker CLI round trip (\`docker version\`, no daemon lock): median ${f0(median(cli))} ms`);

  // 1. One at a time: a timeline per episode.
  const calls: CallRecord[] = [];
  const ends: number[] = [];
  const untrace = traceCommands(calls);
  const t0 = performance.now();
  let point;
  try {
    point = await pgsPoint(dir, 1, 1, N1, () => ends.push(performance.now()));
  } finally {
    untrace();
  }
  const episodes = ends.map((end, i) => {
    const from = i ? ends[i - 1] : t0;
    return { from, end, calls: calls.filter((c) => c.t0 >= from && c.t0 < end) };
  });
  const tj = point.trajectories;
  console.log(
    `\none-call episodes one at a time (${N1}; the first is cold): total ${
      tj.map((t) => t.timings.total_ms).join(", ")
    } ms`,
  );
  const show = (e: (typeof episodes)[number], title: string) => {
    console.log(`  ${title} (${f0(e.end - e.from)} ms between episode ends):`);
    for (const c of e.calls) {
      const first = c.first ? `, first byte +${f0(c.first - c.t0)}` : "";
      console.log(
        `    +${f0(c.t0 - e.from).padStart(4)} ms  ${f0(c.t1 - c.t0).padStart(4)} ms${first.padEnd(18)} ${
          kind(c).padEnd(18)
        } docker ${c.args.slice(0, 3).join(" ").slice(0, 40)}`,
      );
    }
  };
  show(episodes[0], "cold episode");
  const warm = episodes.slice(1);
  const typical = [...warm].sort((a, b) => (a.end - a.from) - (b.end - b.from))[Math.floor(warm.length / 2)];
  if (typical) show(typical, "median warm episode");
  // Per phase, the median over warm episodes: duration, and first byte for streams (the channel and killer are ready
  // at their first byte; the session stays open until the episode ends).
  const phases = new Map<string, { dur: number[]; first: number[]; at: number[] }>();
  for (const e of warm) {
    for (const c of e.calls) {
      const k = kind(c);
      if (!phases.has(k)) phases.set(k, { dur: [], first: [], at: [] });
      const p = phases.get(k)!;
      p.dur.push(c.t1 - c.t0), p.at.push(c.t0 - e.from);
      if (c.first) p.first.push(c.first - c.t0);
    }
  }
  console.log("  warm median per call kind: starts at +ms, lasts ms (first byte ms)");
  for (const [k, p] of phases) {
    console.log(
      `    ${k.padEnd(18)} x${(p.dur.length / warm.length).toFixed(1)}  +${f0(median(p.at)).padStart(4)}  ${
        f0(median(p.dur)).padStart(4)
      }${p.first.length ? `  (${f0(median(p.first))})` : ""}`,
    );
  }
  const wt = tj.slice(1);
  console.log(
    `  warm trajectory timings (median): start ${f0(median(wt.map((t) => t.timings.start_ms)))}, tools ${
      f0(median(wt.map((t) => t.timings.tools_ms)))
    }, policy ${f0(median(wt.map((t) => t.timings.policy_ms)))}, verify+removal ${
      f0(median(wt.map((t) => t.timings.verify_ms)))
    }, total ${f0(median(wt.map((t) => t.timings.total_ms)))}`,
  );

  // 2. At once: per-kind slowdown, the removal queue, event-loop lag, CPU.
  console.log("\none-call episodes at once (median call ms: run agent / run verifier / channel ready / killer ready /");
  console.log("  cp out→in / verifier script / rm; removal queue busy % and median wait; event loop lag p50/max):");
  for (const c of LEVELS) {
    const n = Math.max(32, c);
    const cs: CallRecord[] = [];
    const lags: number[] = [];
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      lags.push(now - last - 20);
      last = now;
    }, 20);
    const a = cpuSample(pids);
    const un = traceCommands(cs);
    let p;
    try {
      p = await pgsPoint(dir, 1, c, n);
    } finally {
      un();
      clearInterval(tick);
    }
    const cpu = cpuBetween(a, cpuSample(pids));
    const by = (k: string, first = false) =>
      median(cs.filter((r) => kind(r) === k).map((r) => (first ? r.first || r.t1 : r.t1) - r.t0));
    const rms = cs.filter((r) => r.args[0] === "rm");
    const rmBusy = rms.reduce((s, r) => s + r.t1 - r.t0, 0) / p.wallMs;
    // A removal is asked for when the verifier's script ends (the verifier box at once, the agent's box as the
    // episode closes): pair each agent box with its verifier through the copy between them.
    const asked = new Map<string, number>();
    for (const r of cs.filter((r) => kind(r) === "verifier script")) asked.set(target(r), r.t1);
    const outs = cs.filter((r) => kind(r) === "cp out of agent");
    for (const r of cs.filter((r) => kind(r) === "cp into verifier")) {
      const o = outs.reduce((b, x) => Math.abs(x.t0 - r.t0) < Math.abs(b.t0 - r.t0) ? x : b, outs[0]);
      const v = asked.get(target(r));
      if (o && v !== undefined) asked.set(target(o), v);
    }
    const waits = rms.map((r) => r.t0 - (asked.get(target(r)) ?? NaN)).filter(Number.isFinite);
    const ts = p.trajectories;
    console.log(
      `  ${String(c).padStart(2)} at once, ${n}: ${f0(n / p.wallMs * 60_000)}/min, episode ${
        f0(median(ts.map((t) => t.timings.total_ms)))
      } ms (start ${f0(median(ts.map((t) => t.timings.start_ms)))}, verify+rm ${
        f0(median(ts.map((t) => t.timings.verify_ms)))
      }); calls ${
        [by("run agent"), by("run verifier"), by("channel exec", true), by("killer exec", true)].map(f0).join(" / ")
      } / ${f0(by("cp into verifier"))} / ${f0(by("verifier script"))} / ${f0(by("rm"))}; rm queue ${
        f0(rmBusy * 100)
      }% busy, wait ${f0(median(waits))} ms (p90 ${
        f0([...waits].sort((x, y) => x - y)[Math.floor(waits.length * 0.9)])
      }); lag ${f0(median(lags))}/${f0(Math.max(...lags))} ms`,
    );
    console.log(`      ${formatCpu(cpu)}`);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
  const mine = await docker(["ps", "-aq", "--filter", `label=pgs.pid=${Deno.pid}`]).catch(() => "?");
  console.log(`left behind: ${mine ? mine.split("\n").length : 0} pgs containers`);
}
