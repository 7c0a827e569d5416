/**
 * Bench instrumentation from outside the library: replaces `Deno.Command` with a subclass that records every child
 * process a binary (`docker`) is run as (argv, start, first byte of stdout when the caller reads it as a stream, end),
 * whatever class of the library issues it; and samples CPU time of this process, its reaped children (the CLIs) and
 * the engine's daemons from /proc. Benches only; lib/ is not touched.
 */

/** One CLI call the process made. */
export interface CallRecord {
  /** The CLI's argv (after the binary). */
  args: string[];
  /** Start, first stdout byte (when read as a stream), end, in performance.now() ms; 0 while unknown. */
  t0: number;
  first: number;
  t1: number;
}

/** Records every spawn of `binary` into `sink` until the returned function is called. */
export function traceCommands(sink: CallRecord[], binary = "docker"): () => void {
  const Orig = Deno.Command;
  class Traced extends Orig {
    #args: string[] | undefined;
    constructor(cmd: string | URL, opts?: Deno.CommandOptions) {
      super(cmd, opts);
      if (String(cmd) === binary) this.#args = opts?.args?.map(String) ?? [];
    }
    override spawn(): Deno.ChildProcess {
      const child = super.spawn();
      if (!this.#args) return child;
      const rec: CallRecord = { args: this.#args, t0: performance.now(), first: 0, t1: 0 };
      sink.push(rec);
      // A caller that reads stdout as a stream gets one branch of a tee; the other marks the first byte.
      const own = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(child), "stdout")?.get;
      if (own) {
        let branch: ReadableStream<Uint8Array> | undefined;
        Object.defineProperty(child, "stdout", {
          get() {
            if (branch) return branch;
            const [a, b] = (own.call(child) as ReadableStream<Uint8Array>).tee();
            branch = a;
            (async () => {
              for await (const v of b) if (!rec.first && v.length) rec.first = performance.now();
            })().catch(() => {});
            return branch;
          },
        });
      }
      child.status.finally(() => rec.t1 = performance.now()).catch(() => {});
      return child;
    }
  }
  Object.defineProperty(Deno, "Command", { value: Traced, configurable: true, writable: true });
  return () => Object.defineProperty(Deno, "Command", { value: Orig, configurable: true, writable: true });
}

/** CPU seconds (user + system) of this process, of its reaped children, of the daemons, and of the whole machine. */
export interface CpuSample {
  self: number;
  children: number;
  dockerd: number;
  containerd: number;
  /** Processes inside containers of every engine using cgroup parent /docker (cgroup v1 cpuacct; 0 elsewhere). */
  containers: number;
  /** The engine's shims and runc (see ShimMeter). */
  shims: number;
  /** Busy seconds of all cores together (from /proc/stat). */
  machine: number;
  /** Wall clock, ms. */
  at: number;
}

const TICK = 100; // USER_HZ on Linux

function statTimes(pid: number | "self"): [number, number] {
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    // Fields 14-17 of stat (utime, stime, cutime, cstime) are 11-14 after the command name.
    return [(Number(f[11]) + Number(f[12])) / TICK, (Number(f[13]) + Number(f[14])) / TICK];
  } catch {
    return [0, 0];
  }
}

/**
 * CPU of the engine's containerd-shims and the runc runs they reap (found by the engine's exec root in their command
 * line), sampled every 100 ms: a shim lives as long as its container, and its children's time includes every runc it
 * ran, but also the container's init and exec'd processes it reaped (so it overlaps the `/docker` cgroup's figure).
 * What a shim spends in its last 100 ms is missed.
 */
