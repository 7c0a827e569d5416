/**
 * Harbor's separate verifier environment: a container of its own image (`[verifier.environment]` docker_image, else
 * `tests/Dockerfile`; for a step, `[steps.verifier.environment]` first and `steps/<name>/tests/` as the context when it
 * exists), which owns `/tests/test.sh` itself, with `/logs/artifacts`, the task's `artifacts` and the step's copied
 * across to the same absolute paths: from the agent's container, or from a sidecar's for an entry with `service` (as
 * Harbor re-materializes every entry at its `source`, harbor@39b85872:src/harbor/trial/artifact_handler.py
 * `upload_artifacts`). Nothing else of the agent's pod reaches it. The `[[verifier.collect]]` hooks run first, in
 * Harbor's two passes (`collect_hooks.ts`): `main`'s hooks, `main`'s artifacts, the sidecars' hooks, their artifacts.
 */
import { posix } from "node:path";
import type { Sandbox } from "../runtime/sandbox.ts";
import { tarArchive, type TarEntry, treeEntries } from "../base/tar.ts";
import type { Task, TaskStep } from "../task/task.ts";
import { COPY_TIMEOUT_MS, type CopyFailure, copyFromAgent } from "./container_copy.ts";
import { inVerifierBox, scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { STAGE_DIR, TESTS_STAGE } from "./verifier_container.ts";
import { createSeparateVerifier, type SeparateBox } from "./separate_verifier_box.ts";
import { type CollectPass, inPass, runCollectHooks, serviceBox } from "./collect_hooks.ts";
import { MAIN_SERVICE } from "../task/harbor_fields.ts";

/** Harbor's convention folder, always carried into a separate verifier. */
const ARTIFACTS_DIR = "/logs/artifacts";

/** A path carried across, and the compose service whose container it is read from. */
export interface ArtifactSource {
  /** Absolute, in the service's container and in the verifier's. */
  path: string;
  /** `main` (the agent's container) or a sidecar's name. */
  service: string;
}

/**
 * The paths carried across: /logs/artifacts first, then the task's artifacts, then the step's, each path once (the
 * first claimant kept, as Harbor keeps it); a relative source is the agent's working directory's (`workdir`), as
 * Harbor resolves it in the main container (a sidecar's is absolute).
 */
export function artifactPaths(task: Task, workdir: string, step?: TaskStep): ArtifactSource[] {
  const declared = [...task.config.artifacts, ...(step?.config.artifacts ?? [])];
  const all = [
    { path: ARTIFACTS_DIR, service: MAIN_SERVICE },
    ...declared.map((a) => ({ path: posix.resolve(workdir, a.source), service: a.service ?? MAIN_SERVICE })),
  ];
  return all.filter((a, i) => all.findIndex((b) => b.path === a.path) === i);
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
    const sources = artifactPaths(task, box.workdir, v.opts.step);
    const paths = sources.map((a) => a.path);
    const staged = await stageArtifacts(vbox, paths.length);
    if (staged) return await v.copyFailed(staged);
    let hooksFailed = 0;
    for (const pass of ["main", "sidecars"] as const) {
      hooksFailed += await runCollectHooks(box, pass);
      const copied = await copyArtifacts(box, vbox, sources, pass);
      if (copied) return await v.copyFailed(copied);
    }
    if (hooksFailed) v.extra.collect_hooks_failed = hooksFailed;
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

/** Makes `STAGE_DIR/a<i>/` for `count` artifacts in the verifier's container, with the tests context when uploaded. */
async function stageArtifacts(vbox: SeparateBox, count: number): Promise<CopyFailure | undefined> {
  const stage = STAGE_DIR.slice(1);
  const dir = (name: string): TarEntry => ({ name, type: "dir", mode: 0o700, uid: 0, gid: 0 });
  const dirs: TarEntry[] = [dir(stage), ...Array.from({ length: count }, (_, i) => dir(`${stage}/a${i}`))];
  if (vbox.uploadContext) {
    const context = await treeEntries(vbox.uploadContext, TESTS_STAGE, 0, 0);
    dirs.push(...context.map((e) => ({ ...e, name: `${stage}/${e.name}` })));
  }
  const made = await vbox.box.putArchive("/", tarArchive(dirs), COPY_TIMEOUT_MS);
  if (!made.ok) {
    const error = `cannot prepare the separate verifier's container: ${made.error.trim()}`;
    return { error, side: "verifier", missing: false };
  }
}

/**
 * Copies each source of `pass` from its service's container into `STAGE_DIR/a<i>/` of the verifier's (the script
 * then moves it into place); a path the container lacks is skipped, as Harbor skips it (a sidecar the pod lacks too).
 * Returns undefined, or the failure: reading a sidecar fails as reading the agent's container does.
 */
async function copyArtifacts(
  box: Sandbox,
  vbox: SeparateBox,
  sources: ArtifactSource[],
  pass: CollectPass,
): Promise<CopyFailure | undefined> {
  for (const [i, a] of sources.entries()) {
    if (!inPass(a.service, pass)) continue;
    const from = serviceBox(box, a.service);
    if (!from) continue;
    const failed = await copyFromAgent(from, a.path, vbox.box, `${STAGE_DIR}/a${i}`);
    // Harbor skips an artifact that is not there.
    if (failed && !failed.missing) {
      const whose = a.service === MAIN_SERVICE ? failed.error : failed.error.replace(
        "the agent's container",
        `service ${a.service}'s container`,
      );
      return { ...failed, error: whose };
    }
  }
}
