/**
 * pgs: train and evaluate coding agents on Harbor tasks under the dialects of real agent harnesses. Each episode
 * runs in a fresh, limited Docker container and is scored by the task's own tests in a clean container. Importing
 * this module registers the built-in profiles in pgs's own registry (`profiles`) and does nothing else: no signal
 * handlers, no I/O, no engine calls.
 *
 * This entry is the API for running and scoring: tasks, checks, rows, the environment, the runner and its policies,
 * summaries. The rest lives behind subpaths: `@pgs/pgs/harness` (writing profiles: types, ops, the turn engine,
 * provenance), `@pgs/pgs/runtime` (Docker, the sandbox, `ExecEnv` and the local runtime) and `@pgs/pgs/stub` (the
 * scripted, recording endpoint).
 *
 * @example Check a task set: the oracle must pass, doing nothing must fail
 * ```ts
 * import { checkTasks, findTasks } from "@pgs/pgs";
 * const results = await checkTasks(await findTasks("examples/tasks/count-error-lines"));
 * if (!results.every((r) => r.valid)) throw new Error("invalid task");
 * ```
 *
 * @example Evaluate: k samples per task under a profile mix, with any policy
 * ```ts
 * import { harborRows, oraclePolicy, runEpisodes, summarize } from "@pgs/pgs";
 * const rows = await harborRows("examples/tasks/count-error-lines");
 * const groups = await runEpisodes(oraclePolicy(), rows, { profiles: { opencode: 1, pi: 1 } }, { k: 2 });
 * const summary = summarize(groups.flat(), { k: 2 });
 * if (summary.overall["pass@1"] !== 1) throw new Error(JSON.stringify(summary.profiles));
 * ```
 *
 * @example Drive an episode turn by turn, as a trainer does
 * ```ts
 * import { HarborEnv } from "@pgs/pgs";
 * const env = new HarborEnv({ profile: "pi" });
 * const ep = await env.reset({ task_dir: "examples/tasks/count-error-lines" }, 0);
 * // ep.firstMessages and ep.tools go to the model; its turns come back through step().
 * const call = { id: "c1", type: "function" as const, function: { name: "bash", arguments: '{"command":"ls"}' } };
 * const { observations } = await ep.step({ content: null, tool_calls: [call] });
 * if (!String(observations[0].content).includes("app.log")) throw new Error("no listing");
 * await ep.step({ content: "Answer: 35" });
 * const { reward } = await ep.finish(); // verifier in a clean container; containers removed
 * if (reward !== 1) throw new Error(`reward ${reward}`);
 * ```
 *
 * @example A scripted OpenAI-compatible endpoint, in process
 * ```ts
 * import { createStubApp, Recorder, ScriptRunner } from "@pgs/pgs/stub";
 * const recorder = await Recorder.open(await Deno.makeTempFile());
 * const app = createStubApp({ script: new ScriptRunner([{ content: "Hello." }]), recorder, model: "m" });
 * const res = await app.request("/v1/chat/completions", {
 *   method: "POST",
 *   body: JSON.stringify({ messages: [{ role: "user", content: "Hi" }], tools: [{ type: "function" }] }),
 * });
 * const body = await res.json();
 * if (body.choices[0].message.content !== "Hello.") throw new Error("unexpected reply");
 * await recorder.close();
 * ```
 *
 * @module
 */
