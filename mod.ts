/**
 * pgs: train and evaluate coding agents on Harbor tasks under the dialects of real agent harnesses. Each episode
 * runs in a fresh, limited Docker container and is scored by the task's own tests in a clean container. Importing
 * this module has no side effects.
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
 * import { createStubApp, Recorder, ScriptRunner } from "@pgs/pgs";
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
export { type BuiltinAgent, type BuiltinOutcome, runBuiltin } from "./lib/builtin_agents.ts";
export { type ChannelOptions, type ExecChannel, type ExecOptions, type ExecResult, text } from "./lib/channel.ts";
export { type CheckOptions, type CheckResult, checkTask, checkTasks } from "./lib/check.ts";
export { Docker, type DockerCallOptions, type DockerResult } from "./lib/docker.ts";
export { ContainerDeadError, EngineDownError, InfraError, TaskError, UsageError } from "./lib/errors.ts";
export { type EpisodeLimits, EpisodeState, EXIT_STATUSES } from "./lib/episode_state.ts";
export { type ImageInfo, ImageStore } from "./lib/images.ts";
export type { WorkdirLayer } from "./lib/workdir_image.ts";
export { parseReward, type Reward } from "./lib/reward.ts";
export { type HarborRow, harborRows, type RowMessage, type RowsOptions, writeJsonl } from "./lib/rows.ts";
export { Sandbox, type SandboxOptions, type StartTimings } from "./lib/sandbox.ts";
export { findTasks, loadTask, type Task, type TaskPaths, type TaskStep } from "./lib/task.ts";
export { combineSteps, passesGate, startStep, type StepOutcome, type StepsScore } from "./lib/steps.ts";
export { type ExportedTask, exportSteps } from "./lib/export_steps.ts";
export {
  type AgentConfig,
  type ArtifactConfig,
  type EnvironmentConfig,
  type HealthcheckConfig,
  parseTaskConfig,
  type SolutionConfig,
  type StepConfig,
  type TaskConfig,
  type VerifierConfig,
} from "./lib/task_config.ts";
export { verify, type VerifyOptions, type VerifyResult } from "./lib/verifier.ts";
export type { VerifierBox } from "./lib/verifier_container.ts";
export {
  isSpecLayout,
  parseVerifierMode,
  resolveVerifierMode,
  VERIFIER_MODES,
  type VerifierMode,
} from "./lib/verifier_mode.ts";
export { DEFAULT_WORKDIR, dockerfileWorkdir, effectiveWorkdir, taskWorkdir } from "./lib/workdir.ts";
export { setWarningSink } from "./lib/warn.ts";
export { DEFAULT_SYSTEM_PROMPT, defaultSystemPrompt } from "./profiles/palingenesis_default.ts";
export { type EnvRow, type EpisodeReward, HarborEnv, type HarborEnvOptions, HarborEpisode } from "./lib/harbor_env.ts";
export { drawProfile } from "./lib/harness/draw.ts";
export {
  type AssistantTurn,
  type EpisodeCounters,
  fillTemplate,
  ProfileEpisode,
  type StepResult,
} from "./lib/harness/episode.ts";
export { loadProfilesModule } from "./lib/harness/load_module.ts";
/** The closed set of container ops profile tools run: exec, read, write, replace, list, glob, grep, ... */
export * as ops from "./lib/harness/ops.ts";
export { type ExecOpOptions, type ExecOut, OpError, type OpErrorKind } from "./lib/harness/ops.ts";
export { getProfile, type ProfileFactory, profileNames, register, resolveProfileName } from "./lib/harness/registry.ts";
export { Session } from "./lib/harness/session.ts";
export { headLines, headTailChars, middleClip, tailLines } from "./lib/harness/truncate.ts";
export {
  type DockerHostOptions,
  type Engine,
  rowIds,
  runEpisodes,
  type RunEpisodesOptions,
} from "./lib/eval/run_episodes.ts";
export { EpisodeAborted, type EpisodeJob, type EpisodeRunOptions, runEpisode } from "./lib/eval/episode_runner.ts";
export {
  functionPolicy,
  oraclePolicy,
  type Policy,
  PolicyError,
  type PolicyFn,
  type PolicyRequest,
  type PolicyTurn,
  type Sampling,
  scriptPolicy,
  type TurnTokens,
} from "./lib/eval/policy.ts";
export { type EndpointOptions, endpointPolicy } from "./lib/eval/endpoint_policy.ts";
export {
  type ExitStatus,
  latestById,
  readTrajectories,
  type RolloutDetail,
  type Trajectory,
  TRAJECTORY_FORMAT,
  TrajectoryWriter,
} from "./lib/eval/trajectory.ts";
export { type PassStats, summarize, type Summary, SUMMARY_FORMAT, type TaskSummary } from "./lib/eval/summary.ts";
export { reportHtml } from "./lib/eval/report_html.ts";
export { buildConfig, type EvalConfig, type RawConfig, readConfigFile } from "./lib/eval/config.ts";
export { Semaphore } from "./lib/eval/semaphore.ts";
export { Progress } from "./lib/eval/progress.ts";
export { type EvalHooks, type EvalResult, evaluate } from "./lib/eval/eval_run.ts";
export { loadRows, parseRows } from "./lib/eval/load_rows.ts";
export { createEnvServer, type EnvServer, type EnvServerOptions } from "./lib/env_server/app.ts";
export { createStubApp, type StubOptions } from "./stub/app.ts";
export {
  type Advance,
  parseScript,
  type Reply,
  type ReplyToolCall,
  ScriptRunner,
  type ScriptToolCall,
  type Turn,
} from "./stub/script.ts";
export type { HttpApp } from "./lib/http_app.ts";
export { Recorder } from "./stub/recorder.ts";
export { type RunningStub, startStub, type StubServeOptions } from "./stub/server.ts";
export {
  type AnswerRule,
  type ChatMessage,
  type Emulates,
  fnSchema,
  type HarnessProfile,
  type KeyCommand,
  type ParsedCall,
  type Protocol,
  type StopRule,
  type TerminalHooks,
  type TextPart,
  type ToolCall,
  type ToolMessageKey,
  type ToolOutput,
  type ToolSchema,
  type ToolSpec,
} from "./lib/harness/types.ts";
