/**
 * `deno run -A bench/lever_sim.ts`: what the speed levers of issue 28 would buy, simulated from outside the library
 * by rewriting the docker CLI calls pgs makes (`Deno.Command` replaced, lib/ untouched), on the same one-call
 * episodes at 1 and 8 at once:
 * - `pool`: a `docker run -d` is answered at once with a box started earlier with the very same argv (each box used
 *   once, fresh from its image), the pool refilled in the background: a warm pool of boxes.
 * - `one-exec`: the resident killer's `docker exec` is replaced by a local stand-in that says it is ready: the killer
 *   folded into the channel (one exec an episode). Kills would not work; the scripted episodes need none.
 * - `rm-off-path`: a `docker rm` returns at once and the real removal joins a queue, still one at a time: removal as
 *   the engine's work off the episode's path (what `run -i --rm` tied to a pipe gives), without overlapping removals
 *   (this engine has moby/moby#46661).
 * Every point's wall time includes finishing the background work it made (the pool's leftovers removed, the queue
 * drained), and nothing is left behind. Prints; asserts nothing. SIM_CONCURRENCY (1,8), SIM_EPISODES (32, in
 * SIM_ROUNDS (4) turns), SIM_MODES.
 */
import { makeBenchTask } from "./bench_task.ts";
import { median, pgsPoint } from "./pgs_runs.ts";
import { cpuRates, type CpuSample, cpuSample, daemonPids, formatCpu } from "./docker_trace.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const LEVELS = (Deno.env.get("SIM_CONCURRENCY") ?? "1,8").split(",").map(Number);
const N = Number(Deno.env.get("SIM_EPISODES") ?? 32);
const MODES = (Deno.env.get("SIM_MODES") ?? "base,pool,one-exec,rm-off-path,all").split(",");
const ROUNDS = Number(Deno.env.get("SIM_ROUNDS") ?? 4);

const Orig = Deno.Command;
type Rewrite = { cmd: string; args: string[] } | undefined;

/** Runs the real docker CLI (the original Deno.Command), returning stdout; never throws. */
async function realDocker(args: string[]): Promise<string> {
  try {
    const out = await new Orig("docker", { args, stdout: "piped", stderr: "null" }).output();
    return new TextDecoder().decode(out.stdout).trim();
  } catch {
    return "";
  }
}

/** The simulated levers of one point, and the background work they leave to finish. */
class Levers {
  #rmTail: Promise<unknown> = Promise.resolve();
  #pools = new Map<string, { ready: string[]; filling: number }>();
  #fills = new Set<Promise<unknown>>();
  constructor(readonly modes: Set<string>, readonly poolSize: number) {}

  rewrite(args: string[]): Rewrite {
    const last = args[args.length - 1] ?? "";
    if (this.modes.has("rm-off-path") && args[0] === "rm") {
      const ids = args.filter((a) => /^[0-9a-f]{12,64}$/.test(a));
      this.#rmTail = this.#rmTail.then(() => realDocker(["rm", "-f", "-v", ...ids]));
      return { cmd: "true", args: [] };
    }
    if (this.modes.has("one-exec") && args[0] === "exec" && last.includes("PGS-KILLER")) {
      return { cmd: "sh", args: ["-c", "echo PGS-KILLER; cat > /dev/null"] };
    }
    if (this.modes.has("pool") && args[0] === "run" && args.includes("-d")) {
      const key = JSON.stringify(args);
      let pool = this.#pools.get(key);
      if (!pool) this.#pools.set(key, pool = { ready: [], filling: 0 });
      const id = pool.ready.shift();
      this.#fill(args, pool);
      if (id) return { cmd: "echo", args: [id] };
    }
    return undefined;
  }

  #fill(args: string[], pool: { ready: string[]; filling: number }): void {
    while (pool.ready.length + pool.filling < this.poolSize) {
      pool.filling++;
      const p = realDocker(args).then((id) => {
        pool.filling--;
        if (/^[0-9a-f]{64}$/.test(id)) pool.ready.push(id);
      });
      this.#fills.add(p);
      p.finally(() => this.#fills.delete(p));
    }
  }

  /** Waits for the background work: pool fills settle, unused pool boxes removed, the removal queue drained. */
  async finish(): Promise<void> {
    while (this.#fills.size) await Promise.all([...this.#fills]);
    const unused = [...this.#pools.values()].flatMap((p) => p.ready.splice(0));
    for (const id of unused) this.#rmTail = this.#rmTail.then(() => realDocker(["rm", "-f", "-v", id]));
    await this.#rmTail;
  }
}

function install(levers: Levers): () => void {
  class Sim extends Orig {
    constructor(cmd: string | URL, opts?: Deno.CommandOptions) {
      const sub = String(cmd) === "docker" && opts?.args ? levers.rewrite(opts.args.map(String)) : undefined;
      super(sub ? sub.cmd : cmd, sub ? { ...opts, args: sub.args } : opts);
    }
  }
  Object.defineProperty(Deno, "Command", { value: Sim, configurable: true, writable: true });
  return () => Object.defineProperty(Deno, "Command", { value: Orig, configurable: true, writable: true });
}

const dir = await makeBenchTask(image, "hello\n".repeat(100), "pgs-levers-");
const pids = daemonPids(Deno.env.get("DOCKER_HOST") ?? "unix:///var/run/docker.sock");
const f0 = (x: number) => x.toFixed(0);
console.log(`lever simulation, one-call task, ${N} episodes a point, load ${Deno.loadavg()[0].toFixed(1)}:`);
try {
  for (const c of LEVELS) {
    // Modes take turns in rounds of N/ROUNDS episodes each: the machine's load drifts (other work shares it).
    const acc = new Map(MODES.map((m) => [m, { wall: 0, ts: [] as Trajectory[], cpu: [] as CpuSample[][] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of MODES) {
        const set = new Set(mode === "all" ? ["pool", "one-exec", "rm-off-path"] : mode === "base" ? [] : [mode]);
        const levers = new Levers(set, Math.max(2, c));
        const a = cpuSample(pids);
        const undo = install(levers);
        const t0 = performance.now();
        let p;
        try {
          p = await pgsPoint(dir, 1, c, Math.max(2 * c, Math.ceil(N / ROUNDS)));
        } finally {
          undo();
          await levers.finish();
        }
        const m = acc.get(mode)!;
        m.wall += performance.now() - t0;
        m.ts.push(...p.trajectories);
        m.cpu.push([a, cpuSample(pids)]);
      }
    }
    for (const [mode, m] of acc) {
      const med = (k: "start_ms" | "tools_ms" | "verify_ms" | "total_ms") => f0(median(m.ts.map((t) => t.timings[k])));
      const cpu = cpuRates((k) => m.cpu.reduce((s, [a, b]) => s + b[k] - a[k], 0), m.wall / 1000);
      console.log(
        `  ${String(c).padStart(2)} at once, ${mode.padEnd(11)}: ${m.ts.length} episodes, ${
          f0(m.ts.length / m.wall * 60_000)
        }/min (background work included); episode ${med("total_ms")} ms (start ${med("start_ms")}, tools ${
          med("tools_ms")
        }, verify+rm ${med("verify_ms")})`,
      );
      console.log(`      ${formatCpu(cpu)}`);
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
  const mine = await realDocker(["ps", "-aq", "--filter", `label=pgs.pid=${Deno.pid}`]);
  console.log(`left behind: ${mine ? mine.split("\n").length : 0} pgs containers`);
}
