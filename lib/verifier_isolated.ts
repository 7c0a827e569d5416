/**
 * The spec's isolated verifier: the agent's working directory streamed container-to-container into a clean container
 * from the pristine image (made idle while the episode started), together with tests/ in the same archive.
 */
import type { Sandbox } from "./sandbox.ts";
import { COPY_TIMEOUT_MS, inVerifierBox, scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { createVerifier, STAGE_DIR, testsArchivePrefix } from "./verifier_container.ts";

/** Verifies `v`'s episode in a clean container holding only a copy of its working directory. */
export async function verifyIsolated(v: Verification, finalMessage: string): Promise<VerifyResult> {
  const box = v.box;
  const task = box.task;
  const docker = box.docker;
  // Taken before anything can fail, so that the container is removed on every path.
  const pending = box.takeVerifier() ?? createVerifier(docker, task, box.image.ref);
  return await inVerifierBox(v, pending, async (vbox, capture) => {
    const t1 = performance.now();
    const copied = await streamWorkdir(box, vbox.id, await testsArchivePrefix(task, v.opts.step));
    if (copied?.side === "agent") return await v.agentBroke(copied.error);
    if (copied) return await v.infra(copied.error);
    v.timings.copy = performance.now() - t1;
    const plan = {
      cwd: box.workdir,
      capture: Boolean(v.cfg.capture),
      stage: STAGE_DIR,
      tests: { to: "/tests", fresh: false },
      workdir: box.workdir,
    };
    return await v.run(docker, vbox.id, plan, scriptInput(finalMessage, capture), v.cfg.user ?? "", v.cfg.env);
  });
}

/**
 * Streams the working directory (after `head`, an archive prefix) into STAGE_DIR of `vid`. Returns undefined, or
 * the error and its side: reading the agent's container (its state) or writing the clean one (the machinery's).
 */
async function streamWorkdir(
  box: Sandbox,
  vid: string,
  head: Uint8Array,
): Promise<{ error: string; side: "agent" | "verifier" } | undefined> {
  const docker = box.docker;
  const out = docker.spawn(["cp", `${box.id}:${box.workdir}`, "-"], { timeoutMs: COPY_TIMEOUT_MS });
  const [copy, outStatus, outErr] = await Promise.all([
    docker.call(["cp", "-", `${vid}:${STAGE_DIR}`], { stdin: prepend(head, out.stdout), timeoutMs: COPY_TIMEOUT_MS }),
    out.status,
    new Response(out.stderr).text(),
  ]);
  if (!outStatus.success) {
    return { error: `cannot copy ${box.workdir} out of the agent's container: ${outErr.trim()}`, side: "agent" };
  }
  if (copy.code !== 0) {
    return { error: `cannot copy ${box.workdir} into the verifier container: ${copy.stderr}`, side: "verifier" };
  }
}

/** `head`, then every chunk of `rest`: one archive from our tests entries and the engine's stream. */
export function prepend(head: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let first = true;
  return new ReadableStream({
    async pull(c) {
      if (first) {
        first = false;
        c.enqueue(head);
        return;
      }
      const { value, done } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel(why) {
      return reader.cancel(why);
    },
  });
}
