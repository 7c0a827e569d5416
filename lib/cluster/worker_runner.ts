/**
 * How a worker runs the episodes it is sent: the same `runEpisode` a local `pgs eval` runs (its start gate, its
 * records, its infrastructure errors), over one HarborEnv and policy per run's settings, built once from their JSON and
 * cached, so a task's image is built once per node.
 */
import { createHash } from "node:crypto";
import { isAbsolute } from "node:path";
import { HarborEnv } from "../env/harbor_env.ts";
import { pickRow, rowProblem } from "../env/row_check.ts";
import { type LoadedOverlay, readOverlay } from "../harness/overlay.ts";
import { loadProfilesModule } from "../harness/load_module.ts";
import type { EvalConfig } from "../eval/config.ts";
import { runEpisode } from "../eval/episode_runner.ts";
import { policyFor } from "../eval/run_setup.ts";
import { DEFAULT_MAX_STARTING } from "../eval/run_episodes.ts";
import type { Trajectory } from "../eval/records/trajectory.ts";
import { harborOraclePolicy, nopPolicy, type Policy, scriptPolicy } from "../policies/policy.ts";
import { Semaphore } from "../base/semaphore.ts";
import { UsageError } from "../base/errors.ts";
import { removeOwnContainers } from "../runtime/hygiene.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { exploitPolicy } from "../harbor/audit/exploit_policy.ts";
import { EpisodeRefused, type EpisodeRequest, type EpisodeSettings, type PolicySpec } from "./worker_protocol.ts";

/** Runs one episode to its record; `signal` stops it (it then throws). Throws `EpisodeRefused` for a bad request. */
export type EpisodeRunner = (req: EpisodeRequest, signal: AbortSignal) => Promise<Trajectory>;

/** Settings of `localRunner`. */
export interface LocalRunnerOptions {
  /** The engine every episode runs on (the node's own). */
  runtime: Runtime;
  /** Boxes starting at once (default `DEFAULT_MAX_STARTING`, 4). */
  maxStarting?: number;
  /** Runs' settings kept built at once; past it the least recently used idle one is closed (default 4). */
  maxCached?: number;
}

/** An episode runner on this node's engine, and its end. */
export interface LocalRunner {
  /** Runs one episode. */
  run: EpisodeRunner;
  /** Closes every HarborEnv (removing the boxes of episodes still open), then every box of this process. */
  close(): Promise<void>;
}

/** A run's settings built: its environment and policy, and how many episodes use them now. */
interface Built {
  env: HarborEnv;
  policy: Policy;
  users: number;
  used: number;
}

