/**
 * The seam under every layer above `lib/runtime/`: a `Runtime` is one container engine (a Docker daemon, a podman
 * host, ...) that resolves and builds images, starts boxes from them with limits, labels and env, and sweeps what
 * its own dead processes left; a `Box` is one running container of it, with one-shot and long-lived execs (the exec
 * channel runs on the latter), tar copies in and out, a snapshot, and removal. Every call is bounded. The episode
 * `Sandbox`, the verifier modes, steps, the oracle and `HarborEnv` use nothing else, so a runtime is one folder
 * under `lib/runtime/` plus a line in `registry.ts`.
 */
import type { ByteReader } from "../base/byte_reader.ts";
import { type EngineDownError, InfraError } from "../base/errors.ts";

/** What a finished one-shot command (an exec in a box) returned; it never throws on a non-zero exit. */
export interface ProcResult {
  /** The command's exit code (the engine CLI's own code when it failed before running it). */
  code: number;
  /** Stdout as written. */
  stdout: Uint8Array;
  /** Stderr decoded and trimmed. */
  stderr: string;
  /** Stderr as written (not decoded, not trimmed). */
  stderrRaw: Uint8Array;
  /** True when the command was killed at its bound. */
  timedOut: boolean;
}

/** A long-lived process in a box with piped stdio; `Deno.ChildProcess` is one (a CLI such as `docker exec -i`). */
export interface ExecProcess {
  /** The process's stdin (piped only when asked for). */
  readonly stdin: WritableStream<Uint8Array>;
  /** The process's stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The process's stderr. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves when the process ended. */
  readonly status: Promise<{ success: boolean; code: number }>;
  /** Kills the process (and, for a CLI, the exec it drives). */
  kill(signal?: Deno.Signal): void;
}

/** Success, or a one-line reason that names what failed (the engine's own words at the end). */
export type Done = { ok: true } | { ok: false; error: string };

/** How one command runs in a box. */
export interface BoxExecOptions {
  /** User name or `uid[:gid]` (default: the box's user, i.e. the image's USER unless the box was started as another). */
  user?: string;
  /** Directory the command starts in (default: the box's working directory). */
  workdir?: string;
  /** Extra environment (default none). */
  env?: Record<string, string>;
  /** Bytes or a stream fed to the command's stdin (default: none, stdin closed). */
  stdin?: Uint8Array | ReadableStream<Uint8Array>;
  /** Kill the command after this many milliseconds (default 120 000). */
  timeoutMs?: number;
}

/** Whether a box runs: `stopped` when the engine knows it ended, `unknown` when the engine cannot say (gone, down). */
export interface BoxState {
  /** What the engine said. */
  status: "running" | "stopped" | "unknown";
  /** The engine's words when `unknown`. */
  detail: string;
  /** The main process's exit code when `stopped` (default: not reported). */
  exitCode?: number;
}

/** A tar stream read out of a box; `done` tells whether the whole tree came. */
export interface ArchiveRead {
  /** The archive (its first component is the path's basename, as `docker cp CONTAINER:PATH -` writes it). */
  readonly stream: ReadableStream<Uint8Array>;
  /** Settles after the stream ended; `missing` when the path does not exist in the box. */
  readonly done: Promise<Done & { missing?: boolean }>;
  /** Stops the read early. */
  cancel(): void;
}

