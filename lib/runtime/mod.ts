/**
 * Where episodes run: the `Runtime` interface and its registry (Docker in `docker/`), images, the episode `Sandbox`
 * with its fast exec channel, box hygiene, and the `ExecEnv` seam the harness sees (`LocalExecEnv` runs on the host).
 * @module
 */
export type {
  ArchiveRead,
  Box,
  BoxExecOptions,
  BoxLimits,
  BoxMount,
  BoxPipe,
  BoxSpec,
  BoxState,
  BuildOptions,
  BuildOutcome,
  Done,
  ExecProcess,
  ImageFacts,
  ImageHealthcheck,
  ProcResult,
  Runtime,
  RuntimeOptions,
} from "./runtime.ts";
export { BoxStartError } from "./runtime.ts";
export { ByteReader } from "../base/byte_reader.ts";
export {
  createRuntime,
  DEFAULT_RUNTIME,
  registerRuntime,
  type RuntimeEntry,
  runtimeEntry,
  runtimeNames,
} from "./registry.ts";
export {
  type BoxEngine,
  type CliEngine,
  Docker,
  DOCKER_ENGINE,
  DockerBox,
  type DockerCallOptions,
  DockerCli,
  DockerHygiene,
  type DockerResult,
} from "./docker/mod.ts";
export type { ExecEnv, ExecOptions, ExecResult } from "./exec_env.ts";
export { type LocalEnvOptions, LocalExecEnv } from "./local_env.ts";
export { type ChannelOptions, ExecChannel, shQuote, text } from "./channel.ts";
export { Sandbox, type SandboxOptions, type StartTimings } from "./sandbox.ts";
export { type ImageInfo, ImageStore } from "./images.ts";
export { healthcheckOf, Pod, POD_LABELS } from "./pod.ts";
export type { PodBudget } from "./pod_budget.ts";
export { podManifest, type PodManifestInput, podManifestYaml } from "./kube_manifest.ts";
export type { WorkdirLayer } from "./workdir_image.ts";
export { DEFAULT_WORKDIR, dockerfileWorkdir, effectiveWorkdir, taskWorkdir } from "./workdir.ts";
export { removeOwnContainers, trackedContainers } from "./hygiene.ts";
