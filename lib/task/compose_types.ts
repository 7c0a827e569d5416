/** The shapes of a parsed Compose file as pgs will run it (parsed by `compose.ts`), every default documented. */
import type { HarborLogMount } from "./compose_interpolate.ts";

/** `build`: the image of a service, built from a folder of the task. */
export interface ComposeBuild {
  /** The build context, absolute and inside the task folder. Default: the compose file's folder (`.`). */
  context: string;
  /** The Dockerfile, relative to `context` as written. Default `Dockerfile`. */
  dockerfile: string;
  /** Build arguments; a bare name takes its value from the compose variables, and is left out if unset. Default {}. */
  args: Record<string, string>;
  /** The stage to build. Default: none (the last stage). */
  target?: string;
}

/** `healthcheck`: how the engine decides the service is healthy. Durations are milliseconds. */
export interface ComposeHealthcheck {
  /**
   * The check: `exec` runs `command` as argv (`["CMD", ...]`), `shell` runs `command[0]` with `/bin/sh -c` (a string
   * test, or `["CMD-SHELL", s]`), `inherit` keeps the image's HEALTHCHECK (no `test` given), `none` turns health off
   * (`["NONE"]` or `disable: true`).
   */
  kind: "exec" | "shell" | "inherit" | "none";
  /** The argv (exec) or the one shell line (shell); [] for inherit and none. */
  command: string[];
  /** Time between checks. Default: not set, and then the image's, else Docker's 30s. */
  intervalMs?: number;
  /** Time one check may take. Default: not set, and then the image's, else Docker's 30s. */
  timeoutMs?: number;
  /** Consecutive failures that make the service unhealthy. Default: not set, and then Docker's 3. */
  retries?: number;
  /** Time after start in which failures do not count. Default: not set, and then Docker's 0s. */
  startPeriodMs?: number;
  /** Time between checks during the start period. Default: not set, and then Docker's 5s. */
  startIntervalMs?: number;
}

/** One entry of `depends_on`. */
export interface ComposeDependency {
  /** What the dependency must reach before this service starts. Default (and the list form's) `service_started`. */
  condition: "service_started" | "service_healthy" | "service_completed_successfully";
  /** Whether a dependency that cannot start fails this service (false: a warning only). Default true. */
  required: boolean;
  /** Whether this service restarts when the dependency is updated. Default false (pgs never restarts one). */
  restart: boolean;
}

/** One entry of `volumes`, short or long syntax. */
export type ComposeMount =
  | {
    /** A named volume of the file (shared by every member that names it) or, without `source`, an anonymous one. */
    type: "volume";
    /** The volume's key in the top-level `volumes:`. Default: none (an anonymous volume). */
    source?: string;
    /** The path in the container. */
    target: string;
    /** Mounted read-only (`:ro`, `read_only: true`). Default false. */
    readOnly: boolean;
    /** Do not copy the image's files at `target` into a new volume (`:nocopy`, `volume.nocopy`). Default false. */
    nocopy: boolean;
  }
  | {
    /** A host folder: one inside `environment/`, or one of Harbor's log folders (`harbor` says which). */
    type: "bind";
    /** The host path, absolute. */
    source: string;
    /** The path in the container. */
    target: string;
    /** Mounted read-only. Default false. */
    readOnly: boolean;
    /** Which of Harbor's `HOST_*_PATH` folders this is. Default: none (a folder of the task). */
    harbor?: HarborLogMount;
  }
  | {
    /** A tmpfs at `target`. */
    type: "tmpfs";
    /** The path in the container. */
    target: string;
    /** Its size in bytes (`tmpfs.size`). Default: the engine's (half the memory). */
    sizeBytes?: number;
  };

/** A service as pgs will run it, interpolated and checked. */
export interface ComposeService {
  /** The service's name (its key under `services:`), by which the others reach it. */
  name: string;
  /** The image to run (or to tag the build as). Default: none; then `build` is set (or this is `main`). */
  image?: string;
  /** How to build the image. Default: none (pull `image`). */
  build?: ComposeBuild;
  /** Overrides the image's CMD, as argv (the string form split into shell words). Default: the image's. */
  command?: string[];
  /** Overrides the image's ENTRYPOINT, as argv; [] clears it. Default: the image's. */
  entrypoint?: string[];
  /** Variables set in the container; a bare name takes its value from the compose variables. Default {}. */
  environment: Record<string, string>;
  /** Files of `KEY=VALUE` lines read into the environment, absolute paths inside the task folder. Default []. */
  envFiles: { path: string; required: boolean }[];
  /** The working directory. Default: the image's. */
  workingDir?: string;
  /** The user (`uid[:gid]` or a name). Default: the image's. */
  user?: string;
  /** The health check. Default: none given (the image's HEALTHCHECK applies, if it has one). */
  healthcheck?: ComposeHealthcheck;
  /** Services that must be started, healthy or finished first, by name. Default {}. */
  dependsOn: Record<string, ComposeDependency>;
  /** Mounts, in the file's order. Default []. */
  volumes: ComposeMount[];
  /** tmpfs mounts from `tmpfs:` (`/run` or `/run:size=64m`), as written. Default []. */
  tmpfs: string[];
  /** Run an init process as PID 1. Default false (Docker's default). */
  init: boolean;
  /** When to pull `image` (`if_not_present` is read as `missing`). Default `missing`. */
  pullPolicy: string;
  /** CPU limit, from `cpus` or `deploy.resources.limits.cpus`. Default: none. */
  cpus?: number;
  /** Memory limit in bytes, from `mem_limit` or `deploy.resources.limits.memory`. Default: none. */
  memoryBytes?: number;
  /** Process limit, from `pids_limit` or `deploy.resources.limits.pids`. Default: none. */
  pids?: number;
  /** Time between SIGTERM and SIGKILL at stop, in milliseconds. Default 10000 (Docker's 10s). */
  stopGracePeriodMs: number;
  /** Extra names this service answers to (`networks.<n>.aliases`). Default []. */
  aliases: string[];
  /** Fields the schema allows that pgs does not apply (`labels`, `restart`, `expose`, ...), sorted. Default []. */
  ignored: string[];
}

/** A parsed Compose file. */
export interface ComposeModel {
  /** The file, as given. */
  file: string;
  /** The services that run, by name (services with `profiles:` are not started by a plain `up`, so not here). */
  services: Record<string, ComposeService>;
  /** Which fields the task's `main` sets, sorted: these merge over pgs's own `main`. [] when it has no `main`. */
  mainFields: string[];
  /** The named volumes of the top-level `volumes:`. Default []. */
  volumes: string[];
  /** The service names in an order that starts every dependency before its dependents. */
  startOrder: string[];
  /** Services left out for their `profiles:`. Default []. */
  inactive: string[];
  /** Variables used without a value or a default (Compose warns and substitutes ""), sorted. Default []. */
  unsetVariables: string[];
}