/** One running container of a runtime. Removing it twice is harmless. */
export interface Box {
  /** The engine's id of the box (unique on its engine). */
  readonly id: string;
  /** The runtime the box runs on. */
  readonly runtime: Runtime;
  /** Runs `argv` to completion (`docker exec`); never throws on a non-zero exit. */
  exec(argv: string[], opts?: BoxExecOptions): Promise<ProcResult>;
  /**
   * Starts `argv` as a long-lived process with piped stdio and no bound (the exec channel and its killer bound each
   * command themselves); `stdin` false closes its stdin.
   */
  spawn(argv: string[], opts?: { user?: string; workdir?: string; stdin?: boolean }): ExecProcess;
  /** Extracts the tar `archive` into folder `parent` of the box, keeping the archive's owners and modes. */
  putArchive(parent: string, archive: Uint8Array | ReadableStream<Uint8Array>, timeoutMs?: number): Promise<Done>;
  /** Reads `path` out of the box as a tar stream (killed at `timeoutMs`). */
  getArchive(path: string, timeoutMs?: number): ArchiveRead;
  /** Whether the box runs; EngineDownError is the caller's to raise (`assertAnswering`) on `unknown`. */
  state(): Promise<BoxState>;
  /** Starts a stopped box again (its main process anew, its files as they were). */
  restart(): Promise<Done>;
  /** Commits the box's files into a new image tagged `tag` (for the `snapshot` verifier; removed with `removeImage`). */
  snapshot(tag: string): Promise<Done>;
  /** Removes the box and its anonymous volumes; false when it could not (it is then retried at exit). */
  remove(): Promise<boolean>;
  /**
   * Gives the box the network (the runtime's public network) or takes it away, between phases; a box that starts
   * without it must have been started `switchable` to be given it.
   */
  setNetwork(allow: boolean): Promise<Done>;
  /** The main process's pipe, when the box was started tied to one (`BoxSpec.pipe`); undefined otherwise. */
  readonly main?: BoxPipe;
  /** The last `lines` lines the main process wrote (stdout and stderr), for messages; "" when the engine cannot say. */
  logs(lines: number): Promise<string>;
  /** The host path of the box's `/etc/hosts` as its engine sees it (a pod member shares it); undefined if unknown. */
  hostsPath(): Promise<string | undefined>;
}

/** A mount of a pod member: a named volume of the engine, a host folder or file, or a tmpfs. */
export type BoxMount =
  | {
    /** A volume made with `Runtime.createVolume`. */
    type: "volume";
    /** The volume's engine name. */
    source: string;
    /** The path in the box. */
    target: string;
    /** Read-only (default false). */
    readOnly?: boolean;
    /** Do not copy the image's files at `target` into the volume (default false). */
    nocopy?: boolean;
  }
  | {
    /** A host path (on the engine's host). */
    type: "bind";
    /** The host path, absolute. */
    source: string;
    /** The path in the box. */
    target: string;
    /** Read-only (default false). */
    readOnly?: boolean;
  }
  | {
    /** A tmpfs. */
    type: "tmpfs";
    /** The path in the box. */
    target: string;
    /** Its size in bytes (default: the engine's). */
    sizeBytes?: number;
  };

/**
 * The stdin and stdout of a box's main process, held by pgs (`run -i --rm`, attached). The box lives as long as the
 * pipe: closing it (`Box.remove`) ends the main process and the engine removes the box; a pgs killed outright
 * closes it too, so nothing is left running.
 */
export interface BoxPipe {
  /** The ready line the main process printed (it starts with `BoxSpec.pipe.ready`). */
  readonly hello: string;
  /** Set while the main process runs work that closing its stdin would not end (removal then kills the box). */
  busy: boolean;
  /** True when the engine removes the box once its main process ends (`run --rm`); false for `pipe.keep`. */
  readonly removedWithPipe: boolean;
  /** The main process's stdout, past its ready line. */
  readonly reader: ByteReader;
  /** The main process's stdin. */
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Resolves when the engine's CLI attached to the box exited (with `--rm`: once the box is removed). */
  readonly status: Promise<{ success: boolean; code: number }>;
  /**
   * Keeps the process alive while a request is in flight on the pipe; call the returned function when it is over.
   * An idle tied box does not keep its process from exiting (its exit removes it, as the pipe closes).
   */
  hold(): () => void;
}

/** The resources a box may use. */
export interface BoxLimits {
  /** CPUs (fractional allowed). */
  cpus: number;
  /** Memory in MB; swap is off. */
  memoryMb: number;
  /** Most processes at once. */
  pidsLimit: number;
  /** GPUs to pass through (default none; check `gpuProblem` first). */
  gpus?: number;
  /** Whether the box reaches the network (default false: no network at all). */
  network?: boolean;
  /**
   * The box's network may be switched later (`Box.setNetwork`; default false). An engine that cannot give a box
   * started without network any (podman) starts it on its public network and takes that away before returning it.
   */
  switchable?: boolean;
  /**
   * The most its writable layer may hold, in MB, the image's own bytes included on btrfs (default none); applied
   * where the engine can bound a box's disk (`Runtime.diskBoundProblem`), said once per run where it cannot.
   */
  storageMb?: number;
}

