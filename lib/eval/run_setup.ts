/**
 * What an eval run needs before its first episode, each failure one line before anything runs: the profiles module and
 * overlays, the profile names, the rows (crossed with the profiles under `--cross`), the tasks, the policy (a script
 * checked against the profiles it will meet, an endpoint that answers), and the engines.
 */
import { type LoadedOverlay, readOverlay } from "../harness/overlay.ts";
import { resolve } from "node:path";
import type { EnvRow } from "../env/harbor_env.ts";
import { createRuntime } from "../runtime/registry.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { DEFAULT_STORAGE_MB } from "../runtime/limits.ts";
import type { PodBudget } from "../runtime/pod_budget.ts";
import { InfraError, UsageError } from "../base/errors.ts";
import { loadProfilesModule } from "../harness/load_module.ts";
import { resolveProfileName } from "../harness/registry.ts";
import { type EvalConfig, policyLabel } from "./config.ts";
import { endpointPolicy, normalizeBaseUrl } from "../policies/endpoint_policy.ts";
import { checkEndpoint } from "../policies/endpoint_check.ts";
import { tokenPolicy } from "../policies/token_policy.ts";
import { loadTokenModel } from "../tokens/model.ts";
import { reasoningParser, toolParser } from "../tokens/parsers/registry.ts";
import { loadRows } from "./load_rows.ts";
import { loadTask } from "../task/task.ts";
import { taskSetNotes } from "../task/task_set_notes.ts";
import { oraclePolicy, type Policy, scriptPolicy } from "../policies/policy.ts";
import { crossRows } from "./run_episodes.ts";
import { checkScript, profilesDrawn, readScriptFile } from "../policies/script_check.ts";

/** A run ready to go: its overlays, rows, policy, the endpoint's model, and one client per engine. */
export interface PreparedRun {
  /** The overlays read from `--overlay`. */
  overlays: LoadedOverlay[];
  /** The rows to run (crossed with the profiles under `--cross`). */
  rows: EnvRow[];
  /** What answers the turns. */
  policy: Policy;
  /** The model: the config's, else the one the endpoint serves. */
  model?: string;
  /** One client per engine (`--host`), each answering, its dead runs' boxes swept. */
  hosts: (EvalConfig["hosts"][number] & { runtime: Runtime })[];
}

/** Checks and builds everything `cfg`'s run needs (its engines probed unless `opts.engines` is false); a UsageError (or InfraError) naming what is wrong. */
export async function prepareRun(cfg: EvalConfig, opts: { engines?: boolean } = {}): Promise<PreparedRun> {
  if (cfg.profilesModule) await loadProfilesModule(cfg.profilesModule);
  const overlays: LoadedOverlay[] = [];
  for (const file of cfg.overlays) {
    try {
      overlays.push(await readOverlay(file));
    } catch (e) {
      throw new UsageError(`--overlay: ${(e as Error).message}`);
    }
  }
  for (
    const p of [cfg.profile, ...Object.keys(cfg.profiles ?? {}), ...Object.keys(cfg.profileChatTemplateKwargs ?? {})]
  ) {
    if (p) {
      try {
        resolveProfileName(p);
      } catch (e) {
        throw new UsageError(`--profile${cfg.profiles ? "s" : ""}: ${(e as Error).message}`);
      }
    }
  }
  const loaded = await loadRows(cfg.tasks);
  const rows = cfg.cross && cfg.profiles ? crossRows(loaded, cfg.profiles) : loaded;

  // A broken task is bad input: it fails the run now, naming its file and field, not each of its episodes.
  taskSetNotes(await Promise.all([...new Set(rows.map((r) => r.task_dir))].map(loadTask)));
  const policy = await policyFor(cfg);
  if (cfg.policy.kind === "script") {
    const turns = await readScriptFile(cfg.policy.path);
    checkScript(cfg.policy.path, turns, profilesDrawn(rows, cfg.profile, cfg.profiles), cfg.policy.allowUnknownTools);
  }
  // An endpoint that cannot even list its models fails the run now, in one line, rather than every episode.
  let model = cfg.model;
  if (cfg.policy.kind === "endpoint" && policy.model) {
    const key = cfg.policy.apiKeyEnv ? Deno.env.get(cfg.policy.apiKeyEnv) : undefined;
    await checkEndpoint(
      cfg.policy.url,
      normalizeBaseUrl(cfg.policy.url),
      key ? { authorization: `Bearer ${key}` } : {},
    );
    try {
      model = await policy.model();
    } catch (e) {
      throw new InfraError(`--endpoint ${cfg.policy.url}: ${(e as Error).message}`, "endpoint");
    }
  }
  // One client per engine for the whole run: its probe and its sweep of dead runs' boxes go at once.
  const hosts = (cfg.hosts.length ? cfg.hosts : [{}]).map((h) => ({
    ...h,
    runtime: createRuntime(cfg.runtime, { host: h.host }),
  }));
  for (const { runtime } of opts.engines === false ? [] : hosts) {
    const [answers] = await Promise.all([runtime.ping(), runtime.sweepOrphans().catch(() => [])]);
    if (!answers) throw new UsageError(`eval: no ${cfg.runtime} engine answers at ${runtime.engine}`);
  }
  return { overlays, rows, policy, model, hosts };
}

