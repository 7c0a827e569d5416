/**
 * `pgs eval --slurm` on a real two-node Slurm cluster (`eval "$(bash scripts/slurm_cluster.sh start)"`: n1, n2) and a
 * Docker engine every node shares: episodes spread over both nodes, each scored once, the allocation released and no
 * box left; a node's slurmd killed mid-run and a worker's step cancelled mid-run lose only their in-flight episodes,
 * recorded as infrastructure errors (never the policy's score) and run again on the node left.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { latestById, readTrajectories, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { slurmCall } from "../lib/cluster/slurm.ts";
import { pgsEval, spawnEval } from "./eval_helpers.ts";
import { slurmTest, squeueJob, squeueSteps, waitFor } from "./slurm_helpers.ts";

const STATE = Deno.env.get("PGS_SLURM_STATE") ?? "/var/lib/pgs-slurm";

/** A task whose oracle waits `sec` seconds before solving it, so episodes are in flight for a while. */
async function slowTask(dir: string, sec: number): Promise<string> {
  const t = join(dir, "slow-task");
  const files: Record<string, string> = {
    "task.toml": `[task]\nname = "slurm/slow"\n\n[environment]\ndocker_image = "pgs-base:1"\nworkdir = "/workdir"\n\n` +
      `[agent]\ntimeout_sec = 300\n`,
    "instruction.md": "Write done.txt.\n",
    "solution/solve.sh": `#!/bin/bash\nsleep ${sec}\necho done > /workdir/done.txt\n`,
    "tests/test.sh": "#!/bin/bash\nmkdir -p /logs/verifier\nr=0\n[ -f /workdir/done.txt ] && r=1\n" +
      "echo $r > /logs/verifier/reward.txt\n",
  };
  for (const [f, text] of Object.entries(files)) {
    await Deno.mkdir(join(t, f, ".."), { recursive: true });
    await Deno.writeTextFile(join(t, f), text);
  }
  await Deno.chmod(join(t, "solution/solve.sh"), 0o755);
  await Deno.chmod(join(t, "tests/test.sh"), 0o755);
  return t;
}

/** The job id the run's stderr names ("... of Slurm job J: ..."). */
function jobOf(stderr: string): string | undefined {
  return /of Slurm job (\d+)/.exec(stderr)?.[1];
}

/** Asserts every (row, sample) of `k` samples was scored once by the latest record, never after an infra error of its own. */
function scoredOnce(ts: Trajectory[], k: number): Trajectory[] {
  const latest = latestById(ts);
  assert.equal(latest.length, k, `${k} ids: ${latest.map((t) => t.id)}`);
  for (const t of latest) assert.equal(t.reward, 1, `${t.id} scored: ${JSON.stringify(t.error)}`);
  const scored = ts.filter((t) => t.reward !== null);
  assert.equal(scored.length, k, "no episode scored twice");
  return ts.filter((t) => t.exit_status === "infra_error");
}