/** What to start. The runtime adds its hygiene labels (owner host, pid, run) to `role` and `task`. */
export interface BoxSpec {
  /** Image reference. */
  image: string;
  /**
   * Join this box's network namespace and `/etc/hosts` (a pod's later member: it reaches the others over loopback);
   * the joining box takes no network of its own. Default: a namespace of its own.
   */
  joins?: Box;
  /** Names that resolve to 127.0.0.1 in the box (`/etc/hosts`; a pod's first member, shared with those joining it). */
  hosts?: string[];
  /** Volumes, host paths and tmpfs mounted in the box (default none). */
  mounts?: BoxMount[];
  /** Run under an init that reaps zombies (default true; a task's sidecar keeps Compose's default, false). */
  init?: boolean;
  /**
   * The image's ENTRYPOINT replaced by this argv (`[]` clears it), `command` then being its arguments; overrides
   * `replaceEntrypoint`. Default: the image's.
   */
  entrypoint?: string[];
  /** Stop grace period in seconds (`--stop-timeout`; default the engine's). */
  stopTimeoutSec?: number;
  /** More labels (a pod's id, a member's service); the hygiene labels are always added. Default none. */
  labels?: Record<string, string>;
  /** Limits; the box also runs under an init that reaps zombies. */
  limits: BoxLimits;
  /** What the box is for (`episode`, `verifier`, ...), as a label. */
  role: string;
  /** The task's name, as a label. */
  task: string;
  /** Environment of the main process and of every exec (default none). */
  env?: Record<string, string>;
  /** The working directory, made when the image lacks it ("": the image's own). */
  workdir: string;
  /** User of the main process and default user of execs (default: the image's USER). */
  user?: string;
  /**
   * The main process, which must idle until the box is removed (a pod's sidecar runs its service). With
   * `replaceEntrypoint` its first word replaces the image's ENTRYPOINT; otherwise it is the CMD after the image's
   * ENTRYPOINT (default false); `[]` keeps the image's CMD.
   */
  command: string[];
  /** See `command` (default false). */
  replaceEntrypoint?: boolean;
  /** Keep the main process's stdin open (default false). */
  stdinOpen?: boolean;
  /** What a failure of the start is reported as (InfraError's stage; default "start"). */
  stage?: string;
  /**
   * Tie the box to a pipe pgs holds (default: not tied, the box runs detached until removed): `command` runs
   * attached with its stdin open and must first print a line that starts with `ready`; the box is then `Box.main`'s,
   * and the engine removes it once that process ends.
   */
  pipe?: {
    /** The start of the ready line. */
    ready: string;
    /** The box outlives its main process (no `--rm`): its files stay for the verifier, and removal is an `rm`. */
    keep?: boolean;
  };
}

/** What an image says about itself. */
export interface ImageFacts {
  /** The engine's image id. */
  id: string;
  /** The architecture as Docker names it (`amd64`, `arm64`, ...; "" when unknown). */
  arch: string;
  /** Its USER ("" is root). */
  user: string;
  /** Its WORKDIR ("" when it sets none). */
  workdir: string;
  /** Paths its VOLUMEs cover (a snapshot or commit leaves them out). */
  volumes: string[];
  /** Whether it sets an ENTRYPOINT (a box's command then runs as its arguments). */
  entrypoint: boolean;
  /** Its HEALTHCHECK, as Docker stores it (default: none set). */
  healthcheck?: ImageHealthcheck;
}

/** An image's HEALTHCHECK: `test` in Docker's form (`["CMD", ...]`, `["CMD-SHELL", line]`, `["NONE"]`). */
export interface ImageHealthcheck {
  /** The check. */
  test: string[];
  /** Between checks, ms (default: Docker's 30 s). */
  intervalMs?: number;
  /** One check's bound, ms (default: Docker's 30 s). */
  timeoutMs?: number;
  /** Failures in a row that make it unhealthy (default: Docker's 3). */
  retries?: number;
  /** Grace after start, ms (default 0). */
  startPeriodMs?: number;
}

/** What a build may say beyond its context (Compose's `build:`). */
export interface BuildOptions {
  /** The Dockerfile, relative to the context (default `Dockerfile`). */
  dockerfile?: string;
  /** `--build-arg`s (default none). */
  args?: Record<string, string>;
  /** The stage to build (default: the last). */
  target?: string;
}

