/**
 * HarborEnv: the environment a trainer drives turn by turn. `reset(row, group)` draws the group's profile, takes a
 * warm box of the task or starts a fresh one, and hands both to the episode pipeline (`lib/episode/`), whose
 * `HarborEpisode` steps the harness and scores the episode with the task's verifier.
 */
import { createHash } from "node:crypto";
import { drawProfile } from "../harness/draw.ts";
import { dialectGapWarning, withHarnessModel } from "../harness/model_dialect.ts";
import { warnOnce } from "../base/warn.ts";
import { type LoadedOverlay, readOverlay, withOverlay } from "../harness/overlay.ts";
import { getProfile, NO_PROFILE_DIALECT, resolveProfileName } from "../harness/registry.ts";
import type { ChatMessage } from "../harness/types.ts";
import { ImageStore } from "../runtime/images.ts";
import { createRuntime } from "../runtime/registry.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { PodBudget } from "../runtime/pod_budget.ts";
import { startBoxes } from "../verify/episode_verifier.ts";
import { type StartOptions, WarmPool } from "./warm_pool.ts";
import { loadTask } from "../task/task.ts";
import type { VerifierMode } from "../task/verifier_mode.ts";
import { type EpisodeOwner, type HarborEpisode, startEpisode } from "../episode/mod.ts";

export { type EpisodeReward, HarborEpisode } from "../episode/mod.ts";

/** HarborEnv's arguments (the design's, camel-cased: docs/spec-notes.md). */
export interface HarborEnvOptions {
  /** A subset of the profile's tools (default: all); honoured by profiles with the `toolSubset` capability. */
  tools?: string[];
  /** The reward.json key that is the reward (default "reward", else the first key). */
  rewardKey?: string;
  /** Working directory override (default: task.toml's, else the image's WORKDIR, else /workdir). */
  workdir?: string;
  /** Where every episode's tests run, overriding each task's own mode (default: the task's; see `resolveVerifierMode`). */
  verifierMode?: VerifierMode;
  /** Characters of command output kept where a profile has no limit of its own (default 16000). */
  maxOutput?: number;
  /** One harness profile, e.g. "opencode" or "pi@0.73.1" (default `NO_PROFILE_DIALECT`, palingenesis-default@1). */
  profile?: string;
  /** A weighted mix, e.g. {opencode: 1, pi: 1}; one profile per group (default none). */
  profiles?: Record<string, number>;
  /**
   * The model name each harness is configured with (its `-m`): one name for every profile, or one per profile name
   * (a weights key, `name@version` or the bare name); a row's `harness_model` wins (default: the name each profile was
   * recorded with). Profiles whose harness changes what it sends with the name follow it (`withHarnessModel`).
   */
  harnessModel?: string | Record<string, string>;
  /** Overlays (`pgs harness adopt`, read with `readOverlay`), each laid over its profile's episodes (default none). */
  overlays?: LoadedOverlay[];
  /** Seed of the per-group profile draw (default 0). */
  profileSeed?: number | string;
  /** Per-profile chat-template kwargs, e.g. {opencode: {enable_thinking: true}} (default none). */
  profileChatKwargs?: Record<string, Record<string, unknown>>;
  /** The model's chat-template kwargs, the lowest precedence (default none). */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Task image → replacement, for episodes and verifiers alike (default none). */
  images?: Record<string, string>;
  /** Turns before an episode ends with `max_turns`; a row's `max_turns` wins (default: no limit). */
  maxTurns?: number;
  /** Where episodes run (default: the registry's default runtime, docker, on the environment's engine). */
  runtime?: Runtime;
  /** Boxes started ahead by `warm()` held at most, over every task (default 64). */
  warmMax?: number;
  /** Seconds a box started ahead waits for its reset before it is removed unused (default 600). */
  warmIdleSec?: number;
  /**
   * Disk bound in MB of the agent's box and every verifier box of a task that sets no `storage_mb` (default 10240,
   * `DEFAULT_STORAGE_MB`; 0: none); enforced where the engine can, said once per run where it cannot.
   */
  storageMb?: number;
  /**
   * The most a compose task's whole pod may use: CPUs (`cpus`, a positive number) and memory in MB (`memoryMb`, a
   * positive integer) of `main` and its sidecars together; `main` keeps the task's limits and the sidecars share the
   * rest (default: no total; each member has its own limits only). See `lib/runtime/pod_budget.ts`.
   */
  podBudget?: PodBudget;
}

