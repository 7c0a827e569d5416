/**
 * Harbor's shared verifier: the tests run in the agent's own container after the episode, so state outside the
 * working directory counts (/tmp, /var/log, installed packages, running services, /logs/artifacts). Made as safe as
 * sharing allows: /tests is copied in from the task only now, into a folder of a random name, and replaces whatever
 * /tests held; /logs/verifier is made anew just before test.sh, so a reward file planted earlier never counts.
 * Processes the agent left running keep running (a task may test a service), and can still interfere; under
 * `shared-clean` they are stopped first.
 */
import { runAllCollectHooks } from "./collect_hooks.ts";
import { tarArchive } from "../base/tar.ts";
import type { Box } from "../runtime/runtime.ts";
import { COPY_TIMEOUT_MS } from "./container_copy.ts";
import { scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { testsEntries } from "./verifier_container.ts";
import { networkAllowed, networkPlan } from "../task/network_plan.ts";
import { warnOnce } from "../base/warn.ts";

/**
 * Verifies `v`'s episode in the agent's container; `clean` (`shared-clean`) first stops every process the agent's
 * commands started (the episode verifier's `agentBaseline` tells them apart).
 */
export async function verifyShared(v: Verification, finalMessage: string, clean = false): Promise<VerifyResult> {
  const box = v.box;
  const baseline = v.verifier.agentBaseline;
  if (clean && !baseline) return await v.infra("no process table was taken when the agent's turns began");
  // Harbor runs the task's collect hooks after the agent's turns in shared mode too, before the tests.
  await runAllCollectHooks(box, v.extra);
  const capture = await v.capture();
  if (!(capture instanceof Uint8Array)) return v.fail(capture.error, capture.extra);
  // The tests' own network, as Harbor switches the box's for the verifier phase: one they may not have is taken away
  // (else the machinery failed); one the engine cannot give them is said once, and they run without.
  const want = networkAllowed(networkPlan(box.task.config, v.mode, v.opts.step?.config).verifier);
  const net = await box.useNetwork(want);
  if (!net.ok && !want) {
    return box.dead || !await box.running() ? await v.agentBroke(net.error) : await v.infra(net.error);
  }
  if (!net.ok) {
    warnOnce(`${box.runtime.kind}: the tests run with no network: ${net.error}`, `verifier-net:${box.runtime.kind}`);
  }
  // A container the episode saw die is started again at once; otherwise whether it still runs is asked only when the
  // tests could not run: no inspect on the common path.
  if (!box.dead) {
    const result = await testIn(v, box.box, finalMessage, capture, clean ? baseline : undefined);
    // Docker says "Container X is not running"; podman "can only create exec sessions on running containers".
    const stopped = /is not running|on running containers/;
    if (result.error === undefined || !stopped.test(result.error) || await box.running()) return result;
  }
  // The agent stopped its container (`kill -9 -1`): its files are intact, so the tests judge what it left, in the
  // container started again (its processes are gone, so `shared-clean` has nothing to stop: the image's own restart
  // with new start times). A capture task has already failed above.
  const r = await box.box.restart();
  if (!r.ok) return await v.agentBroke(`cannot start the agent's stopped container again: ${r.error}`);
  v.extra.container_dead = 1;
  return await testIn(v, box.box, finalMessage, capture);
}

/**
 * Runs the task's tests in `container`, which holds the agent's state (its own container, or a snapshot of it):
 * /tests copied in now under a random stage name, /logs/verifier made anew, test.sh in the working directory. With
 * `stopOutside` (a process table), every process outside it is stopped first.
 */
export async function testIn(
  v: Verification,
  container: Box,
  finalMessage: string,
  capture: Uint8Array,
  stopOutside?: string[],
): Promise<VerifyResult> {
  const box = v.box;
  const task = box.task;
  const t1 = performance.now();
  // A random stage name: nothing the agent planted beforehand can be merged into it.
  const stage = `.pgs-verify-${crypto.randomUUID().replaceAll("-", "")}`;
  const entries = (await testsEntries(task, v.opts.step)).map((e) => ({ ...e, name: `${stage}/${e.name}` }));
  const tar = tarArchive([{ name: stage, type: "dir", mode: 0o700, uid: 0, gid: 0 }, ...entries]);
  const put = await container.putArchive("/", tar, COPY_TIMEOUT_MS);
  // The container holds the agent's state (its own, or its snapshot): the agent may have made it refuse the copy.
  if (!put.ok) return await v.agentBroke(`cannot copy tests/ into the agent's container: ${put.error.trim()}`);
  v.timings.copy = performance.now() - t1;

  const plan = {
    cwd: box.workdir,
    capture: Boolean(v.cfg.capture),
    stage: `/${stage}`,
    tests: { to: "/tests", fresh: true },
    ...(stopOutside ? { stopOutside } : {}),
    // The agent could write anywhere in this box: links into the inputs are looked for everywhere.
    guard: { links: ["/"], specials: [box.workdir] },
  };
  // Harbor runs test.sh as [verifier] user, else as the container's default user (the image's USER).
  const user = v.cfg.user ?? box.image.user;
  return await v.run(container, plan, scriptInput(finalMessage, capture), user, v.cfg.env);
}
