/**
 * `pgs harbor audit --slurm`: the audit's episodes on the workers of a Slurm allocation, each carrying its own policy.
 * Without Slurm: what the workers are sent, over fake workers, for every mode. On a real two-node cluster
 * (`eval "$(bash scripts/slurm_cluster.sh start)"`): the fixtures' verdicts and passing exploits are those of the local
 * audit (tests/audit_test.ts) with a worker on each node, and the job is released.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { type Trajectory, trajectoryId } from "../lib/eval/records/trajectory.ts";
import { type EpisodeRequest, requestProblem } from "../lib/cluster/worker_protocol.ts";
import { auditTasks } from "../lib/harbor/audit/audit.ts";
import { pgs } from "./eval_helpers.ts";
import { slurmTest, squeueJob } from "./slurm_helpers.ts";

const ROOT = path.resolve(import.meta.dirname!, "..");
const fixture = (name: string) => path.join(ROOT, "tests", "fixtures", "audit", name);

Deno.test("harbor audit --slurm: every episode goes with its own policy (oracle, nop, each exploit's script)", async () => {
  const sent: { req: EpisodeRequest; mode: string | undefined }[] = [];
  const results = await auditTasks([fixture("copies-reward")], {
    allModes: true,
    diskFillCapMb: 0,
    runJobs: async (jobs, verifierMode, onEpisode) => {
      for (const j of jobs) {
        const req: EpisodeRequest = {
          settings: { policy: { kind: "nop" }, verifierMode },
          row: j.row,
          rowId: j.rowId,
          sample: j.sample,
          policy: j.agent,
        };
        assert.equal(requestProblem(req), undefined, JSON.stringify(req));
        sent.push({ req, mode: verifierMode });
        // A lost node's record is superseded by its re-run's: the audit waits for the latter.
        const base = { id: trajectoryId(j.rowId, j.sample), metrics: {}, messages: [], timings: {} };
        onEpisode({ ...base, exit_status: "infra_error", infra_stage: "node", reward: null } as unknown as Trajectory);
        onEpisode({ ...base, exit_status: "stop_rule", reward: j.agent.kind === "harbor-oracle" ? 1 : 0 } as never);
      }
      await Promise.resolve();
    },
  });
  assert.equal(results.length, 1);
  const modes = [...new Set(sent.map((s) => s.mode))];
  assert.deepEqual(modes, ["isolated", "shared", "snapshot", "shared-clean"]);
  for (const mode of modes) {
    const mine = sent.filter((s) => s.mode === mode).map((s) => s.req);
    assert.deepEqual(mine.slice(0, 2).map((r) => r.policy), [{ kind: "harbor-oracle" }, { kind: "nop" }]);
    const exploits = mine.slice(2).map((r) => r.policy!);
    assert.ok(exploits.length > 10, `the battery's exploits, got ${exploits.length}`);
    for (const x of exploits) {
      assert.equal(x.kind, "exploit");
      if (x.kind === "exploit") assert.ok(x.name && x.script, JSON.stringify(x));
    }
    assert.ok(mine.slice(2).every((r) => r.row.harness_profile), "an exploit's row names its profile");
  }
  assert.equal(results[0].valid, true, results[0].error);
  assert.equal(results[0].hackable, false);
});

const usageCases = [
  [["--nodes", "2"], /harbor audit: --nodes goes with --slurm/],
  [["--slurm", "--partition", "a b"], /--partition must be a name/],
] as const;
Deno.test("harbor audit --slurm: usage errors name the flag", async () => {
  for (const [args, re] of usageCases) {
    const r = await pgs(["harbor", "audit", "examples/tasks", ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, re);
  }
});

slurmTest(
  "slurm audit: --slurm --nodes 2 gives the local audit's verdicts, a worker on each node, and releases the job",
  async () => {
    // Exactly what tests/audit_test.ts expects of these fixtures in their own modes.
    const expected: Record<string, string[]> = {
      "copies-reward": ["plant-reward"],
      "link-tests": [],
      "robust-python": [],
    };
    const out = await Deno.makeTempDir({ prefix: "pgs_slurm_audit_" });
    try {
      for (const name of Object.keys(expected)) {
        await Deno.symlink(fixture(name), path.join(out, name));
      }
      const r = await pgs([
        "harbor",
        "audit",
        "--slurm",
        "--nodes",
        "2",
        "--time",
        "20",
        "--workers",
        "2",
        "--disk-fill-mb",
        "0",
        "--json",
        out,
      ]);
      assert.match(
        r.stderr,
        /over 2 node\(s\) of Slurm job \d+: n1 \(4\), n2 \(4\)|over 2 node\(s\) of Slurm job \d+: n2 \(4\), n1 \(4\)/,
      );
      const rows = JSON.parse(r.stdout) as {
        dir: string;
        valid: boolean;
        exploits: { exploit: string; passed: boolean }[];
      }[];
      const got = Object.fromEntries(
        rows.map((x) => [path.basename(x.dir), x.exploits.filter((e) => e.passed).map((e) => e.exploit)]),
      );
      assert.deepEqual(got, expected, r.stderr);
      assert.ok(rows.every((x) => x.valid), r.stderr);
      assert.equal(r.code, 1, "copies-reward is hackable: exit 1");
      const job = /of Slurm job (\d+)/.exec(r.stderr)![1];
      assert.deepEqual(await squeueJob(job), [], "the job pgs asked for is released");
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
);