export {
  AgentTimeoutError,
  ContainerDeadError,
  EngineDownError,
  InfraError,
  TaskError,
  UsageError,
} from "./lib/base/errors.ts";
export { setWarningSink } from "./lib/base/warn.ts";
export {
  type AgentConfig,
  type ArtifactConfig,
  type CollectHook,
  type ComposeBuild,
  type ComposeDependency,
  type ComposeHealthcheck,
  type ComposeModel,
  type ComposeMount,
  type ComposeService,
  type EnvironmentConfig,
  findTasks,
  type HarborLogMount,
  type HealthcheckConfig,
  isSpecLayout,
  loadTask,
  networkAllowed,
  type NetworkPlan,
  networkPlan,
  type NetworkPolicy,
  parseTaskConfig,
  parseVerifierMode,
  resolveVerifierMode,
  type SolutionConfig,
  type StepConfig,
  type Task,
  type TaskConfig,
  type TaskPaths,
  type TaskStep,
  VERIFIER_MODES,
  type VerifierConfig,
  type VerifierMode,
} from "./lib/task/mod.ts";
export {
  createRuntime,
  Docker,
  type ImageInfo,
  ImageStore,
  registerRuntime,
  type Runtime,
  Sandbox,
  type SandboxOptions,
} from "./lib/runtime/mod.ts";
export {
  EpisodeVerifier,
  type Neutralised,
  parseReward,
  type Reward,
  startBoxes,
  type VerifierBox,
  type VerifierOptions,
  verify,
  type VerifyOptions,
  type VerifyResult,
} from "./lib/verify/mod.ts";
export { type Boxes, type StartOptions, WarmPool, type WarmPoolOptions } from "./lib/env/warm_pool.ts";
export {
  type CheckAgent,
  type CheckJob,
  type CheckOptions,
  type CheckOutcome,
  type CheckResult,
  checkTask,
  checkTasks,
  DEFAULT_CHECK_WORKERS,
} from "./lib/harbor/check.ts";
export {
  AUDIT_MODES,
  type AuditAgent,
  type AuditJob,
  type AuditOptions,
  type AuditResult,
  auditTasks,
  BATTERY,
  type Exploit,
  type ExploitOutcome,
  exploitPolicy,
  type Finding,
  HINTS,
  type KeyFile,
  type ModeVerdict,
  type TaskFacts,
} from "./lib/harbor/audit/mod.ts";
export { type HarborRow, harborRows, type RowMessage, type RowsOptions } from "./lib/harbor/rows.ts";
export { type ExportedTask, exportSteps } from "./lib/harbor/export_steps.ts";
export {
  createEnvServer,
  type EnvRow,
  type EnvServer,
  type EnvServerOptions,
  type EpisodeOwner,
  type EpisodeReward,
  type EpisodeTimings,
  HarborEnv,
  type HarborEnvOptions,
  HarborEpisode,
  TokenEpisode,
  type TokenModeOptions,
  type TokenStepResult,
} from "./lib/env/mod.ts";
export { BUILTIN_PROFILES, DEFAULT_SYSTEM_PROMPT, defaultSystemPrompt, registerBuiltins } from "./profiles/mod.ts";
export {
  type ChatMessage,
  type DialectChange,
  drawProfile,
  EXIT_STATUSES,
  type ExitStatus,
  getProfile,
  type HarnessProfile,
  type LoadedOverlay,
  loadProfilesModule,
  type ModelDialects,
  type ModelMatch,
  type ModelRule,
  NO_PROFILE_DIALECT,
  type Overlay,
  type OverlayRef,
  type ProfileEntry,
  type ProfileFactory,
  profileNames,
  ProfileRegistry,
  profiles,
  readOverlay,
  register,
  resolveProfileName,
  type ToolCall,
  type ToolSchema,
  type TurnFlag,
  withHarnessModel,
  withOverlay,
} from "./lib/harness/mod.ts";
export {
  crossRows,
  type DockerHostOptions,
  type Engine,
  rowIds,
  runEpisodes,
  type RunEpisodesOptions,
} from "./lib/eval/run_episodes.ts";
export {
  EpisodeAborted,
  type EpisodeJob,
  type EpisodeRunOptions,
  runEpisode,
  type StartGate,
} from "./lib/eval/episode_runner.ts";
export { lossMask } from "./lib/eval/episode_record.ts";
export {
  functionPolicy,
  nopPolicy,
  oraclePolicy,
  type Policy,
  PolicyError,
  type PolicyFn,
  type PolicyRequest,
  type PolicyTurn,
  type Sampling,
  scriptPolicy,
  type TurnTokens,
} from "./lib/policies/policy.ts";
export { type EndpointOptions, endpointPolicy } from "./lib/policies/endpoint_policy.ts";
export {
  DEFAULT_TOKEN_MAX_TOKENS,
  type SampledTokens,
  TOKEN_APIS,
  type TokenApi,
  tokenPolicy,
  type TokenPolicyOptions,
} from "./lib/policies/token_policy.ts";
export {
  type DecodedTurn,
  type Delta,
  loadTokenModel,
  type ParsedCall,
  type ParsedCompletion,
  REASONING_PARSERS,
  type ReasoningParser,
  reasoningParser,
  type RenderOptions,
  TokenIdError,
  TokenModel,
  type TokenModelFiles,
  TokenSession,
  type TokenSessionOptions,
  TOOL_PARSERS,
  type ToolParser,
  toolParser,
} from "./lib/tokens/mod.ts";
export {
  latestById,
  readTrajectories,
  type RolloutDetail,
  type Trajectory,
  TRAJECTORY_FORMAT,
  TrajectoryWriter,
  type WorkdirCut,
  type WorkdirDiff,
  type WorkdirFileChange,
} from "./lib/eval/records/trajectory.ts";
export {
  type GridCell,
  type GroupPassAtK,
  type PassStats,
  summarize,
  type Summary,
  SUMMARY_FORMAT,
  type TaskSummary,
} from "./lib/eval/records/summary.ts";
export {
  type CellStats,
  type CurvePoint,
  type EpisodeTokens,
  type LiveOptions,
  passAtK,
  type ProfileFigures,
  reportHtml,
  type ReportOptions,
  type RunStats,
  runStats,
  RunWatch,
  serveView,
  type TurnsBin,
  type TurnTokenCounts,
  VIEWER_DATA_FORMAT,
  type ViewerData,
  viewerData,
  type ViewerEpisode,
  viewerHtml,
  type ViewServer,
  type ViewServerOptions,
} from "./lib/report/mod.ts";
export { readRunInfo, readRunTrajectories, type RunHeader, type RunInfo } from "./lib/eval/records/run_dir.ts";
export {
  buildConfig,
  type EvalConfig,
  type PolicyConfig,
  type RawConfig,
  readConfigFile,
  type SlurmSettings,
  type TokenModeConfig,
} from "./lib/eval/config.ts";
export {
  type EvalHooks,
  type EvalJob,
  type EvalJobsContext,
  type EvalResult,
  evaluate,
  type ProgressSink,
} from "./lib/eval/eval_run.ts";
export { loadRows, parseRows } from "./lib/eval/load_rows.ts";
export * from "./lib/export/mod.ts";

import { registerBuiltins as registerBuiltinProfiles } from "./profiles/mod.ts";
registerBuiltinProfiles();
