/**
 * Every example task is valid (oracle 1, nop below 1) and the broken one is not, through the real episode path: the
 * eval runner, as `harbor check` runs it.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { type CheckOutcome, checkTask } from "../lib/harbor/check.ts";
import { owner, trackedContainers } from "../lib/runtime/hygiene.ts";
import { findTasks } from "../lib/task/task.ts";
import { countPidContainers, dockerTest } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const EXAMPLES = path.join(import.meta.dirname!, "..", "examples");
const TASKS = await findTasks(path.join(EXAMPLES, "tasks"));

function explain(o: CheckOutcome): string {
  return JSON.stringify({ error: o.error, stage: o.stage, verifierError: o.verifierError, test: o.testOutput });
}

for (const dir of TASKS) {
  dockerTest(`examples: ${path.basename(dir)}: oracle scores 1, nop below 1`, async () => {
    const r = await checkTask(dir);
    const { oracle, nop } = r;
    assert.ok(oracle && nop, r.error);
    assert.equal(oracle.error, undefined, explain(oracle));
    assert.equal(oracle.agentExitCode, 0, explain(oracle));
    assert.equal(oracle.reward, 1, explain(oracle));
    assert.equal(nop.error, undefined, explain(nop));
    assert.equal(typeof nop.reward, "number", explain(nop));
    assert.ok(nop.reward! < 1, `nop scored ${nop.reward}: ${explain(nop)}`);
    assert.deepEqual([oracle.exitStatus, nop.exitStatus], ["stop_rule", "stop_rule"]);
    assert.ok(r.valid, r.error);
  });
}

dockerTest("examples: broken/oracle-fails: the oracle scores below 1", async () => {
  const r = await checkTask(path.join(EXAMPLES, "broken", "oracle-fails"));
  const oracle = r.oracle;
  assert.ok(oracle, r.error);
  assert.equal(oracle.error, undefined, explain(oracle));
  assert.equal(typeof oracle.reward, "number");
  assert.ok(oracle.reward! < 1, `oracle scored ${oracle.reward}`);
  assert.equal(oracle.verifierError, undefined, "the verifier itself worked");
  assert.equal(r.valid, false);
  assert.match(r.error ?? "", /^oracle scored 0, must be 1$/);
});

dockerTest("examples: no container of this module is left", async (docker) => {
  assert.deepEqual(trackedContainers(), []);
  // Modules run with --parallel share this pid: the run label tells this module's containers apart.
  assert.equal(await countPidContainers(docker, Deno.pid, `pgs.run=${owner().run}`), 0);
  assert.equal(TASKS.length, 4, "every example was checked");
});
