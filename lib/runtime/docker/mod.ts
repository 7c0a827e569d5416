/**
 * Docker as a `Runtime`, through the `docker` CLI; the CLI driver and its argv are parameterised by a `CliEngine` so
 * that another docker-like CLI reuses them. Only `lib/runtime/` imports this folder.
 * @module
 */
export { Docker } from "./docker.ts";
export { type BoxEngine, DockerBox } from "./box.ts";
export { DEFAULT_CALL_MS, type DockerCallOptions, DockerCli, type DockerResult, lastWords } from "./cli.ts";
export { type CliEngine, DOCKER_ENGINE } from "./engine.ts";
export { envArgs, execArgs, labelArgs, limitArgs, runArgs } from "./args.ts";
export { DockerHygiene } from "./hygiene.ts";
