/**
 * A separate verifier's container (Harbor's `[verifier.environment]`, or a step's `[steps.verifier.environment]`),
 * started idle: while the episode starts for the task's (or its first step's), at verification time for a later step.
 */
import { join } from "node:path";
import { type ImageStore, separateVerifierEnv } from "../runtime/images.ts";
import type { Task, TaskStep } from "../task/task.ts";
import { startVerifierContainer, type VerifierBox } from "./verifier_container.ts";
import { effectiveWorkdirOrRoot } from "../runtime/workdir.ts";
import { withStorage } from "../runtime/limits.ts";
import { networkAllowed, networkPlan } from "../task/network_plan.ts";

/** A separate verifier's container, its working folder, its image's user and whether its context goes there. */
export interface SeparateBox extends VerifierBox {
  /** Where test.sh runs: the verifier environment's workdir, else the image's WORKDIR, else `/`. */
  workdir: string;
  /** The verifier image's USER, whom test.sh runs as unless `[verifier] user` says otherwise. */
  user: string;
  /**
   * The folder Harbor uploads into the working folder (a prebuilt image whose context, `tests/` or the step's, has no
   * Dockerfile); undefined when nothing is uploaded.
   */
  uploadContext?: string;
  /** The step it verifies (undefined: the task). */
  step?: TaskStep;
}

/** Starts a separate verifier's container idle, for the task or for `step`; `storageDefault`: the run's disk bound. */
export async function createSeparateVerifier(
  store: ImageStore,
  task: Task,
  step?: TaskStep,
  storageDefault?: number,
): Promise<SeparateBox> {
  const venv = withStorage(separateVerifierEnv(task, step), storageDefault);
  const image = await store.resolveVerifier(task, step);
  const workdir = effectiveWorkdirOrRoot(venv.workdir, image.workdir);
  const network = networkAllowed(networkPlan(task.config, "separate", step?.config).verifier);
  const box = await startVerifierContainer(store.runtime, task, image.ref, venv, workdir, network, true);
  const context = step?.verifierContext ?? task.paths.testsDir;
  const upload = Boolean(venv.dockerImage) && !(await isFile(join(context, "Dockerfile"))) && await isDir(context);
  return { box, workdir, user: image.user, ...(upload ? { uploadContext: context } : {}), ...(step ? { step } : {}) };
}

async function isFile(p: string): Promise<boolean> {
  return await Deno.stat(p).then((s) => s.isFile, () => false);
}

async function isDir(p: string): Promise<boolean> {
  return await Deno.stat(p).then((s) => s.isDirectory, () => false);
}
