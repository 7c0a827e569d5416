/**
 * The isolated verifier (docs/spec-notes.md): the agent's working directory streamed container-to-container into a clean container
 * from the pristine image (made idle while the episode started), together with tests/ in the same archive.
 */
import { copyFromAgent } from "../runtime/container_copy.ts";
import { inVerifierBox, scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { createVerifier, STAGE_DIR, testsArchivePrefix } from "../runtime/verifier_container.ts";

/** Verifies `v`'s episode in a clean container holding only a copy of its working directory. */
export async function verifyIsolated(v: Verification, finalMessage: string): Promise<VerifyResult> {
  const box = v.box;
  const task = box.task;
  // Taken before anything can fail, so that the container is removed on every path.
  const pending = box.takeVerifier() ?? createVerifier(box.runtime, task, box.image.ref);
  return await inVerifierBox(v, pending, async (vbox, capture) => {
    const t1 = performance.now();
    const head = await testsArchivePrefix(task, v.opts.step);
    const copied = await copyFromAgent(box.box, box.workdir, vbox.box, STAGE_DIR, head);
    if (copied) return await v.copyFailed(copied);
    v.timings.copy = performance.now() - t1;
    const plan = {
      cwd: box.workdir,
      capture: Boolean(v.cfg.capture),
      stage: STAGE_DIR,
      tests: { to: "/tests", fresh: false },
      workdir: box.workdir,
    };
    return await v.run(vbox.box, plan, scriptInput(finalMessage, capture), v.cfg.user ?? "", v.cfg.env);
  });
}
