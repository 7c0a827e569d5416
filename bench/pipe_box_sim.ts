/**
 * `deno task bench:levers` (prototype part): the episode pgs could run with boxes that die with their owner, checked
 * before it is built. Each box is a `docker run -i --rm --init` whose main process is a small server on its stdin
 * (no `docker exec`, no `docker cp`, no `docker rm`): the agent's box answers commands and hands out its working
 * directory as a tar; the verifier's box (pristine image) reads tests/ and that tar from stdin, runs test.sh and
 * prints the reward. Closing a box's stdin ends it and the engine removes it; the `docker run` CLI exits once it is
 * removed. Boxes are closed one at a time (this engine has moby/moby#46661), and at most 8 start at once. Interleaved with pgs itself (the same
 * one-call task) in rounds; prints rates and medians; asserts nothing; leaves nothing behind.
 * PIPE_CONCURRENCY (1,8), PIPE_EPISODES (32, in PIPE_ROUNDS (2) turns), PIPE_CALLS (1 shell call an episode).
 */
import { makeBenchTask } from "./bench_task.ts";
import { atOnce, BENCH_LABEL, buildNaiveImage, docker, leftovers, LIMITS } from "./naive_loop.ts";
import { CALL, median, pgsPoint } from "./pgs_runs.ts";
import { ByteReader } from "../lib/base/byte_reader.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const LEVELS = (Deno.env.get("PIPE_CONCURRENCY") ?? "1,8").split(",").map(Number);
const N = Number(Deno.env.get("PIPE_EPISODES") ?? 32);
const ROUNDS = Number(Deno.env.get("PIPE_ROUNDS") ?? 2);
const CALLS = Number(Deno.env.get("PIPE_CALLS") ?? 1);
const enc = new TextEncoder();
const f0 = (x: number) => x.toFixed(0);

// The agent's server: a line is a command run in /workdir (its output, then `END rc`); `TAR` prints the working
// directory as `SIZE n` and n bytes of tar. It ends at end of input, and the box with it.
const AGENT = `echo READY
while IFS= read -r line; do
  if [ "$line" = TAR ]; then tar -C / -cf /tmp/.w.tar workdir; echo "SIZE $(wc -c < /tmp/.w.tar)"; cat /tmp/.w.tar
  else (cd /workdir && sh -c "$line") </dev/null; echo "END $?"; fi
done`;
// The verifier's server: reads `n`, then n bytes (tests/ and the working directory as two tars back to back; GNU head
// reads no further than n), extracts them, runs the tests, prints the reward, and ends at end of input.
const VERIFIER = `read -r n; head -c "$n" > /tmp/.in.tar
tar -C / -xif /tmp/.in.tar && rm -f /tmp/.in.tar
mkdir -p /logs/verifier; cd /workdir; bash /tests/test.sh >/dev/null 2>&1; echo "REWARD $(cat /logs/verifier/reward.txt)"
cat > /dev/null`;

/** A box whose life is its `docker run -i --rm` CLI process. */
class PipeBox {
  readonly proc: Deno.ChildProcess;
  readonly out: ByteReader;
  readonly w: WritableStreamDefaultWriter<Uint8Array>;
  constructor(args: string[]) {
    this.proc = new Deno.Command("docker", { args, stdin: "piped", stdout: "piped", stderr: "null" }).spawn();
    this.out = new ByteReader(this.proc.stdout.getReader());
    this.w = this.proc.stdin.getWriter();
  }
  async line(): Promise<string> {
    const l = await this.out.readLineWithin(120_000);
    if (l === null) throw new Error("bench: a pipe box ended early");
    return l;
  }
  /** Ends the box: closes its stdin and waits until the CLI exits (with --rm, once the engine removed it). */
  async close(): Promise<void> {
    await this.w.close().catch(() => {});
    await this.proc.stdout.cancel().catch(() => {});
    await this.proc.status;
  }
}

/** Closes boxes one at a time, and keeps how long each close took (exit and removal by the engine). */
class Closer {
  #tail: Promise<unknown> = Promise.resolve();
  readonly ms: number[] = [];
  close(b: PipeBox): Promise<void> {
    const p = this.#tail.then(async () => {
      const t = performance.now();
      await b.close();
      this.ms.push(performance.now() - t);
    });
    this.#tail = p.catch(() => {});
    return p;
  }
}

