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
