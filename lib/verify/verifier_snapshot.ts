/**
 * The snapshot verifier, a hardened variant of Harbor's shared mode: the agent's container is committed into an
 * image and the tests run in a fresh container of it. The system state the agent left counts (/tmp, /var/log,
 * installed packages, /logs/artifacts), while no process of the agent's is alive to interfere with the tests, which
 * also means a service the agent was asked to leave running is gone.
 */
import { EngineDownError } from "../base/errors.ts";
import type { Box } from "../runtime/runtime.ts";
import type { Verification, VerifyResult } from "./verification.ts";
import { startVerifierContainer } from "./verifier_container.ts";
import { withStorage } from "../runtime/limits.ts";
import { testIn } from "./verifier_shared.ts";
import { networkAllowed, networkPlan } from "../task/network_plan.ts";

/** Verifies `v`'s episode in a fresh container of a snapshot of the agent's. */
export async function verifySnapshot(v: Verification, finalMessage: string): Promise<VerifyResult> {
  const box = v.box;
  const runtime = box.runtime;
  const capture = await v.capture();
  if (!(capture instanceof Uint8Array)) return v.fail(capture.error, capture.extra);
  // A stopped container commits all the same; one that died after the episode's last command is found here.
  if (!box.dead && !await box.running()) v.extra.container_dead = 1;
  const t0 = performance.now();
  const tag = `pgs-snapshot:${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const commit = await box.box.snapshot(tag);
  if (!commit.ok) return await v.agentBroke(`cannot snapshot the agent's container: ${commit.error}`);
  let container: Box | undefined;
  try {
    try {
      const env = withStorage(box.task.config.environment, box.storageDefault);
      const network = networkAllowed(networkPlan(box.task.config, "snapshot", v.opts.step?.config).verifier);
      container = await startVerifierContainer(
        runtime,
        box.task,
        tag,
        env,
        box.workdir,
        network,
        false,
        false,
        box.store,
      );
    } catch (e) {
      if (e instanceof EngineDownError) throw e;
      // The snapshot is the agent's state: a container of it that cannot start (no /bin/sh left) is the agent's doing.
      return await v.agentBroke((e as Error).message);
    }
    v.timings.copy = performance.now() - t0;
    return await testIn(v, container, finalMessage, capture);
  } finally {
    if (container) await container.remove();
    await runtime.removeImage(tag);
  }
}
