/**
 * lib/cluster/slurm.ts on a real two-node Slurm cluster (`eval "$(bash scripts/slurm_cluster.sh start)"`: nodes n1, n2):
 * an allocation pgs asks for, one long-lived step per node, stopping a step, releasing; a job pgs runs inside
 * (`attach`) is never cancelled; a request that cannot be granted in time is cancelled; `stopAllSync` ends everything.
 * Without Slurm these tests are ignored with the reason in their names (tests/slurm_helpers.ts).
 */
import assert from "node:assert/strict";
import { SlurmAllocation, type SlurmStep, stopAllSync } from "../lib/cluster/slurm.ts";
import { processGone, slurmTest, squeueJob, squeueSteps, waitFor } from "./slurm_helpers.ts";

const SLURM_MODULE = new URL("../lib/cluster/slurm.ts", import.meta.url).href;
/** A step that says it is ready with its node and pid, then waits. */
const READY_ARGV = ["bash", "-c", 'echo "ready $SLURMD_NODENAME $$"; exec sleep 300'];

/** Starts READY_ARGV on every node of `a`; returns the steps with the pid each printed. */
async function readySteps(a: SlurmAllocation, nodes: string[]): Promise<{ step: SlurmStep; pid: number }[]> {
  const steps = nodes.map((n) => a.startStep(n, READY_ARGV));
  const lines = await Promise.all(steps.map((s) => s.readyLine("ready ", 30_000)));
  return steps.map((step, i) => {
    const [, node, pid] = lines[i].split(" ");
    assert.equal(node, step.node, `the step on ${step.node} ran there: ${lines[i]}`);
    return { step, pid: Number(pid) };
  });
}

slurmTest("slurm: a two-node allocation runs a step per node, stops one, and is released", async () => {
  const a = await SlurmAllocation.request({ nodes: 2, time: "10", waitMs: 60_000 });
  try {
    assert.equal(a.owned, true);
    assert.deepEqual(await a.nodes(), ["n1", "n2"]);
    assert.deepEqual(await a.aliveNodes(), ["n1", "n2"]);
    const [one, two] = await readySteps(a, ["n1", "n2"]);
    const ids = await Promise.all([one.step.waitStepId(), two.step.waitStepId()]);
    assert.deepEqual(ids.map((id) => id.split(".")[0]), [a.jobId, a.jobId]);
    const listed = (await a.listSteps()).filter((s) => ids.includes(s.stepId)).map((s) => `${s.stepId} ${s.nodes}`);
    assert.deepEqual(listed.sort(), [`${ids[0]} n1`, `${ids[1]} n2`].sort());

    const exit = await one.step.stop(5_000);
    assert.equal(exit.code, 128 + 15, `srun reports the task's SIGTERM: ${JSON.stringify(exit)}`);
    await waitFor(`the task of ${ids[0]} to end`, () => processGone(one.pid), 5_000);
    await waitFor(`squeue -s to drop ${ids[0]}`, async () => !(await squeueSteps(a.jobId)).includes(`${ids[0]} n1`));
    assert.ok(!processGone(two.pid), "the other node's step still runs");
    assert.ok((await squeueSteps(a.jobId)).includes(`${ids[1]} n2`));
    assert.deepEqual(a.steps, [two.step]);

    await a.release();
    assert.ok(two.step.exit, "release stopped the other step");
    await a.release(); // idempotent
    await waitFor(`squeue -j ${a.jobId} to show nothing`, async () => (await squeueJob(a.jobId)).length === 0);
    assert.ok(processGone(two.pid));
    assert.throws(() => a.startStep("n1", READY_ARGV), /was released/);
  } finally {
    await a.release(1_000);
  }
});