/** A row: a task directory, optionally the first messages, a forced profile and chat-template kwargs. */
export interface EnvRow {
  /** The task directory. */
  task_dir: string;
  /** First messages to send as given, under profiles with the `rowMessages` capability. */
  messages?: ChatMessage[];
  /** A profile forced for this row instead of the group's draw. */
  harness_profile?: string;
  /** The harness's model name for this row's episode (over HarborEnv's `harnessModel`). */
  harness_model?: string;
  /** An overlay file for this row's episode (over HarborEnv's `overlays`; read once per path). */
  overlay?: string;
  /** Chat-template kwargs for this row (highest precedence). */
  chat_template_kwargs?: Record<string, unknown>;
  /** Turn limit for this row, over HarborEnv's `maxTurns`. */
  max_turns?: number;
}

/**
 * The environment. It installs no signal handler: a host that embeds it closes it (`await env.close()`, or
 * `await using env = new HarborEnv(...)`), which removes the containers of every episode still open.
 */
export class HarborEnv implements EpisodeOwner {
  /** The image store every episode of this environment shares. */
  readonly store: ImageStore;
  /** Boxes started ahead (`warm`), taken by resets of their task. */
  readonly pool: WarmPool;
  readonly #weights: Record<string, number>;
  /** Episodes started and not yet closed. */
  readonly #open = new Set<HarborEpisode>();
  readonly #overlayFiles = new Map<string, Promise<LoadedOverlay>>();
  #closed = false;