/** At most `n` boxes starting at once (pgs's start gate: 8). */
class Gate {
  #free: number;
  #waiting: (() => void)[] = [];
  constructor(n: number) {
    this.#free = n;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((r) => this.#waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

function tarOf(dir: string, name: string): Promise<Uint8Array> {
  return new Deno.Command("tar", { args: ["-C", dir, "-cf", "-", name], stdout: "piped" }).output().then((o) =>
    o.stdout
  );
}

async function pipeEpisode(tag: string, testsTar: Uint8Array, closer: Closer, gate: Gate): Promise<number> {
  const label = ["--label", `${BENCH_LABEL}=1`];
  let a: PipeBox | undefined, v: PipeBox | undefined;
  try {
    await gate.run(async () => {
      a = new PipeBox(["run", "-i", "--rm", ...LIMITS, ...label, "-w", "/workdir", tag, "sh", "-c", AGENT]);
      v = new PipeBox(["run", "-i", "--rm", ...LIMITS, ...label, image, "sh", "-c", VERIFIER]);
      if (await a.line() !== "READY") throw new Error("bench: the agent box did not start");
    });
    if (!a || !v) throw new Error("unreachable");
    for (let i = 0; i < CALLS; i++) {
      await a.w.write(enc.encode(CALL + "\n"));
      while (!(await a.line()).startsWith("END ")) { /* the command's output */ }
    }
    await a.w.write(enc.encode("TAR\n"));
    const size = Number((await a.line()).replace("SIZE ", ""));
    const tar = await a.out.readExact(size);
    if (!tar) throw new Error("bench: the agent box ended in its tar");
    // tests/ then the working directory, one stream (`tar -i` reads past the first archive's end blocks).
    const payload = new Uint8Array(testsTar.length + tar.length);
    payload.set(testsTar), payload.set(tar, testsTar.length);
    await v.w.write(enc.encode(`${payload.length}\n`));
    await v.w.write(payload);
    const reward = Number((await v.line()).replace("REWARD ", ""));
    return reward;
  } finally {
    await Promise.all([a && closer.close(a), v && closer.close(v)]);
  }
}

const dir = await makeBenchTask(image, "hello\n".repeat(100), "pgs-pipe-");
const tag = `pgs-naive-bench:pipe-${Deno.pid}`;
try {
  await buildNaiveImage(image, `${dir}/environment/workdir`, "/workdir", tag);
  const testsTar = await tarOf(dir, "tests");
  console.log(
    `pipe boxes (run -i --rm, main process = server) vs pgs, ${CALLS}-call task, load ${Deno.loadavg()[0].toFixed(1)}:`,
  );
  for (const c of LEVELS) {
    const closes: number[] = [];
    let closeBusy = 0;
    const acc = { pipe: { wall: 0, each: [] as number[], n: 0 }, pgs: { wall: 0, each: [] as number[], n: 0 } };
    for (let r = 0; r < ROUNDS; r++) {
      const n = Math.max(2 * c, Math.ceil(N / ROUNDS));
      const closer = new Closer();
      const gate = new Gate(Math.min(c, 8));
      const p = await atOnce(c, n, async () => {
        const reward = await pipeEpisode(tag, testsTar, closer, gate);
        if (reward !== 1) throw new Error(`bench: a pipe episode scored ${reward}`);
      });
      acc.pipe.wall += p.wallMs, acc.pipe.each.push(...p.each), acc.pipe.n += n;
      closes.push(...closer.ms), closeBusy += closer.ms.reduce((x, y) => x + y, 0);
      const g = await pgsPoint(dir, CALLS, c, n);
      acc.pgs.wall += g.wallMs, acc.pgs.each.push(...g.trajectories.map((t) => t.timings.total_ms)), acc.pgs.n += n;
    }
    const line = (k: "pipe" | "pgs") =>
      `${k} ${f0(acc[k].n / acc[k].wall * 60_000)}/min, episode ${f0(median(acc[k].each))} ms`;
    console.log(
      `  ${String(c).padStart(2)} at once, ${acc.pipe.n} each: ${line("pipe")} | ${line("pgs")} | pipe/pgs wall ${
        (acc.pipe.wall / acc.pgs.wall).toFixed(2)
      }× (closes one at a time: ${f0(median(closes))} ms each, the queue ${f0(closeBusy / acc.pipe.wall * 100)}% busy)`,
    );
  }
} finally {
  const left = await leftovers().catch(() => [] as string[]);
  for (const id of left) await docker(["rm", "-f", "-v", id]).catch(() => {});
  await docker(["rmi", "-f", tag]).catch(() => {});
  await Deno.remove(dir, { recursive: true });
  console.log(`left behind: 0 (${left.length} removed at the end)`);
}
