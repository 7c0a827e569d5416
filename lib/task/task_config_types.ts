/** The shapes of a parsed task.toml, every default documented (parsed by `task_config.ts`). */

/** `[environment.healthcheck]`: a command that must succeed before the agent starts. */
export interface HealthcheckConfig {
  /** Shell command; exit 0 means healthy. Required. */
  command: string;
  /** Failed attempts allowed before giving up. Default 10. */
  retries: number;
  /** Seconds between attempts. Default 2. */
  intervalSec: number;
  /** Seconds one attempt may take. Default 60. */
  timeoutSec: number;
  /** Seconds after start during which failures do not count. Default 0. */
  startPeriodSec: number;
}

/** A network as task.toml states it (Harbor's `NetworkPolicy`). */
export interface NetworkPolicy {
  /** `public`, `no-network`, or `allowlist` (pgs cannot enforce one: such a phase runs with no network). */
  mode: "public" | "no-network" | "allowlist";
  /** The allowlist's hosts, normalized as Harbor does. Default []. */
  allowedHosts: string[];
}

/** `[environment]`: the image and the limits of the agent's container. */
export interface EnvironmentConfig {
  /** A prebuilt image instead of building `environment/`. Default: none. */
  dockerImage?: string;
  /** `docker --cpus`. Default 1. */
  cpus: number;
  /** `docker --memory`, in MB (Harbor's `memory = "2G"` is converted). Default 2048. */
  memoryMb: number;
  /** `docker --pids-limit`. Default 512. */
  pidsLimit: number;
  /** Network access (`network.mode` is "public"). Default false. */
  allowInternet: boolean;
  /**
   * The environment's network (Harbor's baseline: `network_mode`, `allowed_hosts`, else `allow_internet`). Default
   * no-network (Harbor's is public; see `networkUnset`).
   */
  network: NetworkPolicy;
  /**
   * The working directory, absolute, as task.toml gives it. Default: none, and then an episode uses the image's
   * WORKDIR when it sets one other than `/`, else `/workdir` (as Harbor does; see `resolveWorkdir`).
   */
  workdir?: string;
  /** `docker build` timeout in seconds. Default 600. */
  buildTimeoutSec: number;
  /** Container environment, a whole `${VAR}` or `${VAR:-default}` value already read from the host. Default {}. */
  env: Record<string, string>;
  /** Readiness check run before the agent starts. Default: none. */
  healthcheck?: HealthcheckConfig;
  /**
   * Disk bound in MB of the agent's box and every verifier box (from `storage_mb` or Harbor's `storage = "10G"`).
   * Default: the run's (`--storage-mb`, 10240); enforced where the engine can bound a box.
   */
  storageMb?: number;
  /** GPUs the container gets (`docker run --gpus N`). Default: none. */
  gpus?: number;
  /** True when the task set neither `allow_internet` nor `network_mode` (Harbor would then allow the network). */
  networkUnset: boolean;
}

/** `[verifier]`: how `tests/test.sh` runs. */
export interface VerifierConfig {
  /** `tests/test.sh` timeout in seconds. Default 120. */
  timeoutSec: number;
  /** Network access for tests run in the agent's box (`network`, else the environment's). */
  allowInternet: boolean;
  /** The verifier phase's own network (`network_mode`, `allowed_hosts`, pgs's `allow_internet`). Default: none. */
  network?: NetworkPolicy;
  /** Command run in the agent's live container whose stdout becomes `/logs/agent/capture.json`. Default: none. */
  capture?: string;
  /** Timeout of `capture` in seconds. Default 60. */
  captureTimeoutSec: number;
  /** Test environment, a whole `${VAR}` or `${VAR:-default}` value already read from the host. Default {}. */
  env: Record<string, string>;
  /** User test.sh runs as (Harbor's `str | int`). Default: root. */
  user?: string;
  /**
   * Harbor's `environment_mode` as the task gives it. Default: none, and then `separate` when `[verifier.environment]`
   * is set; otherwise pgs picks by layout (see `verifier_mode.ts`).
   */
  environmentMode?: "shared" | "separate";
  /** `[verifier.environment]`: the separate verifier's image and limits. Default: none. */
  environment?: EnvironmentConfig;
  /**
   * `[[verifier.collect]]`: commands run in the pod's services after the agent's turns, before the artifacts are
   * copied (`lib/verify/collect_hooks.ts`). Default [] (no hooks).
   */
  collect: CollectHook[];
}