/** The outcome of an image build. */
export type BuildOutcome = { ok: true } | { ok: false; timedOut: boolean; stderr: string };

/** A box that would not start (InfraError at `BoxSpec.stage`): the message ends with the engine's last line. */
export class BoxStartError extends InfraError {
  /** A start failure at `stage`; `detail` is the engine's whole message. */
  constructor(message: string, stage: string, readonly detail: string) {
    super(message, stage);
  }
}

/** One container engine reached by pgs. Every method is bounded; after `down` is set, every call fails with it. */
export interface Runtime {
  /** The runtime's registry name (`docker`, `podman`, ...). */
  readonly kind: string;
  /** The engine's address in messages (a DOCKER_HOST value, a context, ...). */
  readonly engine: string;
  /** The engine's address as configured (undefined: the environment's default). */
  readonly host?: string;
  /** Set once the engine was found not answering. */
  readonly down: EngineDownError | undefined;

  /** True when the engine answers a probe within its bound (10 s for Docker); never throws. */
  ping(): Promise<boolean>;
  /** Throws EngineDownError (and sets `down`) when the engine fails its probe twice; `stage` says what was going on. */
  assertAnswering(stage: string): Promise<void>;

  /** The image's facts, or undefined when the engine does not hold it. */
  inspectImage(ref: string): Promise<ImageFacts | undefined>;
  /** Pulls `ref` from its registry; false when it cannot be had within `timeoutMs`. */
  pullImage(ref: string, timeoutMs: number): Promise<boolean>;
  /** Builds `contextDir` (its `Dockerfile`) into `tag`, killed at `timeoutMs`; leaves no intermediate container. */
  buildImage(contextDir: string, tag: string, timeoutMs: number, opts?: BuildOptions): Promise<BuildOutcome>;
  /**
   * Makes image `tag` from `base` plus the tar `archive` extracted at `/` (the episode image with its workdir baked
   * in), keeping `base`'s config; `task` labels its transient container.
   */
  commitArchive(base: string, archive: Uint8Array, tag: string, task: string): Promise<Done>;
  /** Removes an image (a snapshot); never throws. */
  removeImage(ref: string): Promise<void>;
  /** Why boxes cannot have GPUs here (one line), or undefined when they can. */
  gpuProblem(): Promise<string | undefined>;
  /**
   * Why this engine cannot bound a box's disk (`BoxLimits.storageMb`), as one line naming the engine and its storage
   * driver, or undefined when it can; asked once per engine. A box asked to be bounded here starts unbounded.
   */
  diskBoundProblem(): Promise<string | undefined>;

  /** Starts a box; on failure nothing is left and it throws (BoxStartError at `spec.stage`, EngineDownError). */
  start(spec: BoxSpec): Promise<Box>;
  /** A handle on box `id` of this engine, not tracked (looking up a box this process did not start, in tests). */
  box(id: string): Box;
  /** Makes a named volume labelled as this process's, for `task` (a pod's shared volume); returns its engine name. */
  createVolume(task: string): Promise<string>;
  /** Removes volumes made by `createVolume` (their boxes removed first); false when one stayed. Never throws. */
  removeVolumes(names: string[]): Promise<boolean>;
  /**
   * Removes boxes left on this host by pgs processes that are gone, and then their volumes; once per runtime per
   * process. Returns the boxes' ids.
   */
  sweepOrphans(): Promise<string[]>;
  /** Removes every box this process started on this engine (tracked, or labelled with this run), asynchronously. */
  removeOwn(): Promise<void>;
  /** Removes every tracked box synchronously (process exit); skips an engine found down. */
  removeOwnSync(): void;
  /** Ids of boxes this process started here and has not removed. */
  tracked(): string[];
}

/** Options every runtime factory takes. */
export interface RuntimeOptions {
  /** The engine's address (DOCKER_HOST, CONTAINER_HOST, ...); default: the environment's. */
  host?: string;
  /** The network a box allowed the network joins (default: the engine's default, Docker's `bridge`, podman's `podman`). */
  network?: string;
}

/** One registered runtime. */
export interface RuntimeEntry {
  /** One line on what it drives (for `--help` and errors). */
  description: string;
  /** A client of the engine `opts.host` names (default: the environment's). */
  create(opts: RuntimeOptions): Runtime;
}
