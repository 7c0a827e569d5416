/**
 * The task model: a Harbor task folder read and checked (task.toml with its defaults, pgs's and Harbor's
 * fields, `[[steps]]`, environment expansion) and the verifier mode a task's layout implies. No engine here.
 * @module
 */
export { findTasks, loadTask, specLayout, type Task, type TaskPaths, type TaskStep } from "./task.ts";
export { parseTaskConfig } from "./task_config.ts";
export type {
  AgentConfig,
  ArtifactConfig,
  CollectHook,
  EnvironmentConfig,
  HealthcheckConfig,
  NetworkPolicy,
  SolutionConfig,
  StepConfig,
  TaskConfig,
  VerifierConfig,
} from "./task_config_types.ts";
export {
  isSpecLayout,
  parseVerifierMode,
  resolveVerifierMode,
  VERIFIER_MODES,
  type VerifierMode,
} from "./verifier_mode.ts";
export { networkAllowed, type NetworkPlan, networkPlan } from "./network_plan.ts";
export { taskSetNotes } from "./task_set_notes.ts";
export {
  type ComposeBuild,
  type ComposeDependency,
  type ComposeHealthcheck,
  type ComposeModel,
  type ComposeMount,
  type ComposeService,
  type HarborLogMount,
} from "./compose.ts";
