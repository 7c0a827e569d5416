/**
 * `pgs eval` settings, parsed once: raw values from a YAML file (`--config`) and from flags (flags win) go through
 * `buildConfig`, which checks each field once and gives a typed `EvalConfig`. YAML keys are the flag names, kebab- or
 * snake-case. Every bad value is a one-line error naming the file or flag and the field.
 */
import { DEFAULT_RUNTIME, runtimeNames } from "../runtime/registry.ts";
import { DEFAULT_STORAGE_MB } from "../runtime/limits.ts";
import { UsageError } from "../base/errors.ts";
import type { VerifierMode } from "../task/verifier_mode.ts";
import { DEFAULT_REQUEST_TIMEOUT_SEC } from "../policies/endpoint_policy.ts";
import { isHttpUrl } from "../policies/endpoint_check.ts";
import { DEFAULT_MAX_TURNS } from "./episode_runner.ts";
import type { Sampling } from "../policies/policy.ts";
import { DEFAULT_K, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_STARTING, type DockerHostOptions } from "./run_episodes.ts";
import { DEFAULT_PASS_THRESHOLD } from "./records/summary.ts";
import { camel, isRecord, objectValue, parseWeights } from "./config_values.ts";
import { Given, type RawConfig } from "./config_raw.ts";
import { REASONING_PARSERS, TOOL_PARSERS } from "../tokens/parsers/registry.ts";
import { TOKEN_APIS, type TokenApi } from "../policies/token_policy.ts";

export { camel, isRecord, objectValue, parseWeights };
export { type RawConfig, readConfigFile } from "./config_raw.ts";

/** The output folder, unless `--out` says otherwise. */
export const DEFAULT_OUT = "pgs-eval";

/** The seed of the per-group profile draw, unless `--seed` says otherwise (HarborEnv's own default). */
export const DEFAULT_SEED = 0;

/** What answers the turns: the policies `--policy` names. */
export type PolicyConfig =
  /** An OpenAI-compatible endpoint (`--endpoint URL`; the policy when an endpoint is given and no other is). */
  | {
    kind: "endpoint";
    /** Base URL, e.g. http://127.0.0.1:8000/v1. */
    url: string;
    /** Environment variable holding the API key (default none). */
    apiKeyEnv?: string;
    /** Sampling parameters sent with each request (unset ones are the server's). Not the draw's seed. */
    sampling: Omit<Sampling, "seed">;
    /** Ask for token ids and logprobs and store them (default false). */
    tokenIds: boolean;
    /** Seconds one model request may take (default `DEFAULT_REQUEST_TIMEOUT_SEC`). */
    requestTimeoutSec: number;
    /** Token mode (`--tokenizer`): pgs renders and tokenises, and sends token ids (default: chat mode). */
    tokens?: TokenModeConfig;
  }
  /** solution/solve.sh through each profile's own shell tool and stop rule. */
  | { kind: "oracle" }
  /** A turn script (the stub's turns.json), played from its start in every episode. */
  | {
    kind: "script";
    /** The turns.json file. */
    path: string;
    /**
     * Let the script call tools a profile lacks (and make tool calls under a text protocol), for testing the
     * profile's answer to them (`--allow-unknown-tools`; absent: refused before any container starts).
     */
    allowUnknownTools?: true;
  };

/** Token mode's settings. */
export interface TokenModeConfig {
  /** A model folder, or a hub id found in the local HF cache. */
  tokenizer: string;
  /** vLLM's /v1/completions or SGLang's /generate (default vllm). */
  api: TokenApi;
  /** `--reasoning-parser` (default none: the text is all content). */
  reasoningParser?: string;
  /** `--tool-parser` (default hermes, Qwen2.5's and Qwen3's format). */
  toolParser: string;
  /** Count template_rewrite turns (default true; `--rewrite-check false` saves an O(history) render a turn). */
  rewriteCheck: boolean;
}

