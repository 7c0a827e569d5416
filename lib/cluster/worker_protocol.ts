/**
 * The wire of a pgs worker (`pgs worker`), JSON over HTTP under `/v1`: the runner posts one episode at a time
 * (`POST /v1/episodes`, an `EpisodeRequest`) and gets its `Trajectory` back, with `node` set; `GET /v1/health` says
 * the worker's node, capacity and load. Every request carries `Authorization: Bearer <the run's token>`.
 *
 * The settings are plain JSON: a worker rebuilds the policy, the overlays and its HarborEnv from them, so an episode
 * runs exactly as a local `pgs eval` would run it. Paths (task folders, overlays, a profiles module) are the runner's,
 * read on the worker's node: a cluster's shared filesystem makes them the same.
 */
import type { EnvRow } from "../env/harbor_env.ts";
import type { EvalConfig, PolicyConfig } from "../eval/config.ts";
import type { Trajectory } from "../eval/records/trajectory.ts";
import type { PodBudget } from "../runtime/pod_budget.ts";
import type { VerifierMode } from "../task/verifier_mode.ts";
import type { Turn } from "../script/script.ts";
import { policyLabel } from "../eval/config.ts";
import { podBudget } from "../eval/run_setup.ts";
import { readScriptFile } from "../policies/script_check.ts";

/** The protocol's version: the path prefix is `/v<WORKER_PROTOCOL>`, and `HealthResponse.protocol` says it. */
export const WORKER_PROTOCOL = 1;

/** The worker's routes. */
export const WORKER_PATHS = { health: "/v1/health", episodes: "/v1/episodes", stop: "/v1/stop" } as const;

/**
 * What answers the turns: an endpoint and an oracle as `pgs eval` names them (`PolicyConfig`); a script carried
 * whole (its turns, read and checked by the runner), so no node reads the runner's turns file; `harbor check`'s two
 * agents, `harbor-oracle` (solve.sh as Harbor's oracle runs it, `harborOraclePolicy`) and `nop` (`nopPolicy`); and an
 * exploit of `harbor audit`'s battery (its script in one shell call, then the stop turn: `exploitPolicy`).
 */
export type PolicySpec =
  | Exclude<PolicyConfig, { kind: "script" }>
  | { kind: "harbor-oracle" }
  | { kind: "nop" }
  | {
    kind: "exploit";
    /** The exploit's name (the policy is `exploit:<name>`). */
    name: string;
    /** The shell script it runs, one variant for this task. */
    script: string;
  }
  | {
    kind: "script";
    /** The policy's name as trajectories record it (`script:PATH`). */
    name: string;
    /** The turns, played from the start in every episode. */
    turns: Turn[];
    /** Let the script call tools a profile lacks (default: refused, as an infrastructure error of the episode). */
    allowUnknownTools?: true;
  };

/** The run's settings a worker needs to run an episode as a local `pgs eval` would: all plain JSON. */
export interface EpisodeSettings {
  /** What answers the turns. An endpoint's API key is read on the worker from `apiKeyEnv` (srun passes the env). */
  policy: PolicySpec;
  /** The model recorded on trajectories; for an endpoint, the one the runner resolved (default none). */
  model?: string;
  /** One profile (default: HarborEnv's, palingenesis-default@1, unless `profiles`). */
  profile?: string;
  /** A weighted profile mix, one drawn per row (default none). */
  profiles?: Record<string, number>;
  /** Seed of the per-row profile draw (default 0). */
  seed?: number;
  /** The model name the emulated harnesses are configured with, one or per profile (default: each profile's). */
  harnessModel?: string | Record<string, string>;
  /** Overlay files, read on the worker (default none). */
  overlays?: string[];
  /** A module registering more profiles, loaded once per worker (default none). */
  profilesModule?: string;
  /** The model's chat-template kwargs (default none). */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Per-profile chat-template kwargs (default none). */
  profileChatKwargs?: Record<string, Record<string, unknown>>;
  /** Characters of command output kept where a profile has no limit (default: the session's, 16000). */
  maxOutput?: number;
  /** Task image → replacement (default none). */
  images?: Record<string, string>;
  /** Where the tests run, for every task (default: each task's own mode). */
  verifierMode?: VerifierMode;
  /** Disk bound in MB of each box (default 10240; 0: none). */
  storageMb?: number;
  /** The most a compose task's whole pod may use (default: no total). */
  podBudget?: PodBudget;
  /** Turn limit; a row's own `max_turns` wins (default `DEFAULT_MAX_TURNS`, 32). */
  maxTurns?: number;
  /** Record the episode's working-directory diff (default false; `pgs eval` sets it unless `--no-diff`). */
  workdirDiff?: boolean;
}

/** `POST /v1/episodes`: one episode to run. */
export interface EpisodeRequest {
  /** The run's settings (the same for every episode of a run; a worker caches what it builds from them). */
  settings: EpisodeSettings;
  /** The row; its `task_dir` absolute (a path every node sees). */
  row: EnvRow;
  /** The row's id (`rowIds`): the group of the profile draw, and the trajectory's `row_id`. */
  rowId: string;
  /** The 0-based sample index. */
  sample: number;
  /** This episode's own policy over the settings' (the audit gives each episode its own; default the settings'). */
  policy?: PolicySpec;
}

