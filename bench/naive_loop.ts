/**
 * The baselines pgs is measured against: an episode as a user would script it with the docker CLI (argv arrays, no
 * pgs code), and the engine's own container rate (`docker run --rm` of a no-op). Benches only.
 */

/** The limits pgs gives a task that names none (task.toml defaults), as flags a script would pass. */
export const LIMITS = [
  "--init",
  "--cpus=1",
  "--memory=2048m",
  "--memory-swap=2048m",
  "--pids-limit=512",
  "--network",
  "none",
];
/** The label every container of the bench carries, so that the end of the run can check none is left. */
export const BENCH_LABEL = "pgs-naive-bench";

const BOUND_MS = 120_000;

/** Runs `docker ...args` (killed after 120 s); throws on a non-zero exit; returns stdout. */
export async function docker(args: string[], stdin?: Uint8Array): Promise<string> {
  const p = new Deno.Command("docker", {
    args,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => p.kill("SIGKILL"), BOUND_MS);
  try {
    if (stdin) {
      const w = p.stdin.getWriter();
      await w.write(stdin);
      await w.close();
    }
    const out = await p.output();
    if (out.code !== 0) {
      throw new Error(`docker ${args[0]}: ${new TextDecoder().decode(out.stderr).trim() || `exit ${out.code}`}`);
    }
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Removals, one `docker rm` at a time (as pgs does on this engine, see docs/eval.md, "A sick engine"), or all at once when
 * `parallel`. A script on dockerd 20.10 before 20.10.27 that removed in parallel could wedge the engine other work
 * shares (moby/moby#46661).
 */
export class Remover {
  #tail: Promise<unknown> = Promise.resolve();
  /** Milliseconds removals waited for their turn, and spent in `docker rm`. */
  readonly waitMs: number[] = [];
  readonly rmMs: number[] = [];
  constructor(readonly parallel: boolean) {}

  /** Removes container `id` (force, with its volumes). */
  remove(id: string): Promise<void> {
    const asked = performance.now();
    const rm = async () => {
      const t = performance.now();
      this.waitMs.push(t - asked);
      await docker(["rm", "-f", "-v", id]).catch(() => {});
      this.rmMs.push(performance.now() - t);
    };
    if (this.parallel) return rm();
    const p = this.#tail.then(rm);
    this.#tail = p;
    return p;
  }
}

/** What the naive loop needs of a task: the image with its working directory in, and the host's tests/ folder. */
export interface NaiveTask {
  /** An image holding the starting working directory (built once, as a script's setup would). */
  image: string;
  /** The working directory in the image. */
  workdir: string;
  /** The task's tests/ folder on the host. */
  testsDir: string;
  /** The agent's commands, one `docker exec` each. */
  commands: string[];
}

/** Builds `FROM base` with `workdirDir` copied to `workdir`, tagged `tag` (the script's one-time setup). */
export async function buildNaiveImage(base: string, workdirDir: string, workdir: string, tag: string): Promise<void> {
  const ctx = await Deno.makeTempDir({ prefix: "pgs-naive-ctx-" });
  try {
    await Deno.mkdir(`${ctx}/wd`);
    for await (const e of Deno.readDir(workdirDir)) {
      await Deno.copyFile(`${workdirDir}/${e.name}`, `${ctx}/wd/${e.name}`);
    }
    await Deno.writeTextFile(`${ctx}/Dockerfile`, `FROM ${base}\nCOPY wd/ ${workdir}/\nWORKDIR ${workdir}\n`);
    await docker(["build", "-q", "--force-rm", "-t", tag, ctx]);
  } finally {
    await Deno.remove(ctx, { recursive: true });
  }
}

/**
 * One episode as a script would run it: `docker run -d` of the task image with the limits, a `docker exec` per
 * command, `docker cp` of the working directory out to the host and into a second `docker run` (the pristine image),
 * tests/ copied in, test.sh run there, both removed. Returns the reward test.sh wrote.
 */
export async function naiveEpisode(t: NaiveTask, baseImage: string, remover: Remover): Promise<number> {
  const tmp = await Deno.makeTempDir({ prefix: "pgs-naive-ep-" });
  const label = ["--label", `${BENCH_LABEL}=1`];
  let agent = "", verifier = "";
  try {
    agent = await docker(["run", "-d", ...LIMITS, ...label, "-w", t.workdir, t.image, "sleep", "infinity"]);
    for (const c of t.commands) await docker(["exec", "-w", t.workdir, agent, "sh", "-c", c]);
    await docker(["cp", `${agent}:${t.workdir}`, `${tmp}/wd`]);
    verifier = await docker(["run", "-d", ...LIMITS, ...label, baseImage, "sleep", "infinity"]);
    await docker(["cp", `${tmp}/wd/.`, `${verifier}:${t.workdir}`]);
    await docker(["cp", t.testsDir, `${verifier}:/tests`]);
    const out = await docker([
      "exec",
      "-w",
      t.workdir,
      verifier,
      "sh",
      "-c",
      "mkdir -p /logs/verifier && bash /tests/test.sh >/dev/null 2>&1; cat /logs/verifier/reward.txt",
    ]);
    return Number(out);
  } finally {
    await Promise.all([agent && remover.remove(agent), verifier && remover.remove(verifier)]);
    await Deno.remove(tmp, { recursive: true });
  }
}

/** The engine's own rate: `docker run --rm` of a no-op with the same limits. */
export async function noopContainer(image: string): Promise<void> {
  await docker(["run", "--rm", ...LIMITS, "--label", `${BENCH_LABEL}=1`, image, "true"]);
}

/** Runs `job` `n` times with `c` at once; returns the wall time in ms and each job's duration. */
export async function atOnce(
  c: number,
  n: number,
  job: (i: number) => Promise<unknown>,
): Promise<{ wallMs: number; each: number[] }> {
  const each: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(c, n) }, async () => {
    while (next < n) {
      const i = next++;
      const t = performance.now();
      await job(i);
      each.push(performance.now() - t);
    }
  }));
  return { wallMs: performance.now() - t0, each };
}

/** Ids of bench-labelled containers still on the engine. */
export async function leftovers(): Promise<string[]> {
  return (await docker(["ps", "-aq", "--filter", `label=${BENCH_LABEL}=1`])).split("\n").filter(Boolean);
}

export { hasRemovalDeadlock } from "../lib/runtime/docker/removal_deadlock.ts";
