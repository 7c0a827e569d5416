/**
 * Harbor's separate verifier environment: a container of its own image (`[verifier.environment]` docker_image, else
 * `tests/Dockerfile`), which owns `/tests/test.sh` itself, with `/logs/artifacts` and the task's `artifacts` copied
 * across from the agent's container to the same absolute paths. Nothing else of the agent's container reaches it.
 */
import { posix } from "node:path";
import type { Sandbox } from "../runtime/sandbox.ts";
import { tarArchive, type TarEntry } from "../base/tar.ts";
import type { Task } from "../task/task.ts";
import { COPY_TIMEOUT_MS, type CopyFailure, copyFromAgent } from "../runtime/container_copy.ts";
import { inVerifierBox, scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { STAGE_DIR, testsEntries } from "../runtime/verifier_container.ts";
import { createSeparateVerifier, type SeparateBox } from "../runtime/separate_verifier_box.ts";

/** Harbor's convention folder, always carried into a separate verifier. */
const ARTIFACTS_DIR = "/logs/artifacts";

/** The paths carried across: /logs/artifacts first, then the task's artifacts, each once. */
export function artifactPaths(task: Task): string[] {
  return [...new Set([ARTIFACTS_DIR, ...task.config.artifacts.map((a) => posix.normalize(a.source))])];
}

/** Verifies `v`'s episode in its separate verifier container. */
export async function verifySeparate(v: Verification, finalMessage: string): Promise<VerifyResult> {
  const box = v.box;
  const task = box.task;
  const pending = (box.takeVerifier() as Promise<SeparateBox> | undefined) ?? createSeparateVerifier(box.store, task);
  return await inVerifierBox(v, pending, async (vbox, capture) => {
    const t1 = performance.now();
    const paths = artifactPaths(task);
    const copied = await copyArtifacts(box, vbox, paths);
    if (copied) return await v.copyFailed(copied);
    v.timings.copy = performance.now() - t1;
    const plan = {
      cwd: vbox.workdir,
      capture: Boolean(v.cfg.capture),
      stage: STAGE_DIR,
      tests: vbox.testsIntoWorkdir ? { to: vbox.workdir, fresh: false } : undefined,
      artifacts: paths,
    };
    const user = v.cfg.user ?? vbox.user;
    return await v.run(vbox.box, plan, scriptInput(finalMessage, capture), user, v.cfg.env);
  });
}

/**
 * Copies each path from the agent's container into `STAGE_DIR/a<i>/` of the verifier's (the script then moves it
 * into place); a path the agent's container lacks is skipped, as Harbor skips it. Returns undefined, or the failure.
 */
async function copyArtifacts(box: Sandbox, vbox: SeparateBox, paths: string[]): Promise<CopyFailure | undefined> {
  const stage = STAGE_DIR.slice(1);
  const dir = (name: string): TarEntry => ({ name, type: "dir", mode: 0o700, uid: 0, gid: 0 });
  const dirs: TarEntry[] = [dir(stage), ...paths.map((_, i) => dir(`${stage}/a${i}`))];
  if (vbox.testsIntoWorkdir) {
    dirs.push(...(await testsEntries(box.task)).map((e) => ({ ...e, name: `${stage}/${e.name}` })));
  }
  const made = await vbox.box.putArchive("/", tarArchive(dirs), COPY_TIMEOUT_MS);
  if (!made.ok) {
    const error = `cannot prepare the separate verifier's container: ${made.error.trim()}`;
    return { error, side: "verifier", missing: false };
  }
  for (const [i, p] of paths.entries()) {
    const failed = await copyFromAgent(box.box, p, vbox.box, `${STAGE_DIR}/a${i}`);
    // Harbor skips an artifact that is not there.
    if (failed && !failed.missing) return failed;
  }
}