/**
 * The settings that change what an episode is, as run.json records them (null when unset); a folder holding other
 * values is not resumed.
 */
export function fingerprint(cfg: EvalConfig, overlays: LoadedOverlay[]): Record<string, unknown> {
  const ep = cfg.policy.kind === "endpoint" ? cfg.policy : undefined;
  return {
    tasks: resolve(cfg.tasks),
    policy: policyLabel(cfg.policy),
    endpoint: ep?.url ?? null,
    model: cfg.model ?? null,
    profiles: cfg.profiles ?? null,
    profile: cfg.profile ?? null,
    // Absent when not given, so older runs resume.
    ...(cfg.harnessModel ? { harnessModel: cfg.harnessModel } : {}),
    ...(overlays.length ? { overlays: overlays.map((o) => o.ref) } : {}),
    // Absent (not false) when not crossed, so older runs resume.
    ...(cfg.cross ? { cross: true } : {}),
    temperature: ep?.sampling.temperature ?? null,
    topP: ep?.sampling.topP ?? null,
    topK: ep?.sampling.topK ?? null,
    maxTokens: ep?.sampling.maxTokens ?? null,
    maxTurns: cfg.maxTurns,
    chatTemplateKwargs: cfg.chatTemplateKwargs ?? null,
    profileChatTemplateKwargs: cfg.profileChatTemplateKwargs ?? null,
    maxOutput: cfg.maxOutput ?? null,
    seed: cfg.seed,
    tokenIds: ep?.tokenIds ?? false,
    // Token mode changes what is sent and kept; the fields are absent (not null) in chat mode, so older runs resume.
    ...(ep?.tokens ? { tokens: ep.tokens } : {}),
    images: cfg.images ?? null,
    verifierMode: cfg.verifierMode ?? null,
    // Absent at the default, so older runs resume.
    ...(cfg.storageMb !== DEFAULT_STORAGE_MB ? { storageMb: cfg.storageMb } : {}),
    // Absent when not set, so older runs resume.
    ...(cfg.podCpus !== undefined ? { podCpus: cfg.podCpus } : {}),
    ...(cfg.podMemoryMb !== undefined ? { podMemoryMb: cfg.podMemoryMb } : {}),
  };
}

/** The most a compose task's whole pod may use, from `--pod-cpus` and `--pod-memory-mb` (undefined: no total). */
export function podBudget(cfg: EvalConfig): PodBudget | undefined {
  if (cfg.podCpus === undefined && cfg.podMemoryMb === undefined) return undefined;
  return {
    ...(cfg.podCpus !== undefined ? { cpus: cfg.podCpus } : {}),
    ...(cfg.podMemoryMb !== undefined ? { memoryMb: cfg.podMemoryMb } : {}),
  };
}

/** Builds the policy a config names. */
export async function policyFor(cfg: EvalConfig): Promise<Policy> {
  const p = cfg.policy;
  switch (p.kind) {
    case "oracle":
      return oraclePolicy();
    case "script": {
      return scriptPolicy(await readScriptFile(p.path), policyLabel(p), { allowUnknownTools: p.allowUnknownTools });
    }
    case "endpoint": {
      let apiKey: string | undefined;
      if (p.apiKeyEnv) {
        apiKey = Deno.env.get(p.apiKeyEnv);
        if (!apiKey) throw new UsageError(`--api-key-env: environment variable ${p.apiKeyEnv} is not set`);
      }
      if (p.tokens) {
        const t = p.tokens;
        let tokenizer;
        try {
          tokenizer = await loadTokenModel(t.tokenizer);
        } catch (e) {
          throw new UsageError(`--tokenizer ${(e as Error).message}`);
        }
        return tokenPolicy({
          baseUrl: p.url,
          api: t.api,
          tokenizer,
          reasoningParser: t.reasoningParser ? reasoningParser(t.reasoningParser) : undefined,
          toolParser: toolParser(t.toolParser),
          rewriteCheck: t.rewriteCheck,
          model: cfg.model,
          apiKey,
          requestTimeoutSec: p.requestTimeoutSec,
          sampling: p.sampling,
        });
      }
      return endpointPolicy({
        baseUrl: p.url,
        model: cfg.model,
        apiKey,
        tokenIds: p.tokenIds,
        requestTimeoutSec: p.requestTimeoutSec,
        sampling: p.sampling,
      });
    }
  }
}
