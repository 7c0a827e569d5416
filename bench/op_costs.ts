/**
 * `deno task bench:levers` (cost part): what each engine operation an episode is made of costs this machine when the
 * engine is kept busy (OPS_AT_ONCE at once, 8 by default): ops per second, and the machine's milliseconds per op
 * (wall time over ops; with the machine saturated, what one more op of the kind takes from everything else). An
 * episode's sum over its ops is then the rate ceiling, and a lever's worth is the ops it removes. `docker rm` runs
 * one at a time (this engine's rule, moby/moby#46661). Prints; asserts nothing; removes every container it made.
 */
import { atOnce, BENCH_LABEL, docker, leftovers, LIMITS } from "./naive_loop.ts";
import { median } from "./pgs_runs.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const C = Number(Deno.env.get("OPS_AT_ONCE") ?? 8);
const N = Number(Deno.env.get("OPS_N") ?? 48);
const label = ["--label", `${BENCH_LABEL}=1`];
const f0 = (x: number) => x.toFixed(0);
const tar = await (async () => {
  // A 10 kB tar of one file, as a small working directory.
  const d = await Deno.makeTempDir();
  await Deno.writeTextFile(`${d}/notes.txt`, "hello\n".repeat(1700));
  const out = await new Deno.Command("tar", { args: ["-C", d, "-cf", "-", "notes.txt"], stdout: "piped" }).output();
  await Deno.remove(d, { recursive: true });
  return out.stdout;
})();

function report(name: string, r: { wallMs: number; each: number[] }, n: number): void {
  console.log(
    `  ${name.padEnd(44)} ${(n / r.wallMs * 1000).toFixed(1).padStart(5)}/s  ${
      f0(r.wallMs / n).padStart(4)
    } ms of machine per op  (median latency ${f0(median(r.each))} ms)`,
  );
}

console.log(`engine op costs, ${C} at once, ${N} ops each, load ${Deno.loadavg()[0].toFixed(1)}:`);
const boxes: string[] = [];
try {
  report(
    "docker version (the CLI alone)",
    await atOnce(C, N, () => docker(["version", "-f", "{{.Server.Version}}"])),
    N,
  );
  const run = await atOnce(C, N, async () => {
    boxes.push(await docker(["run", "-d", ...LIMITS, ...label, "-w", "/workdir", image, "sleep", "infinity"]));
  });
  report("docker run -d (idle box)", run, N);
  const ring = () => boxes[Math.floor(Math.random() * boxes.length)];
  report("docker exec box true", await atOnce(C, N, () => docker(["exec", ring(), "true"])), N);
  report("docker cp - box:/tmp (10 kB tar)", await atOnce(C, N, () => docker(["cp", "-", `${ring()}:/tmp`], tar)), N);
  report("docker cp box:/tmp - (out)", await atOnce(C, N, () => docker(["cp", `${ring()}:/tmp`, "-"])), N);
  // Piped through an exec session that is already open: what a copy through the channel costs.
  {
    const p = new Deno.Command("docker", {
      args: ["exec", "-i", boxes[0], "sh", "-c", "while read -r _; do tar -C /tmp -cf - . | wc -c; done"],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const w = p.stdin.getWriter();
    const r = p.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    const t0 = performance.now();
    const each: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      await w.write(new TextEncoder().encode("x\n"));
      while (!buf.includes("\n")) buf += (await r.read()).value ?? "";
      buf = buf.slice(buf.indexOf("\n") + 1);
      each.push(performance.now() - t);
    }
    await w.close();
    await p.status;
    report("tar of /tmp through an open exec session", { wallMs: performance.now() - t0, each }, N);
  }
  const rmRunning = await atOnce(1, N, async () => {
    await docker(["rm", "-f", "-v", boxes.pop()!]);
  });
  report("docker rm -f -v of a running box (serial)", rmRunning, N);
  const exited: string[] = [];
  await atOnce(C, N, async () => {
    exited.push(await docker(["run", "-d", ...LIMITS, ...label, image, "true"]));
  });
  await new Promise((r) => setTimeout(r, 1000));
  report(
    "docker rm -f -v of an exited box (serial)",
    await atOnce(1, N, () => docker(["rm", "-f", "-v", exited.pop()!])),
    N,
  );
  report(
    "docker run --rm of a no-op (run + removal)",
    await atOnce(C, N, () => docker(["run", "--rm", ...LIMITS, ...label, image, "true"])),
    N,
  );
} finally {
  const left = await leftovers().catch(() => [] as string[]);
  for (const id of left) await docker(["rm", "-f", "-v", id]).catch(() => {});
  console.log(`left behind: 0 (${left.length} removed at the end)`);
}
