/** Unit tests of lib/cluster/slurm.ts that need no Slurm cluster: call bounds, one-line errors, availability reasons. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SlurmAllocation, slurmAvailable, slurmCall, SlurmError } from "./slurm.ts";

Deno.test("slurm call: a failure is one line naming the command and its last words", async () => {
  const err = await slurmCall("bash", [
    "-c",
    "echo noise >&2; echo 'slurm_load_jobs error: Invalid job id' >&2; exit 3",
  ])
    .catch((e) => e);
  assert.ok(err instanceof SlurmError);
  assert.equal(
    err.message,
    "bash -c 'echo noise >&2; echo 'slurm_load_jobs error: Invalid job id' >&2; exit 3': exited 3: " +
      "slurm_load_jobs error: Invalid job id",
  );
  assert.equal((await slurmCall("bash", ["-c", "exit 4"], { anyCode: true })).code, 4);
});

Deno.test("slurm call: bounded, and a missing CLI says so", async () => {
  const t0 = performance.now();
  await assert.rejects(
    slurmCall("sleep", ["30"], { timeoutMs: 300 }),
    /^SlurmError: sleep 30: no answer within 0.3 s$/m,
  );
  assert.ok(performance.now() - t0 < 5_000);
  await assert.rejects(slurmCall("pgs-no-such-squeue", ["-h"]), /pgs-no-such-squeue not found on PATH/);
});

Deno.test("slurm available: says why not (no CLIs, no configuration, no controller)", async () => {
  assert.equal(await slurmAvailable({ PATH: "/nonexistent" }), "no Slurm: srun is not on PATH");
  const path = Deno.env.get("PATH") ?? "";
  if ((await slurmAvailable({ PATH: path })) === "no Slurm: srun is not on PATH") return; // no Slurm CLIs here
  const dir = await Deno.makeTempDir({ prefix: "pgs-slurm-unit-" });
  try {
    const missing = join(dir, "none.conf");
    assert.equal(
      await slurmAvailable({ PATH: path, SLURM_CONF: missing }),
      `no Slurm: SLURM_CONF=${missing} does not exist`,
    );
    const conf = join(dir, "slurm.conf");
    await Deno.writeTextFile(
      conf,
      "ClusterName=dead\nSlurmctldHost=dead(127.0.0.1)\nSlurmctldPort=9\nAuthType=auth/munge\nMessageTimeout=2\n" +
        "NodeName=n1 NodeAddr=127.0.0.1 CPUs=1\nPartitionName=main Nodes=n1 Default=YES\n",
    );
    const why = await slurmAvailable({ PATH: path, SLURM_CONF: conf });
    assert.match(why ?? "", /^no Slurm controller answers: sinfo -h -o '%P': (exited \d+: .*|no answer within 10 s)$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("slurm attach: needs a job id", () => {
  assert.throws(() => SlurmAllocation.attach(""), /attach: SLURM_JOB_ID is unset/);
  assert.throws(() => SlurmAllocation.attach("12; rm"), /SLURM_JOB_ID is "12; rm"/);
  const a = SlurmAllocation.attach("42");
  assert.equal(a.jobId, "42");
  assert.equal(a.owned, false);
});