/** The fingerprint of what a HarborEnv and a policy are built from: the settings less the per-episode fields. */
export function settingsKey(s: EpisodeSettings): string {
  const { maxTurns: _t, workdirDiff: _d, ...built } = s;
  return createHash("sha256").update(canonical(built)).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted, so equal settings give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

/** Builds a run's environment and policy from its settings; a `UsageError` for settings this node cannot use. */
async function build(s: EpisodeSettings, runtime: Runtime, modules: Set<string>): Promise<Built> {
  if (s.profilesModule && !modules.has(s.profilesModule)) {
    await loadProfilesModule(s.profilesModule);
    modules.add(s.profilesModule);
  }
  const overlays: LoadedOverlay[] = [];
  for (const file of s.overlays ?? []) {
    try {
      overlays.push(await readOverlay(file));
    } catch (e) {
      throw new UsageError(`overlay: ${(e as Error).message}`);
    }
  }
  const policy = await policyOf(s.policy, s.model);
  let env: HarborEnv;
  try {
    env = newEnv(s, overlays, runtime);
  } catch (e) {
    throw new UsageError((e as Error).message); // its settings, checked as it is built (profiles, limits)
  }
  return { env, policy, users: 0, used: Date.now() };
}

/** The policy `p` names; `model` an endpoint's. */
function policyOf(p: PolicySpec, model: string | undefined): Promise<Policy> {
  if (p.kind === "script") {
    return Promise.resolve(scriptPolicy(p.turns, p.name, { allowUnknownTools: p.allowUnknownTools }));
  }
  if (p.kind === "harbor-oracle") return Promise.resolve(harborOraclePolicy());
  if (p.kind === "nop") return Promise.resolve(nopPolicy());
  if (p.kind === "exploit") return Promise.resolve(exploitPolicy({ name: p.name, script: p.script }));
  // policyFor reads only the config's policy and model.
  return policyFor({ policy: p, model } as EvalConfig);
}

function newEnv(s: EpisodeSettings, overlays: LoadedOverlay[], runtime: Runtime): HarborEnv {
  return new HarborEnv({
    profile: s.profile,
    profiles: s.profiles,
    profileSeed: s.seed,
    harnessModel: s.harnessModel,
    overlays,
    chatTemplateKwargs: s.chatTemplateKwargs,
    profileChatKwargs: s.profileChatKwargs,
    maxOutput: s.maxOutput,
    images: s.images,
    verifierMode: s.verifierMode,
    storageMb: s.storageMb,
    podBudget: s.podBudget,
    runtime,
  });
}

/** The runner a `pgs worker` uses: episodes on `opts.runtime`, one HarborEnv per run's settings. */
export function localRunner(opts: LocalRunnerOptions): LocalRunner {
  const gate = new Semaphore(opts.maxStarting ?? DEFAULT_MAX_STARTING);
  const maxCached = opts.maxCached ?? 4;
  const cache = new Map<string, Promise<Built>>();
  const modules = new Set<string>();
  let closed = false;

  const builtFor = async (s: EpisodeSettings): Promise<Built> => {
    const key = settingsKey(s);
    let entry = cache.get(key);
    if (!entry) {
      entry = build(s, opts.runtime, modules);
      cache.set(key, entry);
      entry.catch(() => cache.delete(key)); // a failed build is tried again by the next request
      await evict(key);
    }
    try {
      return await entry;
    } catch (e) {
      if (e instanceof UsageError) throw new EpisodeRefused(e.message, "bad_request");
      throw e;
    }
  };
  // Past `maxCached`, the least recently used settings no episode uses are closed.
  const evict = async (keep: string) => {
    if (cache.size <= maxCached) return;
    const idle: [string, Built][] = [];
    for (const [k, p] of cache) {
      const b = k === keep ? undefined : await p.catch(() => undefined);
      if (b && b.users === 0) idle.push([k, b]);
    }
    idle.sort((a, b) => a[1].used - b[1].used);
    for (const [k, b] of idle.slice(0, cache.size - maxCached)) {
      cache.delete(k);
      await b.env.close();
    }
  };

  const run: EpisodeRunner = async (req, signal) => {
    if (closed) throw new EpisodeRefused("the worker is stopping", "infra");
    const problem = rowProblem(req.row as unknown as Record<string, unknown>);
    if (problem) throw new EpisodeRefused(`row: ${problem}`, "bad_request");
    const row = pickRow(req.row as unknown as Record<string, unknown>);
    if (!isAbsolute(row.task_dir)) {
      throw new EpisodeRefused(
        `row: task_dir must be absolute (a path every node sees), got ${row.task_dir}`,
        "bad_request",
      );
    }
    try {
      await Deno.stat(row.task_dir);
    } catch (e) {
      const why = e instanceof Deno.errors.NotFound ? "no such folder here" : (e as Error).message;
      throw new EpisodeRefused(
        `cannot see task_dir ${row.task_dir} (${why}; is it on a filesystem every node shares?)`,
        "infra",
      );
    }
    const b = await builtFor(req.settings);
    b.users++;
    b.used = Date.now();
    try {
      const policy = req.policy ? await policyOf(req.policy, req.settings.model) : b.policy;
      return await runEpisode(b.env, { row, rowId: req.rowId, sample: req.sample }, {
        policy,
        maxTurns: req.settings.maxTurns,
        startGate: gate,
        signal,
        model: req.settings.model,
        dockerHost: "default",
        workdirDiff: req.settings.workdirDiff,
      });
    } finally {
      b.users--;
    }
  };

  return {
    run,
    async close() {
      closed = true;
      const all = await Promise.all([...cache.values()].map((p) => p.catch(() => undefined)));
      cache.clear();
      await Promise.all(all.map((b) => b?.env.close()));
      await removeOwnContainers();
    },
  };
}