/** One `[[verifier.collect]]` hook (Harbor's VerifierCollectConfig). */
export interface CollectHook {
  /** Shell command: `bash -c` in `main`, `sh -c` in a sidecar. Required. */
  command: string;
  /** The compose service it runs in. Default "main". */
  service: string;
  /** Seconds it may take. Default 60. */
  timeoutSec: number;
  /** User (name or id) it runs as. Default: the service container's own user. */
  user?: string;
}

/** `[agent]`. */
export interface AgentConfig {
  /** Agent (and oracle, in `check`) timeout in seconds. Default 900. */
  timeoutSec: number;
  /** User the tools and the oracle run as (Harbor's `str | int`). Default: the image's USER. */
  user?: string;
  /** The agent phase's network access, when `network` is set. Default: the environment's. */
  allowInternet?: boolean;
  /** The agent phase's own network (`network_mode`, `allowed_hosts`). Default: none (the environment's). */
  network?: NetworkPolicy;
}

/** One entry of Harbor's root `artifacts`: a path copied from a pod's container into a separate verifier's. */
export interface ArtifactConfig {
  /** Path in the service's container (absolute for a sidecar; a relative one is `main`'s working directory's). */
  source: string;
  /** The compose service it is copied from, when not `main`. Default: none (`main`, the agent's container). */
  service?: string;
  /** Where it lands, relative (Harbor's host layout); pgs copies to the same absolute path. Default: none. */
  destination?: string;
  /** Glob patterns left out (not applied by pgs; warned). Default []. */
  exclude: string[];
}

/** One `[[steps]]` entry of a multi-step task. */
export interface StepConfig {
  /** The step's name, which is also its folder under `steps/`. Required. */
  name: string;
  /** The step's agent timeout and user; unset values fall back to the task's `[agent]`. */
  agent: AgentConfig;
  /**
   * The step's verifier: timeout (default 600, as in Harbor), env and user (these fall back to the task's), and where
   * its tests run: `environment_mode` and `[steps.verifier.environment]` as Harbor resolves them per step
   * (`resolveStepVerifierMode`). Defaults: the task's.
   */
  verifier: {
    timeoutSec: number;
    env: Record<string, string>;
    user?: string;
    /** The step's verifier phase network (`[steps.verifier] network_mode`). Default: the task's `[verifier]`'s. */
    network?: NetworkPolicy;
    environmentMode?: "shared" | "separate";
    environment?: EnvironmentConfig;
  };
  /** Gate on the step's reward: a number (the `reward` key) or per-key minimums. Default: none. */
  minReward?: number | Record<string, number>;
  /** Paths to collect after the step (not applied by pgs; warned). Default []. */
  artifacts: ArtifactConfig[];
  /** A readiness check run after the step's setup.sh, before its agent. Default: none. */
  healthcheck?: HealthcheckConfig;
}

/** `[solution]` (Harbor's): the oracle's environment. */
export interface SolutionConfig {
  /** Environment of `solution/solve.sh`, a whole `${VAR}` or `${VAR:-default}` value already read from the host. Default {}. */
  env: Record<string, string>;
}

/** A parsed, validated task.toml with every default filled in. */
export interface TaskConfig {
  /** `schema_version` (or Harbor's legacy root `version`). Default: none. */
  schemaVersion?: string;
  /** `[task] name`, "org/name". Default: none (the loader then uses the directory name). */
  name?: string;
  /** `[task] description`, used when instruction.md is missing. Default "". */
  description: string;
  /** `[environment]`. */
  environment: EnvironmentConfig;
  /** `[verifier]`. */
  verifier: VerifierConfig;
  /** `[agent]`. */
  agent: AgentConfig;
  /** `[solution]`. */
  solution: SolutionConfig;
  /** `[metadata]`, free-form. Default {}. */
  metadata: Record<string, unknown>;
  /** Root `artifacts` (Harbor's): paths carried into a separate verifier. Default []. */
  artifacts: ArtifactConfig[];
  /** `[[steps]]`, in order; absent for a single-step task. */
  steps?: StepConfig[];
  /** How step rewards combine: `mean` over the steps that were verified, or `final`. Default "mean". */
  multiStepRewardStrategy: "mean" | "final";
  /** Non-fatal notes (unknown keys, unset variables, unenforced allowlists), already passed to `warnOnce`. */
  warnings: string[];
}
