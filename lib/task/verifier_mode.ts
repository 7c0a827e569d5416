/**
 * Where a task's tests run. `isolated`: pgs's clean container from the pristine image holding only a copy of the
 * working directory. `shared`: Harbor's default, in the agent's own container after the episode. `separate`: Harbor's
 * separate verifier environment (built from `tests/` or `[verifier.environment]`), with the artifacts copied across.
 * `snapshot` (never a default): a fresh container of the agent's committed container, with no agent process alive.
 * `shared-clean` (never a default): `shared`, hardened: before the tests, every process the agent's commands started
 * is stopped, while what the image, setup and healthcheck started keeps running (`lib/verify/agent_processes.ts`).
 */
import { specLayout, type Task, type TaskStep } from "./task.ts";
import { saidStepMode } from "./task_config.ts";

/** The verifier modes, in the order `--help` lists them. */
export const VERIFIER_MODES = ["isolated", "shared", "separate", "snapshot", "shared-clean"] as const;

/** A verifier mode. */
export type VerifierMode = typeof VERIFIER_MODES[number];

/** True for a task in pgs's own layout (docs/spec-notes.md): starting files, a setup script or a live-state capture. */
export function isSpecLayout(task: Task): boolean {
  return specLayout(task.paths, task.config);
}

/**
 * The mode a task's episodes are verified in: `override` (a run's `--verifier-mode`) when given, else what the task
 * says (`environment_mode`, or `separate` for a `[verifier.environment]`), else `isolated` for pgs's own layout and
 * Harbor's `shared` for any other task.
 */
export function resolveVerifierMode(task: Task, override?: VerifierMode): VerifierMode {
  if (override) return override;
  const said = task.config.verifier.environmentMode;
  if (said) return said;
  return isSpecLayout(task) ? "isolated" : "shared";
}

/**
 * The mode a step of a multi-step task is verified in: `override` when given, else what the step or the task says
 * (Harbor resolves it per step, so one task may mix shared and separate steps), else the task's default by layout.
 */
export function resolveStepVerifierMode(task: Task, step: TaskStep, override?: VerifierMode): VerifierMode {
  if (override) return override;
  return saidStepMode(task.config, step.config) ?? resolveVerifierMode(task);
}

/** True for the modes whose tests run on the agent's own state (its container, or a commit of it). */
export function inAgentState(mode: VerifierMode): boolean {
  return mode === "shared" || mode === "snapshot" || mode === "shared-clean";
}

/** True for the modes whose tests run in the agent's own box (not a snapshot of it). */
export function testsInAgentBox(mode: VerifierMode): boolean {
  return mode === "shared" || mode === "shared-clean";
}

/** Parses a `--verifier-mode` value; undefined when it names no mode. */
export function parseVerifierMode(s: string): VerifierMode | undefined {
  return (VERIFIER_MODES as readonly string[]).includes(s) ? s as VerifierMode : undefined;
}