slurmTest(
  "slurm: attach() inside a job sees its nodes, runs steps, and its release() leaves the job running",
  async () => {
    const outer = await SlurmAllocation.request({ nodes: 2, time: "10", waitMs: 60_000 });
    try {
      // A pgs inside the job: a deno child run as a step on n1, so SLURM_JOB_ID is Slurm's own.
      const script = `
      import { SlurmAllocation } from ${JSON.stringify(SLURM_MODULE)};
      const a = SlurmAllocation.attach();
      const nodes = await a.nodes();
      const step = a.startStep("n2", ["bash", "-c", 'echo "ready $SLURMD_NODENAME"; exec sleep 300']);
      const ready = await step.readyLine("ready ", 30_000);
      const stepId = await step.waitStepId();
      await a.release(2_000);
      console.log(JSON.stringify({ jobId: a.jobId, owned: a.owned, nodes, ready, stepId, exited: step.exit !== undefined }));
    `;
      const inner = outer.startStep("n1", [Deno.execPath(), "eval", "--no-check", script]);
      const line = await inner.readyLine("{", 60_000).catch((e) => {
        throw new Error(`${e.message}; stderr: ${inner.stderrTail(10)}`);
      });
      const got = JSON.parse(line);
      assert.equal(got.jobId, outer.jobId);
      assert.equal(got.owned, false);
      assert.deepEqual(got.nodes, ["n1", "n2"]);
      assert.equal(got.ready, "ready n2");
      assert.equal(got.exited, true);
      assert.equal((await inner.exited).code, 0, inner.stderrTail(10));
      assert.deepEqual(await squeueJob(outer.jobId), [`${outer.jobId} R`], "the job pgs ran inside still runs");
      await waitFor(
        `squeue -s to drop ${got.stepId}`,
        async () => !(await squeueSteps(outer.jobId)).includes(`${got.stepId} n2`),
      );

      // The same from this process: attach(J) with the job id given.
      const attached = SlurmAllocation.attach(outer.jobId);
      assert.deepEqual(await attached.aliveNodes(), ["n1", "n2"]);
      await attached.release();
      assert.deepEqual(await squeueJob(outer.jobId), [`${outer.jobId} R`]);

      // While this job holds both nodes, another two-node request cannot be granted: the wait is bounded, the job cancelled.
      const err = await SlurmAllocation.request({ nodes: 2, waitMs: 2_000 }).catch((e) => e as Error);
      assert.ok(err instanceof Error);
      const m =
        /^salloc -N 2 --no-kill --no-shell --job-name=pgs: not granted within 2 s \(job (\d+)( pending: \w+;)? cancelled\)$/
          .exec(err.message);
      assert.ok(m, err.message);
      await waitFor(`squeue -j ${m[1]} to show nothing`, async () => (await squeueJob(m[1])).length === 0);
      // More nodes than the partition has: Slurm keeps the job pending (PartitionConfig), pgs gives up at once.
      const t0 = performance.now();
      const never = await SlurmAllocation.request({ nodes: 3, waitMs: 60_000 }).catch((e) => e as Error);
      assert.match(String(never), /cannot be granted as asked \(job (\d+) pending: PartitionConfig; cancelled\)$/);
      assert.ok(performance.now() - t0 < 15_000);
    } finally {
      await outer.release(1_000);
    }
    await waitFor(`squeue -j ${outer.jobId} to show nothing`, async () => (await squeueJob(outer.jobId)).length === 0);
  },
);

slurmTest("slurm: stopAllSync ends every step and releases the allocation, synchronously", async () => {
  const a = await SlurmAllocation.request({ nodes: 2, time: "10", waitMs: 60_000 });
  try {
    const steps = await readySteps(a, ["n1", "n2"]);
    await Promise.all(steps.map((s) => s.step.waitStepId()));
    const t0 = performance.now();
    stopAllSync(500);
    assert.ok(performance.now() - t0 < 15_000);
    assert.ok(a.released);
    await Promise.all(steps.map((s) => s.step.exited));
    await waitFor("both tasks to end", () => steps.every((s) => processGone(s.pid)), 10_000);
    await waitFor(`squeue -j ${a.jobId} to show nothing`, async () => (await squeueJob(a.jobId)).length === 0);
  } finally {
    await a.release(1_000);
  }
});

slurmTest("slurm: a step that cannot start or never gets ready fails in one line with Slurm's last words", async () => {
  const a = await SlurmAllocation.request({ nodes: 1, time: "10", waitMs: 60_000 });
  try {
    const [node] = await a.nodes();
    const missing = a.startStep(node, ["/nonexistent/pgs-worker"]);
    const err = await missing.readyLine("ready ", 30_000).then(() => new Error("ready?"), (e) => e as Error);
    assert.match(
      err.message,
      new RegExp(
        `^srun -w ${node}: exited \\(code \\d+\\) before printing its line starting "ready ": .*/nonexistent/pgs-worker`,
      ),
    );
    assert.ok(!err.message.includes("\n"), err.message);
    assert.ok(!err.message.includes("launching"), `srun's progress lines are left out: ${err.message}`);

    const elsewhere = a.startStep("pgs-no-such-node", READY_ARGV);
    await assert.rejects(
      elsewhere.waitStepId(30_000),
      /^SlurmError: srun -w pgs-no-such-node: exited \(code 1\) before printing its step id: srun: error: .+$/m,
    );

    const quiet = a.startStep(node, ["bash", "-c", "echo not yet >&2; exec sleep 300"]);
    await assert.rejects(quiet.readyLine("ready ", 1_500), /no line starting "ready " within 1.5 s: not yet$/);
    await quiet.stop(1_000);
    assert.deepEqual(a.steps, []);
  } finally {
    await a.release(1_000);
  }
});
