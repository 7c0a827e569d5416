/**
 * `harbor audit` on compose tasks (issue #41): the battery's `sidecar-shared-volume` plants pass-forging files in the
 * folders `main` shares with a sidecar, and passes a task whose tests trust what that sidecar publishes from them; it
 * does not apply to a task that shares no volume. On the engine, with the task's pod.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { auditTasks } from "../lib/harbor/audit/audit.ts";
import { BATTERY } from "../lib/harbor/audit/battery.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest } from "./docker_helpers.ts";

registerBuiltins();

const FIXTURES = path.join(import.meta.dirname!, "fixtures", "compose");
const battery = BATTERY.filter((x) => x.name === "sidecar-shared-volume");

dockerTest("audit: a sidecar's volume the agent can write is found, and passes a task that trusts it", async () => {
  const [open, closed] = await auditTasks(
    [path.join(FIXTURES, "trusts-shared-volume"), path.join(FIXTURES, "http-sidecar")],
    { battery, diskFillCapMb: 0, workers: 2 },
  );
  assert.equal(open.valid, true, open.error);
  const [x] = open.exploits;
  assert.equal(x.passed, true, JSON.stringify(x));
  assert.equal(open.hackable, true);
  assert.ok(x.findings?.some((f) => f.includes("/site, shared with judge")), JSON.stringify(x.findings));
  const [y] = closed.exploits;
  assert.equal(y.skipped, "does not apply to this task");
  assert.equal(closed.hackable, false);
});