export class ShimMeter {
  #seen = new Map<number, number>();
  #other = new Set<number>();
  #timer: number;
  constructor(readonly root: string) {
    this.#timer = setInterval(() => this.#scan(), 100) as unknown as number;
    Deno.unrefTimer(this.#timer);
  }
  #scan(): void {
    for (const e of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(e.name)) continue;
      const pid = Number(e.name);
      if (this.#other.has(pid)) continue;
      if (!this.#seen.has(pid)) {
        let cmd = "";
        try {
          cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
        } catch {
          continue;
        }
        if (!cmd.startsWith("/usr/bin/containerd-shim") || !cmd.includes(this.root)) {
          this.#other.add(pid);
          continue;
        }
      }
      const [own, kids] = statTimes(pid);
      if (own + kids > 0) this.#seen.set(pid, Math.max(this.#seen.get(pid) ?? 0, own + kids));
    }
  }
  /** CPU seconds of the shims (and their runc children) seen so far. */
  total(): number {
    this.#scan();
    let t = 0;
    for (const v of this.#seen.values()) t += v;
    return t;
  }
  /** Stops sampling. */
  stop(): void {
    clearInterval(this.#timer);
  }
}

/** Pids of the dockerd and containerd serving `socket` (the DOCKER_HOST path), found by their command lines. */
export function daemonPids(socket: string): { dockerd?: number; containerd?: number; shims?: ShimMeter } {
  const root = socket.replace(/^unix:\/\//, "").replace(/\/[^/]*$/, "");
  const found: { dockerd?: number; containerd?: number; shims?: ShimMeter } = {};
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    let cmd = "";
    try {
      cmd = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (!cmd.includes(root)) continue;
    if (cmd.startsWith("dockerd ")) found.dockerd = Number(e.name);
    else if (cmd.startsWith("containerd ")) found.containerd = Number(e.name);
  }
  found.shims = new ShimMeter(root);
  return found;
}

function containersCpu(): number {
  try {
    return Number(Deno.readTextFileSync("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage")) / 1e9;
  } catch {
    return 0;
  }
}

/** One CPU sample now. */
export function cpuSample(pids: { dockerd?: number; containerd?: number; shims?: ShimMeter }): CpuSample {
  const [self, children] = statTimes("self");
  const line = Deno.readTextFileSync("/proc/stat").split("\n")[0].split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
  const busy = line.slice(0, 8).reduce((a, b) => a + b, 0) - line[3] - line[4];
  return {
    self,
    children,
    dockerd: pids.dockerd ? statTimes(pids.dockerd)[0] : 0,
    containerd: pids.containerd ? statTimes(pids.containerd)[0] : 0,
    containers: containersCpu(),
    shims: pids.shims?.total() ?? 0,
    machine: busy / TICK,
    at: performance.now(),
  };
}

/** CPU use in cores over `wall` seconds, from each counter's CPU seconds spent in that time (`spent`). */
export function cpuRates(
  spent: (k: keyof Omit<CpuSample, "at">) => number,
  wall: number,
): Omit<CpuSample, "at"> & { wall: number } {
  const per = (k: keyof Omit<CpuSample, "at">) => spent(k) / wall;
  return {
    self: per("self"),
    children: per("children"),
    dockerd: per("dockerd"),
    containerd: per("containerd"),
    containers: per("containers"),
    shims: per("shims"),
    machine: per("machine"),
    wall,
  };
}

/** CPU use between two samples, in cores (seconds of CPU per second of wall time). */
export function cpuBetween(a: CpuSample, b: CpuSample): Omit<CpuSample, "at"> & { wall: number } {
  return cpuRates((k) => b[k] - a[k], (b.at - a.at) / 1000);
}

/** One line: busy cores, then this process, the CLIs, dockerd, containerd, containers, the rest, and the shims. */
export function formatCpu(c: ReturnType<typeof cpuBetween>): string {
  const rest = c.machine - c.self - c.children - c.dockerd - c.containerd - c.containers;
  const f = (x: number) => x.toFixed(2);
  return `cores busy ${f(c.machine)}: pgs/bench ${f(c.self)}, docker CLIs ${f(c.children)}, dockerd ${
    f(c.dockerd)
  }, containerd ${f(c.containerd)}, in containers ${f(c.containers)}, rest ${f(rest)} (shims, runc, kernel threads, ` +
    `other work; the engine's shims with what they reaped: ${f(c.shims)})`;
}
