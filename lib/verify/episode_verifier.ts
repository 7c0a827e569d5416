/**
 * The verifier's side of one episode, beside its agent's box (`Sandbox`, which knows nothing of verification): where
 * its tests run (the task's mode, a step's own, or the run's `--verifier-mode`), the verifier box made while the
 * agent's box starts (isolated and separate modes), and, under `shared-clean`, the processes that were there when the
 * agent's turns began. `startBoxes` starts both; the episode asks this object to mark the agent's start and `verify`
 * to verify.
 */
import { InfraError } from "../base/errors.ts";
import type { ImageStore } from "../runtime/images.ts";
import { DEFAULT_STORAGE_MB } from "../runtime/limits.ts";
import { Sandbox, type SandboxOptions } from "../runtime/sandbox.ts";
import { text } from "../runtime/channel.ts";
import { networkAllowed, networkPlan } from "../task/network_plan.ts";
import type { Task, TaskStep } from "../task/task.ts";
import {
  inAgentState,
  resolveStepVerifierMode,
  resolveVerifierMode,
  testsInAgentBox,
  type VerifierMode,
} from "../task/verifier_mode.ts";
import { BASELINE_SCRIPT, parseBaseline } from "./agent_processes.ts";
import { createSeparateVerifier } from "./separate_verifier_box.ts";
import { createVerifier, type VerifierBox } from "./verifier_container.ts";

/** How an episode's verification is planned and made ahead. */
export interface VerifierOptions {
  /** Where the tests run (default: the task's own mode, see `resolveVerifierMode`); decides every step's too. */
  verifierMode?: VerifierMode;
  /** Create the verifier's box while the episode starts, in the modes that have one (default true). */
  prepareVerifier?: boolean;
  /** The run's disk bound, in MB, of boxes whose task sets no `storage_mb` (default 10240; 0: none). */
  storageMb?: number;
}

/** The verifier's state for one episode. */
export class EpisodeVerifier {
  /** Where this episode's tests run (its first step's, for a multi-step task: each step resolves its own). */
  readonly mode: VerifierMode;
  /** The box's processes (`pid:starttime`) when the agent's turns (of the current step) began, under `shared-clean`. */
  agentBaseline?: string[];
  #ahead?: Promise<VerifierBox>;
  #removed = false;

  /** The plan for `task`'s episode under `opts` (nothing is started: see `prepare`). */
  constructor(readonly task: Task, readonly opts: VerifierOptions = {}) {
    this.mode = resolveVerifierMode(task, opts.verifierMode);
  }

  /** The run's `--verifier-mode`, when it gave one: it decides every step's mode too. */
  get override(): VerifierMode | undefined {
    return this.opts.verifierMode;
  }

  /** The run's disk bound for boxes of tasks that set none. */
  get storageDefault(): number {
    return this.opts.storageMb ?? DEFAULT_STORAGE_MB;
  }

  /** The mode `step` (or the task, without one) is verified in. */
  modeOf(step?: TaskStep): VerifierMode {
    return step ? resolveStepVerifierMode(this.task, step, this.override) : this.mode;
  }

  /**
   * Whether the agent's box must be able to change its network: some phase run in it (the agent's, or tests run in
   * the agent's box) has another network than the environment's.
   */
  get switchesNetwork(): boolean {
    const task = this.task;
    const base = networkAllowed(task.config.environment.network);
    const phases = task.steps ? task.steps.map((s) => [this.modeOf(s), s.config] as const) : [[this.mode] as const];
    return phases.some(([m, step]) => {
      const plan = networkPlan(task.config, m, step);
      return networkAllowed(plan.agent) !== base || (testsInAgentBox(m) && networkAllowed(plan.verifier) !== base);
    });
  }

  /**
   * Resolves (builds) a separate verifier's image, so that a failed build is the episode's start error, never a 0;
   * then starts the box the first verification will use, without waiting for it.
   */
  async prepare(store: ImageStore): Promise<void> {
    const first = this.task.steps?.[0];
    const mode = this.modeOf(first);
    if (this.opts.prepareVerifier === false || inAgentState(mode)) {
      if (mode === "separate") await store.resolveVerifier(this.task, first);
      return;
    }
    if (mode === "separate") {
      await store.resolveVerifier(this.task, first);
      this.#ahead = createSeparateVerifier(store, this.task, first, this.opts.storageMb);
    } else {
      const image = await store.resolve(this.task);
      this.#ahead = createVerifier(store, this.task, image.ref, this.opts.storageMb, first);
    }
    this.#ahead.catch(() => {}); // reported by verify(), which awaits it
  }

  /** Hands the box made ahead to the verification (once); undefined when none was made. */
  take(): Promise<VerifierBox> | undefined {
    const v = this.#ahead;
    this.#ahead = undefined;
    return v;
  }

  /**
   * Marks the start of the agent's turns (of the first step, or of a later one after its setup): under `shared-clean`
   * the box's process table is taken, so that the verifier can tell what the agent started.
   */
  async agentStarts(box: Sandbox): Promise<void> {
    if (this.override !== "shared-clean") return;
    const r = await box.exec(BASELINE_SCRIPT, { shell: "sh", timeoutSec: 30 });
    const baseline = parseBaseline(text(r.stdout));
    if (r.exitCode !== 0 || r.timedOut || !baseline.length) {
      const why = r.timedOut ? "timed out" : `exit ${r.exitCode}: ${text(r.stderr).trim().split("\n").pop()}`;
      throw new InfraError(`${this.task.name}: cannot read the container's process table (${why})`, "start");
    }
    this.agentBaseline = baseline;
  }

  /** Removes a box made ahead and never used; safe to call twice. */
  async remove(): Promise<void> {
    if (this.#removed) return;
    this.#removed = true;
    await this.take()?.then((v) => v.box.remove(), () => {});
  }
}

/**
 * Starts an episode's boxes: the agent's (`Sandbox.start`) and, at the same time, its verifier's plan and the box made
 * ahead for it. On any failure nothing is left running.
 */
export async function startBoxes(
  task: Task,
  store: ImageStore,
  opts: SandboxOptions & VerifierOptions = {},
): Promise<{ box: Sandbox; verifier: EpisodeVerifier }> {
  const verifier = new EpisodeVerifier(task, opts);
  const switchableNetwork = opts.switchableNetwork || verifier.switchesNetwork;
  const [prepared, started] = await Promise.allSettled([
    verifier.prepare(store),
    Sandbox.start(task, store, { ...opts, switchableNetwork }),
  ]);
  if (prepared.status === "rejected" || started.status === "rejected") {
    if (started.status === "fulfilled") await started.value.remove();
    await verifier.remove();
    throw prepared.status === "rejected" ? prepared.reason : (started as PromiseRejectedResult).reason;
  }
  const box = started.value;
  // Removing the episode's box removes what was made ahead for its tests and never used.
  box.onRemove(() => verifier.remove());
  return { box, verifier };
}