/** Everything an eval run needs, checked. */
export interface EvalConfig {
  /** A task, a folder of tasks, or a rows JSONL (required). */
  tasks: string;
  /** What answers the turns (required: `--endpoint`, `--policy oracle` or `--policy script:PATH`). */
  policy: PolicyConfig;
  /** The endpoint's model (default: the first it lists); with another policy, recorded in trajectories. */
  model?: string;
  /** Weighted profile mix (default: palingenesis-default@1 alone). */
  profiles?: Record<string, number>;
  /** One profile (exclusive with `profiles`). */
  profile?: string;
  /**
   * The model name each emulated harness is configured with (its `-m`), one for all or one per profile name; a row's
   * `harness_model` wins (default: each profile's recorded name).
   */
  harnessModel?: string | Record<string, string>;
  /** Overlay files (`pgs harness adopt`), each laid over its profile's episodes (default none). */
  overlays: string[];
  /** Run every profile of `profiles` on every task, k samples each, instead of drawing one per task (default false). */
  cross: boolean;
  /** Samples per task (default `DEFAULT_K`). */
  k: number;
  /** Turn limit; a row's own max_turns wins (default `DEFAULT_MAX_TURNS`). */
  maxTurns: number;
  /** Episodes alive at once per Docker engine (default `DEFAULT_MAX_CONCURRENT`). */
  maxConcurrent: number;
  /** Containers starting at once per Docker engine (default `DEFAULT_MAX_STARTING`). */
  maxStarting: number;
  /** vLLM's chat_template_kwargs, the model's (lowest) level (default none). */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Per-profile chat_template_kwargs, e.g. {opencode: {enable_thinking: true}}; a row's own win (default none). */
  profileChatTemplateKwargs?: Record<string, Record<string, unknown>>;
  /** Characters of command output kept where a profile has no limit of its own (default: the session's, 16000). */
  maxOutput?: number;
  /** Seed of the per-group profile draw (default `DEFAULT_SEED`). Not sent to the endpoint: k samples must differ. */
  seed: number;
  /** Output folder (default `DEFAULT_OUT`). */
  out: string;
  /** Docker engines (default none given: DOCKER_HOST's). */
  hosts: DockerHostOptions[];
  /** Task image → replacement (default none). */
  images?: Record<string, string>;
  /** Discard finished episodes in `out` and run them again (default false). */
  redo: boolean;
  /** Record each episode's working-directory diff (`workdir_diff`; default true, `--no-diff` turns it off). */
  workdirDiff: boolean;
  /** A module registering more profiles (default none). */
  profilesModule?: string;
  /** A reward at or above this passes (default `DEFAULT_PASS_THRESHOLD`). */
  passThreshold: number;
  /** Where the tests run, for every task (default: each task's own mode; see `resolveVerifierMode`). */
  verifierMode?: VerifierMode;
  /** Run the episodes on the nodes of a Slurm allocation, one pgs worker per node (default: on this host). */
  slurm?: SlurmSettings;
  /** The container runtime every engine of the run is (a registered name; default `DEFAULT_RUNTIME`, docker). */
  runtime: string;
  /**
   * Disk bound in MB of the agent's box and every verifier box of a task that sets no `storage_mb` (default
   * `DEFAULT_STORAGE_MB`, 10240; 0: none).
   */
  storageMb: number;
  /**
   * CPUs of a compose task's whole pod, `main` and its sidecars together: `main` keeps the task's limits, the
   * sidecars share the rest (`PodBudget.cpus`; a positive number; default: not set, no total).
   */
  podCpus?: number;
  /** Memory in MB of a compose task's whole pod, shared the same way (`PodBudget.memoryMb`; default: not set, no total). */
  podMemoryMb?: number;
}

/** A policy as `--policy` and run.json name it: `endpoint`, `oracle` or `script:PATH`. */
export function policyLabel(p: PolicyConfig): string {
  return p.kind === "script" ? `script:${p.path}` : p.kind;
}

