/**
 * `pgs harbor check --slurm`: the check's episodes on the workers of a Slurm allocation. Without Slurm: the settings
 * the workers get (Harbor's oracle and the nop, as a local check runs them) and the split of the two runs over fake workers. On a real
 * two-node cluster (`eval "$(bash scripts/slurm_cluster.sh start)"`): every example task valid, as the local check
 * says, and the job released.
 */
import assert from "node:assert/strict";
import { isAbsolute } from "node:path";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import type { DispatchWorker } from "../lib/cluster/dispatch.ts";
import type { EpisodeRequest } from "../lib/cluster/worker_protocol.ts";
import { requestProblem } from "../lib/cluster/worker_protocol.ts";
import { checkSettings, runCheckOnWorkers } from "../lib/cluster/check_jobs.ts";
import type { CheckJob } from "../lib/harbor/check.ts";
import { pgs } from "./eval_helpers.ts";
import { slurmTest, squeueJob } from "./slurm_helpers.ts";

Deno.test("harbor check --slurm: the oracle and the nop go to the workers as settings every worker takes", () => {
  const oracle = checkSettings("oracle", { verifierMode: "isolated" });
  const nop = checkSettings("nop", {});
  assert.deepEqual(oracle.policy, { kind: "harbor-oracle" });
  assert.equal(oracle.verifierMode, "isolated");
  assert.deepEqual(nop.policy, { kind: "nop" });
  for (const s of [oracle, nop]) assert.ok(Number.isFinite(s.maxTurns), "a turn limit JSON can carry");
  for (const settings of [oracle, nop]) {
    assert.equal(requestProblem({ settings, row: { task_dir: "/t" }, rowId: "r", sample: 0 }), undefined);
  }
});

Deno.test("harbor check --slurm: usage errors name the flag", async () => {
  for (
    const [args, re] of [
      [["--nodes", "2"], /--nodes goes with --slurm/],
      [["--slurm", "--nodes", "0"], /--nodes must be a positive integer/],
      [["--slurm", "--time", "1; rm"], /--time must be a name/],
    ] as const
  ) {
    const r = await pgs(["harbor", "check", "examples/tasks", ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, re);
  }
});

/** A fake worker: records what it was sent, answers a trajectory of the episode's id at once. */
function fakeWorker(node: string, capacity: number, sent: EpisodeRequest[], peak: { n: number; max: number }) {
  const w: DispatchWorker = {
    node,
    capacity,
    async runEpisode(req) {
      sent.push(req);
      peak.n++;
      peak.max = Math.max(peak.max, peak.n);
      await new Promise((r) => setTimeout(r, 5));
      peak.n--;
      return { id: `${req.rowId}#${req.sample}`, task_dir: req.row.task_dir, reward: 1 } as unknown as Trajectory;
    },
  };
  return w;
}

Deno.test("harbor check --slurm: oracles and nops as two runs over the same workers, within their capacity", async () => {
  const sent: EpisodeRequest[] = [];
  const peak = { n: 0, max: 0 };
  const workers = [fakeWorker("n1", 2, sent, peak), fakeWorker("n2", 2, sent, peak)];
  const jobs: CheckJob[] = [];
  for (const t of ["a", "b", "c"]) {
    jobs.push({ row: { task_dir: `tasks/${t}` }, rowId: t, sample: 0, agent: "oracle" });
    jobs.push({ row: { task_dir: `tasks/${t}` }, rowId: t, sample: 1, agent: "nop" });
  }
  const got: Trajectory[] = [];
  await runCheckOnWorkers(workers, jobs, (t) => got.push(t));
  assert.equal(got.length, 6);
  assert.deepEqual(new Set(got.map((t) => t.node)), new Set(["n1", "n2"]));
  assert.ok(peak.max <= 4, `at most the workers' capacity at once, got ${peak.max}`);
  for (const req of sent) {
    assert.ok(isAbsolute(req.row.task_dir), req.row.task_dir);
    assert.equal(req.settings.policy.kind, req.sample === 0 ? "harbor-oracle" : "nop");
  }
});

slurmTest("slurm check: --slurm --nodes 2 finds every example task valid, as the local check does", async () => {
  const local = await pgs(["harbor", "check", "examples/tasks", "--json"]);
  const r = await pgs(["harbor", "check", "--slurm", "--nodes", "2", "--time", "10", "examples/tasks", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /over 2 node\(s\) of Slurm job \d+/);
  // The verdict, and what each agent did: Harbor's oracle reports solve.sh's exit code, the nop its stop rule.
  type Row = { name: string; valid: boolean; oracle_exit_code: number | null; nop_exit_status: string | null };
  const verdicts = (out: string) =>
    Object.fromEntries(
      (JSON.parse(out) as Row[]).map((x) => [x.name, [x.valid, x.oracle_exit_code, x.nop_exit_status]]),
    );
  const slurm = verdicts(r.stdout);
  assert.equal(Object.keys(slurm).length, 4);
  assert.ok(Object.values(slurm).every(([valid, code]) => valid && code === 0), JSON.stringify(slurm));
  assert.deepEqual(slurm, verdicts(local.stdout));
  const job = /of Slurm job (\d+)/.exec(r.stderr)![1];
  assert.deepEqual(await squeueJob(job), [], "the job pgs asked for is released");
});