/**
 * What a worker answers when it returns no trajectory: `infra` (the worker, its engine or its node failed, or it is
 * stopping: run the episode elsewhere, never score it), `bad_request` (the request itself is wrong: it fails on every
 * worker), `unauthorized` (a wrong token), `busy` (at capacity: try again after `Retry-After` seconds).
 */
export interface WorkerErrorResponse {
  /** One line saying what went wrong. */
  error: string;
  /** Whose fault, and what the runner does about it. */
  kind: "infra" | "bad_request" | "unauthorized" | "busy";
}

/** The answer to `POST /v1/episodes`: the episode's record (an infrastructure error of the episode is a record too). */
export type EpisodeResponse = Trajectory;

/** `GET /v1/health`. */
export interface HealthResponse {
  /** The node (or worker) name trajectories record. */
  node: string;
  /** Episodes it runs at once at most (`--max-concurrent`). */
  capacity: number;
  /** Episodes running now. */
  inFlight: number;
  /** Its container runtime (docker, podman). */
  runtime: string;
  /** The pgs version it runs. */
  version: string;
  /** `WORKER_PROTOCOL`. */
  protocol: number;
  /** True once it is stopping: it takes no more episodes. */
  stopping: boolean;
}

/**
 * The settings of `cfg`'s episodes, as `evaluate` hands them to `runEpisodes`: `model` is the one `prepareRun`
 * resolved, and a script's turns are read here, once.
 */
export async function episodeSettings(cfg: EvalConfig, model?: string): Promise<EpisodeSettings> {
  const p = cfg.policy;
  const policy: PolicySpec = p.kind === "script"
    ? {
      kind: "script",
      name: policyLabel(p),
      turns: await readScriptFile(p.path),
      ...(p.allowUnknownTools ? { allowUnknownTools: true } : {}),
    }
    : p;
  const budget = podBudget(cfg);
  const s: EpisodeSettings = {
    policy,
    model,
    profile: cfg.profile,
    profiles: cfg.profiles,
    seed: cfg.seed,
    harnessModel: cfg.harnessModel,
    overlays: cfg.overlays.length ? cfg.overlays : undefined,
    profilesModule: cfg.profilesModule,
    chatTemplateKwargs: cfg.chatTemplateKwargs,
    profileChatKwargs: cfg.profileChatTemplateKwargs,
    maxOutput: cfg.maxOutput,
    images: cfg.images,
    verifierMode: cfg.verifierMode,
    storageMb: cfg.storageMb,
    podBudget: budget,
    maxTurns: cfg.maxTurns,
    workdirDiff: cfg.workdirDiff,
  };
  // Unset fields are left out, so the same run gives the same JSON (and the same fingerprint on the worker).
  return JSON.parse(JSON.stringify(s));
}

/** What is wrong with a posted episode request, in one line, or undefined when its shape is right. */
export function requestProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "the body must be a JSON object {settings, row, rowId, sample}";
  const { settings, row, rowId, sample } = body;
  if (!isObject(settings)) return "settings must be an object";
  const bad = policyProblem(settings.policy, "settings.policy");
  if (bad) return bad;
  if (body.policy !== undefined) {
    const own = policyProblem(body.policy, "policy");
    if (own) return own;
  }
  for (const f of ["overlays"] as const) {
    if (settings[f] !== undefined && !Array.isArray(settings[f])) return `settings.${f} must be a list of paths`;
  }
  if (!isObject(row)) return "row must be an object {task_dir, ...}";
  if (typeof rowId !== "string" || !rowId) return "rowId must be a non-empty string";
  if (!Number.isInteger(sample) || (sample as number) < 0) return "sample must be an integer from 0";
  return undefined;
}

/** The policy kinds that carry nothing but their kind. */
const BARE_KINDS = ["oracle", "harbor-oracle", "nop"];

/** What is wrong with a policy spec at `at`, in one line, or undefined. */
function policyProblem(p: unknown, at: string): string | undefined {
  if (!isObject(p)) return `${at} must be an object`;
  const kind = p.kind;
  if (kind === "endpoint") {
    if (typeof p.url !== "string") return `${at}.url must be a string (the endpoint)`;
  } else if (kind === "script") {
    if (!Array.isArray(p.turns)) return `${at}.turns must be a list of turns`;
    if (typeof p.name !== "string") return `${at}.name must be a string`;
  } else if (kind === "exploit") {
    if (typeof p.name !== "string" || typeof p.script !== "string") return `${at}: an exploit has a name and a script`;
  } else if (!BARE_KINDS.includes(kind as string)) {
    return `${at}.kind must be endpoint, oracle, script, harbor-oracle, nop or exploit, got ${String(kind)}`;
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * An episode a worker will not run, and whose fault that is (`WorkerErrorResponse.kind`): thrown by an episode runner,
 * answered by the app as 400 (`bad_request`) or 500 (`infra`).
 */
export class EpisodeRefused extends Error {
  /** Always "EpisodeRefused". */
  override name = "EpisodeRefused";
  /** `message` in one line; `kind` whose fault it is. */
  constructor(message: string, readonly kind: "infra" | "bad_request") {
    super(message);
  }
}