/** `slurm:` in the YAML (`true`, or `{nodes, partition, time}`), or `--slurm` with `--nodes`, `--partition`, `--time`. */
export interface SlurmSettings {
  /** Nodes to ask for outside a job (default 1; inside one, SLURM_JOB_ID's nodes are used). */
  nodes?: number;
  /** Partition to ask for (default: the cluster's default). */
  partition?: string;
  /** Time limit to ask for, as salloc takes it: minutes, H:MM:SS, D-H (default: the partition's). */
  time?: string;
}

function slurmSettings(g: { value: unknown; where: string } | undefined): SlurmSettings | undefined {
  if (!g || g.value === false) return undefined;
  if (g.value === true) return {};
  if (typeof g.value !== "object" || g.value === null || Array.isArray(g.value)) {
    throw new UsageError(`${g.where} must be true or a mapping {nodes, partition, time}`);
  }
  const out: SlurmSettings = {};
  for (const [k, v] of Object.entries(g.value as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    if (k === "nodes") {
      const n = typeof v === "string" ? Number(v) : v;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
        throw new UsageError(`${g.where}: nodes must be an integer ≥ 1, got ${JSON.stringify(v)}`);
      }
      out.nodes = n;
    } else if (k === "partition" || k === "time") {
      const x = typeof v === "number" ? String(v) : v;
      if (typeof x !== "string" || !/^[\w.:-]+$/.test(x)) {
        throw new UsageError(`${g.where}: ${k} must be a name, got ${JSON.stringify(v)}`);
      }
      out[k] = x;
    } else throw new UsageError(`${g.where}: unknown key ${JSON.stringify(k)} (known: nodes, partition, time)`);
  }
  return out;
}

/**
 * Merges config-file values and flag values (flags win) into a checked config: each field's value is checked once,
 * then how they go together. Errors name where a field came from: `--flag` for flags, `file: key` for the file
 * (`fileName`).
 */
