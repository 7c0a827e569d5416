/**
 * A pod's first member as the `Box` its users hold: every call goes to that box, and its removal takes the pod with
 * it, the sidecars first (podman keeps a namespace's owner while members joined it), then the box, then the pod's
 * volumes. The episode's box and an isolated or snapshot verifier's fresh pod are held so.
 */
import type { Task } from "../task/task.ts";
import type { ImageStore } from "./images.ts";
import { Pod } from "./pod.ts";
import type { PodBudget } from "./pod_budget.ts";
import type {
  ArchiveRead,
  Box,
  BoxExecOptions,
  BoxPipe,
  BoxSpec,
  BoxState,
  Done,
  ExecProcess,
  ProcResult,
  Runtime,
} from "./runtime.ts";

/** `main` with `pod` around it: removing it removes the pod. */
export class PodBox implements Box {
  #removal?: Promise<boolean>;

  /** The box `main`, first member of `pod`. */
  constructor(readonly inner: Box, readonly pod: Pod) {}

  /** The first member's id. */
  get id(): string {
    return this.inner.id;
  }
  /** The first member's runtime. */
  get runtime(): Runtime {
    return this.inner.runtime;
  }
  /** The first member's pipe, when tied. */
  get main(): BoxPipe | undefined {
    return this.inner.main;
  }
  /** See `Box.exec`. */
  exec(argv: string[], opts?: BoxExecOptions): Promise<ProcResult> {
    return this.inner.exec(argv, opts);
  }
  /** See `Box.spawn`. */
  spawn(argv: string[], opts?: { user?: string; workdir?: string; stdin?: boolean }): ExecProcess {
    return this.inner.spawn(argv, opts);
  }
  /** See `Box.putArchive`. */
  putArchive(parent: string, archive: Uint8Array | ReadableStream<Uint8Array>, timeoutMs?: number): Promise<Done> {
    return this.inner.putArchive(parent, archive, timeoutMs);
  }
  /** See `Box.getArchive`. */
  getArchive(path: string, timeoutMs?: number): ArchiveRead {
    return this.inner.getArchive(path, timeoutMs);
  }
  /** See `Box.state`. */
  state(): Promise<BoxState> {
    return this.inner.state();
  }
  /** See `Box.restart`. */
  restart(): Promise<Done> {
    return this.inner.restart();
  }
  /** See `Box.snapshot` (the first member's files only). */
  snapshot(tag: string): Promise<Done> {
    return this.inner.snapshot(tag);
  }
  /** See `Box.setNetwork`: the pod's namespace is the first member's. */
  setNetwork(allow: boolean): Promise<Done> {
    return this.inner.setNetwork(allow);
  }
  /** See `Box.logs`. */
  logs(lines: number): Promise<string> {
    return this.inner.logs(lines);
  }
  /** See `Box.hostsPath`. */
  hostsPath(): Promise<string | undefined> {
    return this.inner.hostsPath();
  }
  /** Removes the sidecars, the box, then the pod's volumes; true when the box went. Safe to call twice. */
  remove(): Promise<boolean> {
    return this.#removal ??= (async () => {
      await this.pod.removeMembers();
      const gone = await this.inner.remove();
      await this.pod.removeVolumes();
      return gone;
    })();
  }
}

/**
 * Starts `spec` as the first member of a fresh pod of `task`'s services (their images from `store`) and the services
 * around it; the box returned takes the pod with it when removed. A task without a compose file gets `spec` alone.
 * Nothing is left when it throws.
 */
export async function startInPod(store: ImageStore, task: Task, spec: BoxSpec, budget?: PodBudget): Promise<Box> {
  if (!task.compose) return await store.runtime.start(spec);
  const pod = await Pod.prepare(task, task.compose, store);
  const { env, ...member } = pod.mainSpec();
  let inner: Box;
  try {
    inner = await store.runtime.start({ ...spec, ...member, env: { ...env, ...spec.env } });
  } catch (e) {
    await pod.removeVolumes();
    throw e;
  }
  const box = new PodBox(inner, pod);
  try {
    await pod.startServices(inner, spec.limits, budget);
  } catch (e) {
    await box.remove();
    throw e;
  }
  return box;
}
