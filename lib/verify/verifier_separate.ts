/**
 * Harbor's separate verifier environment: a container of its own image (`[verifier.environment]` docker_image, else
 * `tests/Dockerfile`; for a step, `[steps.verifier.environment]` first and `steps/<name>/tests/` as the context when it
 * exists), which owns `/tests/test.sh` itself, with `/logs/artifacts`, the task's `artifacts` and the step's copied
 * across from the agent's container to the same absolute paths. Nothing else of the agent's container reaches it.
 */
import { posix } from "node:path";
import type { Sandbox } from "../runtime/sandbox.ts";
import { tarArchive, type TarEntry, treeEntries } from "../base/tar.ts";
import type { Task, TaskStep } from "../task/task.ts";
import { COPY_TIMEOUT_MS, type CopyFailure, copyFromAgent } from "./container_copy.ts";
import { inVerifierBox, scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { STAGE_DIR, TESTS_STAGE } from "./verifier_container.ts";
import { createSeparateVerifier, type SeparateBox } from "./separate_verifier_box.ts";

/** Harbor's convention folder, always carried into a separate verifier. */
const ARTIFACTS_DIR = "/logs/artifacts";

/**
 * The paths carried across: /logs/artifacts first, then the task's artifacts, then the step's, each once; a relative
 * source is the agent's working directory's (`workdir`), as Harbor resolves it in the main container.
 */
export function artifactPaths(task: Task, workdir: string, step?: TaskStep): string[] {
  const declared = [...task.config.artifacts, ...(step?.config.artifacts ?? [])];
  return [...new Set([ARTIFACTS_DIR, ...declared.map((a) => posix.resolve(workdir, a.source))])];
}

/** The separate box made ahead when it is for this step (else it is removed), or a new one. */
async function separateBox(v: Verification): Promise<SeparateBox> {
  const box = v.box;
  const step = v.opts.step;
  const made = await (v.verifier.take() as Promise<SeparateBox> | undefined)?.catch(() => undefined);
  if (made && made.step === step && "user" in made) return made;
  if (made) box.background(made.box.remove());
  return await createSeparateVerifier(box.store, box.task, step, box.storageDefault);
}

/** Verifies `v`'s episode (or step) in its separate verifier container. */
export async function verifySeparate(v: Verification, finalMessage: string): Promise<VerifyResult> {
  const box = v.box;
  const task = box.task;
  return await inVerifierBox(v, separateBox(v), async (vbox, capture) => {
    const t1 = performance.now();
    const paths = artifactPaths(task, box.workdir, v.opts.step);
    const copied = await copyArtifacts(box, vbox, paths);
    if (copied) return await v.copyFailed(copied);
    v.timings.copy = performance.now() - t1;
    const plan = {
      cwd: vbox.workdir,
      capture: Boolean(v.cfg.capture),
      stage: STAGE_DIR,
      tests: vbox.uploadContext ? { to: vbox.workdir, fresh: false } : undefined,
      artifacts: paths,
      // The artifacts are the agent's here; a tests folder uploaded into the working folder is the verifier's.
      guard: {
        links: paths,
        specials: paths,
        ...(vbox.uploadContext && vbox.workdir !== "/" ? { inputs: [vbox.workdir] } : {}),
      },
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
  if (vbox.uploadContext) {
    const context = await treeEntries(vbox.uploadContext, TESTS_STAGE, 0, 0);
    dirs.push(...context.map((e) => ({ ...e, name: `${stage}/${e.name}` })));
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