/** No box of the slow task is left on the shared engine. */
async function noBoxes(): Promise<void> {
  await waitFor("no pgs box left on the engine", async () => {
    const r = await new Deno.Command("docker", {
      args: ["ps", "-a", "-q", "--filter", "label=pgs.task=slurm/slow"],
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(r.stdout).trim() === "";
  }, 60_000);
}

slurmTest("slurm eval: --slurm --nodes 2 scores every episode once, on both nodes, and releases the job", async () => {
  const out = await Deno.makeTempDir({ prefix: "pgs-slurm-eval-" });
  try {
    const r = await pgsEval([
      "--slurm",
      "--nodes",
      "2",
      "--time",
      "10",
      "--policy",
      "oracle",
      "--tasks",
      "examples/tasks/count-error-lines",
      "-k",
      "4",
      "--max-concurrent",
      "2",
      "--out",
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const ts = readTrajectories(join(out, "trajectories.jsonl"));
    assert.deepEqual(scoredOnce(ts, 4), []);
    assert.deepEqual([...new Set(ts.map((t) => t.node))].sort(), ["n1", "n2"]);
    const job = jobOf(r.stderr);
    assert.ok(job, r.stderr);
    await waitFor(`job ${job} gone`, async () => (await squeueJob(job)).length === 0);
    assert.doesNotMatch(r.stderr, /lost/);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

/** Runs a slow eval over both nodes, `fault(job)` once n2 holds episodes; returns its trajectories and stderr. */
async function faultRun(fault: (job: string) => Promise<void>): Promise<{ ts: Trajectory[]; stderr: string }> {
  const dir = await Deno.makeTempDir({ prefix: "pgs-slurm-fault-" });
  const out = join(dir, "out");
  try {
    const task = await slowTask(dir, 45);
    const child = spawnEval([
      "--slurm",
      "--nodes",
      "2",
      "--time",
      "10",
      "--policy",
      "oracle",
      "--tasks",
      task,
      "-k",
      "4",
      "--max-concurrent",
      "2",
      "--no-diff",
      "--out",
      out,
    ]);
    let stderr = "";
    const reading = (async () => {
      for await (const c of child.stderr.pipeThrough(new TextDecoderStream())) stderr += c;
    })();
    await waitFor("the workers to start", () => jobOf(stderr) !== undefined, 120_000);
    const job = jobOf(stderr)!;
    await new Promise((r) => setTimeout(r, 8_000)); // episodes in flight on both nodes
    await fault(job);
    const status = await child.status;
    await reading;
    assert.equal(status.code, 0, stderr);
    await waitFor(`job ${job} gone`, async () => (await squeueJob(job)).length === 0, 60_000);
    return { ts: readTrajectories(join(out, "trajectories.jsonl")), stderr };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The lost episodes are infra errors of stage node on n2, each then scored on n1. */
function checkLost(ts: Trajectory[], stderr: string): void {
  const lost = scoredOnce(ts, 4);
  assert.equal(lost.length, 2, `the two episodes n2 held: ${stderr}`);
  for (const t of lost) {
    assert.equal(t.infra_stage, "node");
    assert.equal(t.node, "n2");
    const later = ts.filter((x) => x.id === t.id);
    assert.equal(later[later.length - 1].node, "n1", "re-run on the node left");
  }
  assert.match(stderr, /node n2 lost \(.*\): 2 episode\(s\) re-queued; 1 node left/);
}

/**
 * Processes of job `job`'s steps still on this host: a worker whose node's slurmd died outlives its written-off step
 * (slurmstepd survives the slurmd), until something ends it.
 */
function stepOrphans(job: string, only?: string): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const env = Deno.readTextFileSync(`/proc/${e.name}/environ`).split("\0");
      if (!env.includes(`SLURM_JOB_ID=${job}`) || !env.some((v) => v.startsWith("SLURM_STEP_ID="))) continue;
      if (!only || Deno.readTextFileSync(`/proc/${e.name}/cmdline`).split("\0").includes(only)) pids.push(+e.name);
    } catch { /* gone, or not ours to read */ }
  }
  return pids;
}

slurmTest("slurm eval: a node's slurmd killed mid-run loses nothing; its episodes run again on n1", async () => {
  const pidFile = join(STATE, "run", "slurmd-n2.pid");
  let job: string | undefined;
  try {
    const { ts, stderr } = await faultRun(async (j) => {
      job = j;
      const pid = Number((await Deno.readTextFile(pidFile)).trim());
      Deno.kill(pid, "SIGKILL");
    });
    checkLost(ts, stderr);
    // Its step is gone but the worker still answered: the runner asked it to stop (POST /v1/stop).
    await waitFor("the written-off worker on n2 to end", () => stepOrphans(job!, "worker").length === 0, 30_000);
  } finally {
    // The orphaned worker on n2 (still answering, written off) is ended as Slurm would once n2 is back: SIGTERM, so
    // it removes its boxes (a safety net: the runner's stop request should have ended it).
    for (const pid of job ? stepOrphans(job) : []) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch { /* gone */ }
    }
    await slurmCall("slurmd", ["-N", "n2"], { anyCode: true, timeoutMs: 20_000 });
    await waitFor("n2 back", async () => {
      const r = await slurmCall("sinfo", ["-N", "-h", "-n", "n2", "-o", "%t"], { anyCode: true });
      return r.stdout.trim() === "idle";
    }, 60_000);
  }
  await noBoxes();
});

slurmTest("slurm eval: scancel of a worker's step mid-run loses nothing; its episodes run again on n1", async () => {
  const { ts, stderr } = await faultRun(async (job) => {
    const step = (await squeueSteps(job)).find((l) => l.endsWith(" n2"))?.split(" ")[0];
    assert.ok(step, "n2's worker step is listed");
    await slurmCall("scancel", [step]);
  });
  checkLost(ts, stderr);
  await noBoxes();
});

slurmTest("slurm eval: SIGTERM mid-run ends every worker, releases the job and leaves no box", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs-slurm-term-" });
  try {
    const task = await slowTask(dir, 45);
    const child = spawnEval(
      ["--slurm", "--nodes", "2", "--time", "10", "--policy", "oracle", "--tasks", task, "-k", "2"].concat(
        ["--no-diff", "--out", join(dir, "out")],
      ),
    );
    let stderr = "";
    const reading = (async () => {
      for await (const c of child.stderr.pipeThrough(new TextDecoderStream())) stderr += c;
    })();
    await waitFor("the workers to start", () => jobOf(stderr) !== undefined, 120_000);
    const job = jobOf(stderr)!;
    await new Promise((r) => setTimeout(r, 5_000)); // boxes up on both nodes
    child.kill("SIGTERM");
    const status = await child.status;
    await reading;
    assert.equal(status.code, 143, stderr);
    await waitFor(`job ${job} gone`, async () => (await squeueJob(job)).length === 0, 30_000);
    assert.deepEqual(stepOrphans(job, "worker"), [], "no worker left");
    await noBoxes();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
