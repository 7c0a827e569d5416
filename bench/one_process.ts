/**
 * `deno task bench:one`: one episode as one `pgs eval` process (its start, the image check, the episode, the record,
 * its exit) against the same episode as the naive loop's docker CLI steps, one at a time and interleaved, for a
 * one-call and a 25-call task (pi's bash tool, isolated verifier). Prints medians and ratios; asserts nothing; leaves
 * nothing behind. ONE_N (8 episodes each).
 */
import { makeBenchTask } from "./bench_task.ts";
import { BENCH_LABEL, buildNaiveImage, docker, leftovers, naiveEpisode, Remover } from "./naive_loop.ts";
import { CALL, median } from "./pgs_runs.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const N = Number(Deno.env.get("ONE_N") ?? 8);
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const f0 = (x: number) => x.toFixed(0);

/** One `pgs eval` process of the task under a script of `calls` bash calls; its wall time in ms. */
async function pgsProcess(dir: string, turnsFile: string, out: string): Promise<number> {
  const t = performance.now();
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "eval",
      "--tasks",
      dir,
      "--policy",
      `script:${turnsFile}`,
      "--profile",
      "pi",
      "--out",
      out,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t;
  if (r.code !== 0) throw new Error(`bench: pgs eval failed: ${new TextDecoder().decode(r.stderr)}`);
  const traj = JSON.parse((await Deno.readTextFile(`${out}/trajectories.jsonl`)).trim());
  if (traj.reward !== 1) throw new Error(`bench: pgs episode scored ${traj.reward}`);
  await Deno.remove(out, { recursive: true });
  return ms;
}

const dir = await makeBenchTask(image, "hello\n".repeat(100), "pgs-one-");
const tag = `pgs-naive-bench:one-${Deno.pid}`;
const tmp = await Deno.makeTempDir({ prefix: "pgs-one-" });
const remover = new Remover(false); // one at a time on this engine, as pgs removes here
try {
  await buildNaiveImage(image, `${dir}/environment/workdir`, "/workdir", tag);
  console.log(`one episode as one process, ${N} each, interleaved, load ${Deno.loadavg()[0].toFixed(1)}:`);
  for (const calls of [1, 25]) {
    const turns = [
      ...Array.from({ length: calls }, () => ({ tool_calls: [{ name: "bash", arguments: { command: CALL } }] })),
      { content: "Done." },
    ];
    const turnsFile = `${tmp}/turns-${calls}.json`;
    await Deno.writeTextFile(turnsFile, JSON.stringify(turns));
    const task = { image: tag, workdir: "/workdir", testsDir: `${dir}/tests`, commands: Array(calls).fill(CALL) };
    const naive: number[] = [], pgs: number[] = [];
    await pgsProcess(dir, turnsFile, `${tmp}/warmup`); // the pgs-work image is made once, as any first run makes it
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      if (await naiveEpisode(task, image, remover) !== 1) throw new Error("bench: a naive episode failed");
      naive.push(performance.now() - t);
      pgs.push(await pgsProcess(dir, turnsFile, `${tmp}/out-${i}`));
    }
    const [n, p] = [median(naive), median(pgs)];
    console.log(
      `  ${String(calls).padStart(2)}-call: naive ${f0(n)} ms | pgs eval process ${f0(p)} ms | pgs/naive ${
        (p / n).toFixed(2)
      }×`,
    );
  }
} finally {
  const left = await leftovers().catch(() => [] as string[]);
  for (const id of left) await docker(["rm", "-f", "-v", id]).catch(() => {});
  await docker(["rmi", "-f", tag]).catch(() => {});
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(tmp, { recursive: true });
  console.log(`left behind: 0 (${left.length} removed at the end; label ${BENCH_LABEL})`);
}
