/**
 * Shared helpers of the tests that drive a real Slurm cluster (`scripts/slurm_cluster.sh start` makes one: n1, n2 on
 * 127.0.0.1). Whether Slurm answers is probed once, when this module loads (`slurmAvailable`); without it the Slurm
 * tests are ignored with the reason in their names (never passed), unless `PGS_SLURM_REQUIRED=1`, where they run and
 * fail with it. They are registered in the `ci` tier only (`tests/tier.ts`).
 */
import { slurmAvailable, slurmCall } from "../lib/cluster/slurm.ts";
import { ciTest, TIER } from "./tier.ts";

/** Why the Slurm tests cannot run here, or undefined when a controller answers. */
export const slurmAbsent: string | undefined = TIER === "ci"
  ? await slurmAvailable()
  : "the unit tier runs without Slurm";
const required = Deno.env.get("PGS_SLURM_REQUIRED") === "1";
const ignored = slurmAbsent !== undefined && !required;
if (ignored && TIER === "ci") {
  console.error(
    `note: Slurm tests ignored: ${slurmAbsent}; start a cluster: eval "$(bash scripts/slurm_cluster.sh start)"`,
  );
}

/**
 * The lock every Slurm test holds while it runs, across the suite's parallel test processes: the test cluster's nodes
 * take one job each, and some tests kill a node's slurmd, so two of them at once would wait on or break each other.
 */
const SLURM_LOCK = `${Deno.env.get("TMPDIR") ?? "/tmp"}/pgs-slurm-tests.lock`;

/** Runs `fn` holding `SLURM_LOCK` (an exclusive flock, released when the file closes, even if the process dies). */
async function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const file = await Deno.open(SLURM_LOCK, { create: true, write: true });
  try {
    await file.lock(true);
    return await fn();
  } finally {
    file.close();
  }
}

/**
 * `Deno.test` for a test that needs a Slurm cluster (`ci` tier): one at a time across the suite, and ignored, the
 * reason in its name, when there is none.
 */
export function slurmTest(name: string, fn: (t: Deno.TestContext) => Promise<void>): void {
  ciTest({
    name: ignored ? `${name} (skipped: ${slurmAbsent})` : name,
    ignore: ignored,
    fn: async (t) => {
      if (slurmAbsent !== undefined) throw new Error(`${slurmAbsent} (PGS_SLURM_REQUIRED=1 requires Slurm)`);
      await oneAtATime(() => fn(t));
    },
  });
}

/** Waits until `cond()` holds, polling every 200 ms; throws naming `what` after `ms`. */
export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** True when process `pid` is gone from this host, or only a zombie waiting to be reaped. */
export function processGone(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** The lines `squeue -j J -h -o '%i %t'` prints now (none once the job has ended; an unknown job prints none). */
export async function squeueJob(jobId: string): Promise<string[]> {
  const r = await slurmCall("squeue", ["-j", jobId, "-h", "-o", "%i %t"], { anyCode: true, timeoutMs: 10_000 });
  if (r.code !== 0 && !/Invalid job id/.test(r.stderr)) throw new Error(`squeue -j ${jobId}: ${r.stderr.trim()}`);
  return r.stdout.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** The job's steps `squeue -s -j J` lists now, as "J.S NODES" lines (none for an unknown job). */
export async function squeueSteps(jobId: string): Promise<string[]> {
  const r = await slurmCall("squeue", ["-s", "-j", jobId, "-h", "-o", "%i %N"], { anyCode: true, timeoutMs: 10_000 });
  return r.stdout.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}
