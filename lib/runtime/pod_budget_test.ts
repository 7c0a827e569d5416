import assert from "node:assert/strict";
import { InfraError } from "../base/errors.ts";
import type { ComposeService } from "../task/compose_types.ts";
import { sidecarLimits } from "./pod_budget.ts";

const svc = (name: string, more: Partial<ComposeService> = {}): ComposeService => ({
  name,
  environment: {},
  envFiles: [],
  dependsOn: {},
  volumes: [],
  tmpfs: [],
  init: false,
  pullPolicy: "missing",
  stopGracePeriodMs: 10_000,
  aliases: [],
  ignored: [],
  ...more,
});
const main = { cpus: 2, memoryMb: 2048, pidsLimit: 1024 };

Deno.test("pod budget: without a total, a sidecar has its own limits, else main's", () => {
  const got = sidecarLimits("t", [svc("db", { cpus: 0.5, memoryBytes: 256 * 2 ** 20, pids: 64 }), svc("web")], main);
  assert.deepEqual(got.get("db"), { cpus: 0.5, memoryMb: 256, pidsLimit: 64 });
  assert.deepEqual(got.get("web"), main);
});

Deno.test("pod budget: main keeps its limits; the sidecars share the rest in proportion, never above their own", () => {
  const sidecars = [svc("db", { memoryBytes: 1024 * 2 ** 20 }), svc("web", { memoryBytes: 3072 * 2 ** 20 })];
  const got = sidecarLimits("t", sidecars, main, { cpus: 3, memoryMb: 4096 });
  assert.deepEqual([got.get("db")!.memoryMb, got.get("web")!.memoryMb], [512, 1536]);
  assert.deepEqual([got.get("db")!.cpus, got.get("web")!.cpus], [0.5, 0.5]);
  // A total with room to spare changes nothing.
  const roomy = sidecarLimits("t", sidecars, main, { memoryMb: 100_000 });
  assert.deepEqual([roomy.get("db")!.memoryMb, roomy.get("web")!.memoryMb], [1024, 3072]);
});

Deno.test("pod budget: a total that leaves the sidecars nothing is an infrastructure error naming the task", () => {
  assert.throws(
    () => sidecarLimits("my-task", [svc("db")], main, { memoryMb: 2048 }),
    (e) =>
      e instanceof InfraError &&
      /^my-task: the pod's total memory_mb = 2048 leaves 0 beyond main's 2048/.test(e.message),
  );
});