export function buildConfig(file: RawConfig, flags: RawConfig, fileName = "config"): EvalConfig {
  const g = new Given(file, flags, fileName);
  const tasks = g.string("tasks");
  const policyName = g.string("policy");
  const allowUnknownTools = g.bool("allowUnknownTools");
  const url = g.string("endpoint");
  const model = g.string("model");
  const apiKeyEnv = g.string("apiKeyEnv");
  const profiles = g.weights("profiles");
  const profile = g.string("profile");
  const harnessModel = g.nameOrNames("harnessModel");
  const overlays = g.stringList("overlay");
  const cross = g.bool("cross");
  const k = g.atLeastOne("k", true);
  const sampling = {
    temperature: g.number("temperature"),
    topP: g.number("topP"),
    topK: g.atLeastOne("topK", true),
    maxTokens: g.atLeastOne("maxTokens", true),
  };
  const maxTurns = g.atLeastOne("maxTurns", true);
  const maxConcurrent = g.atLeastOne("maxConcurrent", true);
  const maxStarting = g.atLeastOne("maxStarting", true);
  const chatTemplateKwargs = g.object("chatTemplateKwargs");
  const profileChatTemplateKwargs = g.objects("profileChatTemplateKwargs");
  const maxOutput = g.atLeastOne("maxOutput", true);
  const seed = g.int("seed");
  const out = g.string("out");
  const tokenIds = g.bool("tokenIds");
  const tokenizer = g.string("tokenizer");
  const tokenApi = g.oneOf("tokenApi", TOKEN_APIS);
  const reasoning = g.oneOf("reasoningParser", [...REASONING_PARSERS.keys()]);
  const toolParserName = g.oneOf("toolParser", [...TOOL_PARSERS.keys()]);
  const rewriteCheck = g.bool("rewriteCheck");
  const hosts = g.hosts("hosts");
  const images = g.strings("images");
  const redo = g.bool("redo");
  const workdirDiff = g.bool("workdirDiff");
  const requestTimeoutSec = g.atLeastOne("requestTimeoutSec", false);
  const profilesModule = g.string("profilesModule");
  const passThreshold = g.number("passThreshold");
  const verifierMode = g.verifierMode("verifierMode");
  const runtime = g.oneOf("runtime", runtimeNames());
  const slurm = slurmSettings(g.raw("slurm"));
  const storageMb = g.atLeastZero("storageMb");
  const podCpus = g.aboveZero("podCpus", false);
  const podMemoryMb = g.aboveZero("podMemoryMb", true);

  if (!tasks) throw new UsageError("eval: give --tasks PATH (a task, a folder of tasks, or a rows JSONL)");
  if (url !== undefined && !isHttpUrl(url)) {
    throw new UsageError(
      `eval: ${g.where("endpoint")} must be an http(s) URL such as http://127.0.0.1:8000/v1, got ${
        JSON.stringify(url)
      }`,
    );
  }
  if (profile && profiles) {
    throw new UsageError(`eval: ${g.where("profile")} and ${g.where("profiles")} exclude each other`);
  }
  if (cross && !profiles) {
    throw new UsageError(`eval: ${g.where("cross")} needs --profiles (the profiles to run on every task)`);
  }
  const named = policyName ?? (url ? "endpoint" : undefined);
  if (!named) throw new UsageError("eval: give --endpoint URL, --policy oracle or --policy script:turns.json");
  const script = named.startsWith("script:") ? named.slice("script:".length) : "";
  if (named !== "endpoint" && named !== "oracle" && !script) {
    throw new UsageError(
      `eval: ${g.where("policy")} must be endpoint, oracle or script:PATH, got ${JSON.stringify(named)}`,
    );
  }
  if (named === "endpoint" && !url) throw new UsageError("eval: --policy endpoint needs --endpoint URL");
  if (named !== "endpoint" && url) {
    throw new UsageError(`eval: ${g.where("endpoint")} is only used with --policy endpoint (policy is ${named})`);
  }
  if (allowUnknownTools && !script) {
    throw new UsageError(
      `eval: ${g.where("allowUnknownTools")} is only used with --policy script:FILE (policy is ${named})`,
    );
  }
  // From here an endpoint URL is given exactly when the policy is the endpoint. The endpoint's own settings (sampling,
  // token ids, key, timeout) are accepted, and unused, with another policy.
  const policy: PolicyConfig = url
    ? {
      kind: "endpoint",
      url,
      apiKeyEnv,
      sampling,
      tokenIds: tokenIds ?? false,
      requestTimeoutSec: requestTimeoutSec ?? DEFAULT_REQUEST_TIMEOUT_SEC,
      ...(tokenizer
        ? {
          tokens: {
            tokenizer,
            api: tokenApi ?? "vllm",
            reasoningParser: reasoning,
            toolParser: toolParserName ?? "hermes",
            rewriteCheck: rewriteCheck ?? true,
          },
        }
        : {}),
    }
    : named === "oracle"
    ? { kind: "oracle" }
    : { kind: "script", path: script, ...(allowUnknownTools ? { allowUnknownTools } : {}) };

  return {
    tasks,
    policy,
    model,
    profiles,
    profile,
    harnessModel,
    overlays: overlays ?? [],
    cross: cross ?? false,
    workdirDiff: workdirDiff ?? true,
    k: k ?? DEFAULT_K,
    maxTurns: maxTurns ?? DEFAULT_MAX_TURNS,
    maxConcurrent: maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
    maxStarting: maxStarting ?? DEFAULT_MAX_STARTING,
    chatTemplateKwargs,
    profileChatTemplateKwargs,
    maxOutput,
    seed: seed ?? DEFAULT_SEED,
    out: out ?? DEFAULT_OUT,
    hosts: hosts ?? [],
    images,
    redo: redo ?? false,
    profilesModule,
    passThreshold: passThreshold ?? DEFAULT_PASS_THRESHOLD,
    runtime: runtime ?? DEFAULT_RUNTIME,
    ...(slurm ? { slurm } : {}),
    verifierMode,
    storageMb: storageMb ?? DEFAULT_STORAGE_MB,
    ...(podCpus !== undefined ? { podCpus } : {}),
    ...(podMemoryMb !== undefined ? { podMemoryMb } : {}),
  };
}
