/**
 * The seam between the harness and where commands run: an `ExecEnv` is a working directory plus `exec`. Episodes use
 * the `Sandbox`, a box of any `Runtime` (runtime.ts); `LocalExecEnv` runs in a temp folder on the host (tests of tool
 * wording that need no container semantics). `docs/runtimes.md` says how another runtime plugs in.
 */

/** How one command runs. */
export interface ExecOptions {
  /** `sh` runs `/bin/sh`, `bash` runs `bash -l` (falls back to /bin/sh when the image has no bash). Default `bash`. */
  shell?: "sh" | "bash";
  /** Working directory (default: the channel's, i.e. the task's workdir). */
  cwd?: string;
  /** Seconds before the command's process group is killed (default 600). */
  timeoutSec?: number;
  /** Bytes kept per stream; the rest is counted, not sent (default 1 MiB). */
  maxOutputBytes?: number;
  /** Send stderr into stdout, interleaved as written (default false). */
  mergeStderr?: boolean;
}

/** What a command produced. */
export interface ExecResult {
  /** The command's exit code; 137 when killed at its timeout, 255 when the channel died while it ran. */
  exitCode: number;
  /** Standard output, up to the cap. */
  stdout: Uint8Array;
  /** Standard error, up to the cap (empty when merged into stdout). */
  stderr: Uint8Array;
  /** Bytes the command wrote to stdout, including any past the cap. */
  stdoutBytes: number;
  /** Bytes the command wrote to stderr, including any past the cap. */
  stderrBytes: number;
  /** True when the command was killed at its timeout. */
  timedOut: boolean;
  /** Wall time of the command in milliseconds. */
  durationMs: number;
}

/** Somewhere an episode's commands run. */
export interface ExecEnv {
  /** A stable, unique id (names per-episode state, such as the persistent shell's files). */
  readonly id: string;
  /** The working directory commands start in. */
  readonly workdir: string;
  /** A scratch folder private to this environment ("/tmp" in a container). */
  readonly scratch: string;
  /** Set when a command found the environment stopped by the agent (the episode then ends `container_dead`). */
  dead: boolean;
  /** Runs a script as the agent's user, in the working directory unless `cwd` says otherwise. */
  exec(script: string, opts?: ExecOptions): Promise<ExecResult>;
}
