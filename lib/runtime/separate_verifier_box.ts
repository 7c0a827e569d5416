/** A separate verifier's container (Harbor's `[verifier.environment]`), started idle while the episode starts. */
import type { ImageStore } from "./images.ts";
import type { Task } from "../task/task.ts";
import { startVerifierContainer, type VerifierBox } from "./verifier_container.ts";
import { effectiveWorkdirOrRoot } from "./workdir.ts";

/** A separate verifier's container, its working folder, its image's user and whether tests/ go into that folder. */
export interface SeparateBox extends VerifierBox {
  /** Where test.sh runs: `[verifier.environment] workdir`, else the image's WORKDIR, else `/`. */
  workdir: string;
  /** The verifier image's USER, whom test.sh runs as unless `[verifier] user` says otherwise. */
  user: string;
  /** Harbor copies tests/ into the working folder when a prebuilt image has no tests/Dockerfile. */
  testsIntoWorkdir: boolean;
}

/** Starts a separate verifier's container idle (while the episode starts). */
export async function createSeparateVerifier(store: ImageStore, task: Task): Promise<SeparateBox> {
  const venv = task.config.verifier.environment ?? task.config.environment;
  const image = await store.resolveVerifier(task);
  const workdir = effectiveWorkdirOrRoot(venv.workdir, image.workdir);
  const box = await startVerifierContainer(store.runtime, task, image.ref, venv, workdir, true);
  const testsIntoWorkdir = Boolean(venv.dockerImage) && !task.paths.testsDockerfile;
  return { box, workdir, user: image.user, testsIntoWorkdir };
}
