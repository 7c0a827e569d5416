/** Errors with a stable kind, so the CLI can map them to exit codes and one-line messages. */

/** A bad command line: the CLI prints it on one line and exits 2. */
export class UsageError extends Error {
  /** Always "UsageError". */
  override name = "UsageError";
}

/** A task directory that cannot be loaded: names the file, the line where known, and the field. */
export class TaskError extends Error {
  /** Always "TaskError". */
  override name = "TaskError";
  /** An error in `file`, with what is wrong and the line when known. */
  constructor(
    /** The file at fault, as given (e.g. `examples/tasks/hello/task.toml`). */
    readonly file: string,
    /** What is wrong, naming the field. */
    readonly detail: string,
    /** 1-based line in `file`, when the parser knows it. */
    readonly line?: number,
  ) {
    super(`${file}${line ? `:${line}` : ""}: ${detail}`);
  }
}

/** Docker failed in a way that is not the agent's doing (build, start, setup, healthcheck): never a reward of 0. */
export class InfraError extends Error {
  /** Always "InfraError". */
  override name = "InfraError";
  /** A failure at `stage` (build, start, setup, healthcheck, exec, ...). */
  constructor(message: string, readonly stage: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * The container engine (a Docker daemon, a podman host) stopped answering (`docker version` failed twice within its bound, or its container lifecycle
 * calls kept timing out): a run stops on it, keeping what finished, instead of recording every episode as an error.
 */
export class EngineDownError extends InfraError {
  /** Always "EngineDownError". */
  override name = "EngineDownError";
  /**
   * The engine at `engine` (a DOCKER_HOST or CONTAINER_HOST value) stopped answering during `stage`; `detail` says how
   * it showed; `kind` names the engine in the message (default "Docker").
   */
  constructor(readonly engine: string, stage: string, readonly detail: string, readonly kind = "Docker") {
    super(`the ${kind} engine at ${engine} stopped answering during ${stage} (${detail})`, stage);
  }
}

/**
 * The agent stopped its own container (e.g. `kill -9 -1` ends the init's child): the episode ends there and is
 * scored on what the container holds; never an infrastructure error, since the policy caused it.
 */
export class ContainerDeadError extends Error {
  /** Always "ContainerDeadError". */
  override name = "ContainerDeadError";
  /** Container `container` is no longer running, while its engine still answers. */
  constructor(readonly container: string, detail = "") {
    super(`container ${container} is not running${detail ? ` (${detail})` : ""}`);
  }
}

/**
 * The task's agent timeout (`[agent] timeout_sec`) ran out while the agent acted: the command running then was killed
 * with what it started, and the episode ends with `timeout` (scored, the policy's doing).
 */
export class AgentTimeoutError extends Error {
  /** Always "AgentTimeoutError". */
  override name = "AgentTimeoutError";
  /** The agent timeout of `timeoutSec` seconds ran out. */
  constructor(readonly timeoutSec: number) {
    super(`agent timed out after ${timeoutSec} s`);
  }
}