  /** Validates the profile names now; throws when both `profile` and `profiles` are given. */
  constructor(readonly opts: HarborEnvOptions = {}) {
    if (opts.profile && opts.profiles) throw new Error("HarborEnv: give profile or profiles, not both");
    const mb = opts.storageMb;
    if (mb !== undefined && (!Number.isInteger(mb) || mb < 0)) {
      throw new Error(`HarborEnv: storageMb must be a non-negative integer (0: no bound), got ${JSON.stringify(mb)}`);
    }
    const { cpus, memoryMb } = opts.podBudget ?? {};
    if (cpus !== undefined && !(Number.isFinite(cpus) && cpus > 0)) {
      throw new Error(`HarborEnv: podBudget.cpus must be a positive number, got ${JSON.stringify(cpus)}`);
    }
    if (memoryMb !== undefined && !(Number.isInteger(memoryMb) && memoryMb > 0)) {
      throw new Error(`HarborEnv: podBudget.memoryMb must be a positive integer, got ${JSON.stringify(memoryMb)}`);
    }
    this.#weights = opts.profiles ?? { [opts.profile ?? NO_PROFILE_DIALECT]: 1 };
    // Validated now, so a typo fails when the environment is built, not mid-run.
    for (const name of Object.keys(this.#weights)) resolveProfileName(name);
    for (const name of Object.keys(opts.profileChatKwargs ?? {})) resolveProfileName(name);
    this.store = new ImageStore(opts.runtime ?? createRuntime(), opts.images);
    this.pool = new WarmPool(this.store, { max: opts.warmMax, idleMs: (opts.warmIdleSec ?? 600) * 1000 });
  }

  /**
   * Starts `n` boxes of `row`'s task ahead (one at a time, in the background), so that as many later resets of it
   * take a box that is ready; returns how many were asked for (fewer past `warmMax`). Each box serves one episode.
   */
  async warm(row: Pick<EnvRow, "task_dir">, n = 1): Promise<number> {
    if (this.#closed) throw new Error("HarborEnv: warm after close()");
    const task = await loadTask(row.task_dir);
    return this.pool.fill(task, this.#startOptions, n);
  }

  /** Boxes of `row`'s task ready for resets now, and asked for but still starting or queued. */
  async warmCount(row: Pick<EnvRow, "task_dir">): Promise<{ ready: number; pending: number }> {
    return this.pool.countFor(await loadTask(row.task_dir), this.#startOptions);
  }

  get #startOptions(): StartOptions {
    const { workdir, verifierMode, storageMb, podBudget } = this.opts;
    return { workdir, verifierMode, storageMb, podBudget };
  }

  /** The profile (weights key) a row gets for a group; without a group the row's content stands in. */
  pick(row: EnvRow, group?: string | number): string {
    if (row.harness_profile) return row.harness_profile;
    const g = group === undefined ? createHash("sha256").update(JSON.stringify(row)).digest("hex") : String(group);
    return drawProfile(this.#weights, this.opts.profileSeed ?? 0, g, row.task_dir);
  }

  /**
   * Starts an episode of `row` in a fresh container under the group's profile; `limits.maxTurns` stands in for
   * HarborEnv's own (a row's `max_turns` still wins).
   */
  async reset(row: EnvRow, group?: string | number, limits: { maxTurns?: number } = {}): Promise<HarborEpisode> {
    if (this.#closed) throw new Error("HarborEnv: reset after close()");
    const key = this.pick(row, group);
    const full = resolveProfileName(key);
    const model = row.harness_model ?? this.harnessModelFor(key, full);
    const overlays = row.overlay ? [await this.#overlay(row.overlay)] : this.opts.overlays ?? [];
    const profile = withOverlay(withHarnessModel(getProfile(full), model), overlays, model);
    const gap = profile.overlay ? undefined : dialectGapWarning(profile);
    if (gap) warnOnce(gap);
    if (profile.capabilities?.toolSubset && this.opts.tools) {
      const unknown = this.opts.tools.filter((t) => !profile.tools.some((x) => x.schema.function.name === t));
      if (unknown.length) throw new Error(`HarborEnv: tools: unknown ${unknown.join(", ")}`);
      profile.tools = profile.tools.filter((t) => this.opts.tools!.includes(t.schema.function.name));
    }
    const t0 = performance.now();
    const task = await loadTask(row.task_dir);
    // A warm box of the task, even one still starting; else a box of its own (taking back a fill still queued).
    const { box, verifier } = await this.pool.acquire(task, this.#startOptions) ??
      await startBoxes(task, this.store, this.#startOptions);
    const episode = await startEpisode({
      owner: this,
      task,
      box,
      verifier,
      profile,
      profileKey: key,
      harnessProfile: full,
      messages: row.messages,
      chatTemplateKwargs: {
        ...this.opts.chatTemplateKwargs,
        ...(profile.chatTemplateKwargs ?? {}),
        ...(this.opts.profileChatKwargs?.[key] ?? this.opts.profileChatKwargs?.[full] ?? {}),
        ...row.chat_template_kwargs,
      },
      maxTurns: row.max_turns ?? limits.maxTurns ?? this.opts.maxTurns,
      maxOutput: this.opts.maxOutput,
      startedAt: t0,
    });
    this.#open.add(episode);
    if (this.#closed) {
      await episode.close(); // closed while this episode was starting
      throw new Error("HarborEnv: closed while the episode started");
    }
    return episode;
  }

  /** A row's overlay file, read once. */
  #overlay(file: string): Promise<LoadedOverlay> {
    let p = this.#overlayFiles.get(file);
    if (!p) {
      p = readOverlay(file);
      p.catch(() => this.#overlayFiles.delete(file)); // a file fixed later is read again
      this.#overlayFiles.set(file, p);
    }
    return p;
  }

  /** The harness model `harnessModel` gives a profile drawn by weights key `key` (`full`: its name@version). */
  harnessModelFor(key: string, full: string): string | undefined {
    const m = this.opts.harnessModel;
    if (m === undefined || typeof m === "string") return m;
    return m[key] ?? m[full] ?? m[full.split(/[@+]/)[0]];
  }

  /** The reward.json key that is the reward (`rewardKey`). */
  get rewardKey(): string | undefined {
    return this.opts.rewardKey;
  }

  /** The mix's keys when a mix was given (`profiles`), for the one-hot metrics; empty otherwise. */
  get mixKeys(): string[] {
    return this.opts.profiles ? this.profileKeys : [];
  }

  /** The mix's profile names (weights keys). */
  get profileKeys(): string[] {
    return Object.keys(this.#weights);
  }

  /** Episodes started and not yet finished or closed. */
  get openEpisodes(): number {
    return this.#open.size;
  }

  /** Forgets a closed episode (called by `HarborEpisode.close`). */
  closed(ep: HarborEpisode): void {
    this.#open.delete(ep);
  }

  /** Closes every open episode and every box started ahead (removing their containers), and refuses new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...[...this.#open].map((ep) => ep.close()), this.pool.close()]);
  }

  /** `await using env = new HarborEnv(...)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
