/**
 * An episode container: fresh from the task image, limited (`--init`, CPUs, memory, PIDs, network), labelled for
 * hygiene, with `environment/workdir/` in place, owned by the image's default user (baked into a derived image when
 * that user's ids are known up front, else staged), `setup.sh` run and the healthcheck passed.
 */
import { dirname, posix } from "node:path";
import { ExecChannel, exportLines, shQuote, text } from "./channel.ts";
import type { ExecEnv, ExecOptions, ExecResult } from "./exec_env.ts";
import type { Box, ProcResult, Runtime } from "./runtime.ts";
import { boxLimits, DEFAULT_STORAGE_MB, withStorage } from "./limits.ts";
import { InfraError } from "../base/errors.ts";
import type { ImageInfo, ImageStore } from "./images.ts";
import { tarArchive, type TarEntry, treeEntries } from "../base/tar.ts";
import type { Task, TaskStep } from "../task/task.ts";
import type { HealthcheckConfig } from "../task/task_config.ts";
import { layerEntries, staticOwner } from "./workdir_image.ts";
import { effectiveWorkdir } from "./workdir.ts";
import { requireGpus } from "./gpus.ts";
import { channelHelper } from "./channel_helper/helper.ts";
import { KILLER_READY } from "./channel_killer.ts";
import { KILLER_SERVER } from "./channel_script.ts";
import { isRootUser } from "./users.ts";
import { agentNetwork, networkAllowed } from "../task/network_plan.ts";
import { Pod } from "./pod.ts";
import { PodBox } from "./pod_box.ts";
import type { PodBudget } from "./pod_budget.ts";

/** Options for starting an episode container. */
export interface SandboxOptions {
  /** Working directory override (default: task.toml's, else the image's WORKDIR, else /workdir). */
  workdir?: string;
  /** Label role (default "episode"). */
  role?: string;
  /**
   * The disk bound, in MB, of the agent's box and every verifier box of a task that sets no `storage_mb` (default
   * `DEFAULT_STORAGE_MB`, 10240; 0: none). Enforced where the engine can (`Runtime.diskBoundProblem`).
   */
  storageMb?: number;
  /** Use one exec per command instead of the channel (default false; for benchmarks and tests). */
  noChannel?: boolean;
  /** Run the channel on the image's `setsid` and `head` instead of pgs' static helper (default false). */
  noHelper?: boolean;
  /**
   * Make the channel's killer the box's main process, on a pipe pgs holds (`run -i`), instead of an exec of its own,
   * where the image runs as root and sets no ENTRYPOINT (elsewhere the main process stays the image's business;
   * default true).
   */
  killerMain?: boolean;
  /**
   * The box's network may change between phases (`agentPhase`, `useNetwork`; default false): set when some phase of
   * the episode has another network than the environment's (see `lib/verify/episode_verifier.ts`).
   */
  switchableNetwork?: boolean;
  /** The most a compose task's whole pod may use (`lib/runtime/pod_budget.ts`; default: no total). */
  podBudget?: PodBudget;
  /**
   * Copy `environment/workdir/` into each new container instead of running an image that holds it (default false;
   * a named USER is always staged, since its ids are only known inside the container).
   */
  stageWorkdir?: boolean;
}

/** Phase timings of a start, in milliseconds. */
export interface StartTimings {
  /** Resolving (or building) the image. */
  image: number;
  /** Creating the container. */
  run: number;
  /** Resolving the image user and staging the working directory. */
  stage: number;
  /** Running environment/setup.sh. */
  setup: number;
  /** Waiting for the healthcheck to pass. */
  healthcheck: number;
  /** Starting a pod's sidecars until `main`'s dependencies held (0 without a pod; their images count in `image`). */
  services: number;
}

/**
 * The agent's image and, for a compose task, the pod's sidecar images and volumes, with the engine's sweep; what was
 * made is removed when a part fails.
 */
async function resolveImages(task: Task, store: ImageStore): Promise<[ImageInfo, Pod | undefined]> {
  const [image, pod] = await Promise.allSettled([
    store.resolve(task),
    task.compose ? Pod.prepare(task, task.compose, store) : Promise.resolve(undefined),
    store.runtime.sweepOrphans(),
  ]);
  if (image.status === "fulfilled" && pod.status === "fulfilled") return [image.value, pod.value];
  if (pod.status === "fulfilled") await pod.value?.removeVolumes();
  throw image.status === "rejected" ? image.reason : (pod as PromiseRejectedResult).reason;
}

async function fileBytes(path: string): Promise<Uint8Array> {
  return await Deno.readFile(path);
}

/** A running episode container with its exec channel. */
export class Sandbox implements ExecEnv {
  /** Phase timings of the start, in milliseconds. */
  readonly timings: StartTimings = { image: 0, run: 0, stage: 0, setup: 0, healthcheck: 0, services: 0 };
  /** The task's sidecars, for a task with `environment/docker-compose.yaml` (default: none). */
  pod?: Pod;
  #removed = false;
  /** The container's own /tmp. */
  readonly scratch = "/tmp";
  /** Set when a command found the container stopped by the agent (the verifier then records `container_dead`). */
  dead = false;
  #background: Promise<unknown>[] = [];
  #onRemove: (() => Promise<unknown>)[] = [];
  /** The run's disk bound for boxes of tasks that set none (`SandboxOptions.storageMb`; 0: none). */
  storageDefault: number = DEFAULT_STORAGE_MB;
  /** Whether the box has the network now (its agent phase's at the start; the tests' may differ). */
  #network = false;

  /** This episode's disk bound in MB (the task's `storage_mb`, else the run's; 0: none): its boxes' and its copies'. */
  get storageMb(): number {
    return this.task.config.environment.storageMb ?? this.storageDefault;
  }

  private constructor(
    /** The image store the episode's images came from (a separate verifier's image comes from it too). */
    readonly store: ImageStore,
    /** The runtime the container runs on. */
    readonly runtime: Runtime,
    /** The container. */
    readonly box: Box,
    readonly task: Task,
    readonly image: ImageInfo,
    readonly workdir: string,
    readonly channel: ExecChannel,
    /** The user the agent's tools run as: `[agent] user`, else the image's USER ("" is root). */
    readonly user: string,
    public uid = 0,
    public gid = 0,
  ) {}

  /** Starts a fresh container for `task`; on any failure nothing is left running. */
  static async start(task: Task, store: ImageStore, opts: SandboxOptions = {}): Promise<Sandbox> {
    const runtime = store.runtime;
    const env = task.config.environment;
    let t = performance.now();
    const lap = () => {
      const now = performance.now();
      const d = now - t;
      t = now;
      return d;
    };
    const [image, pod] = await resolveImages(task, store);
    const workdir = effectiveWorkdir(opts.workdir ?? env.workdir, image.workdir);
    const user = task.config.agent.user ?? image.user;
    if (env.gpus) await requireGpus(runtime, task.name, env.gpus);
    // With an owner known up front, the starting state comes baked into the image the episode runs (one call, not
    // two): the workdir when the task has one, and Harbor's /logs folders always.
    const owner = opts.stageWorkdir ? undefined : staticOwner(user);
    const layer = { hostDir: task.paths.workdir ?? task.paths.environmentUpload, dest: workdir };
    const baked = owner && await store.withWorkdir(image.ref, { ...layer, ...owner }, task).catch(async (e) => {
      await pod?.removeVolumes();
      throw e;
    });
    const runRef = baked || image.ref;
    const imageMs = lap();
    // The killer as the main process saves an exec an episode; a box whose image has an ENTRYPOINT or a USER keeps
    // an idle main process, so that what the image starts, and as whom, is what it would be under Harbor.
    const killerMain = opts.killerMain !== false && image.entrypoint === false && isRootUser(image.user);
    // As Harbor's trial does, the box starts with the environment's network (setup and healthchecks run with it);
    // the agent's turns, and tests run in it, may have their phase's own.
    const baseNet = networkAllowed(task.config.environment.network);
    const switchable = Boolean(opts.switchableNetwork);
    const limits = { ...boxLimits(withStorage(env, opts.storageMb), baseNet), ...(switchable ? { switchable } : {}) };
    // A pod's first member: the pod's names, mounts and labels; the compose file's `main` env over the task's, as
    // Harbor layers the task's file over its own.
    const { env: podEnv, ...member } = pod?.mainSpec() ?? { env: {} };
    const first: Box = await runtime.start({
      image: runRef,
      limits,
      role: opts.role ?? "episode",
      task: task.name,
      env: { ...env.env, ...podEnv },
      ...member,
      workdir,
      ...(killerMain
        ? { command: ["/bin/sh", "-c", KILLER_SERVER], pipe: { ready: KILLER_READY, keep: true } }
        : { command: ["sh", "-c", "sleep infinity"] }),
    }).catch(async (e) => {
      await pod?.removeVolumes();
      throw e;
    });
    // Removing the episode's box takes its pod with it.
    const container: Box = pod ? new PodBox(first, pod) : first;
    const channel = new ExecChannel(container, {
      workdir,
      user: user || undefined,
      forceFallback: opts.noChannel,
      helper: opts.noHelper ? undefined : channelHelper(image.arch ?? ""),
    });
    const box = new Sandbox(store, runtime, container, task, image, workdir, channel, user);
    box.pod = pod;
    box.#network = baseNet;
    box.storageDefault = opts.storageMb ?? DEFAULT_STORAGE_MB;
    box.timings.image = imageMs;
    box.timings.run = lap();
    try {
      if (pod) {
        await pod.startServices(first, limits, opts.podBudget);
        box.timings.services = lap();
      }
      if (owner) [box.uid, box.gid] = [owner.uid, owner.gid];
      else await box.#resolveIds();
      if (!baked) await box.#putTar(await layerEntries({ ...layer, uid: box.uid, gid: box.gid }), "/");
      box.timings.stage = lap();
      if (task.paths.setupSh) await box.runSetup(text(await fileBytes(task.paths.setupSh)), "environment/setup.sh");
      box.timings.setup = lap();
      if (env.healthcheck) await box.healthcheck(env.healthcheck);
      box.timings.healthcheck = lap();
    } catch (e) {
      await box.remove();
      throw e;
    }
    return box;
  }

  async #resolveIds(): Promise<void> {
    const user = this.user;
    if (isRootUser(user)) return;
    const numeric = user.match(/^(\d+)(?::(\d+))?$/);
    if (numeric?.[2]) {
      [this.uid, this.gid] = [Number(numeric[1]), Number(numeric[2])];
      return;
    }
    const r = await this.channel.exec("id -u; id -g", { shell: "sh", timeoutSec: 30 });
    const [u, g] = text(r.stdout).trim().split("\n").map(Number);
    if (r.exitCode !== 0 || !Number.isInteger(u) || !Number.isInteger(g)) {
      throw new InfraError(
        `${this.task.name}: cannot resolve the user ${user}: ${text(r.stderr).trim()}`,
        "start",
      );
    }
    [this.uid, this.gid] = [u, g];
  }

  /** Copies a host directory to `dest` in the container, owned by the agent's user. */
  async stageDir(hostDir: string, dest: string): Promise<void> {
    const entries = await treeEntries(hostDir, posix.basename(dest), this.uid, this.gid);
    await this.#putTar(entries, dirname(dest));
  }

  /** Writes one file into the container, owned by the agent's user (parents must exist). */
  async putFile(dest: string, data: Uint8Array, mode = 0o644): Promise<void> {
    const entry: TarEntry = { name: posix.basename(dest), type: "file", mode, uid: this.uid, gid: this.gid, data };
    await this.#putTar([entry], dirname(dest));
  }

  async #putTar(entries: TarEntry[], parent: string): Promise<void> {
    const r = await this.box.putArchive(parent, tarArchive(entries));
    if (!r.ok) throw new InfraError(`${this.task.name}: copy into ${parent} failed: ${r.error}`, "stage");
  }

  /** The container's id on its runtime. */
  get id(): string {
    return this.box.id;
  }

  /**
   * Runs a task's setup `script` as the agent's user under the build timeout; a failure is an InfraError (stage
   * setup) naming `what` with the end of its output, never the agent's doing.
   */
  async runSetup(script: string, what: string): Promise<void> {
    const r = await this.exec(script, { timeoutSec: this.task.config.environment.buildTimeoutSec });
    if (r.exitCode !== 0 || r.timedOut) {
      const why = r.timedOut ? "timed out" : `exited ${r.exitCode}`;
      const tail = (text(r.stderr).trim() || text(r.stdout).trim()).split("\n").slice(-3).join(" | ");
      throw new InfraError(`${this.task.name}: ${what} ${why}${tail ? `: ${tail}` : ""}`, "setup");
    }
  }

  /** The agent's turns (of the first step, or of `step`) begin: the box gets the agent phase's network. */
  async agentPhase(step?: TaskStep): Promise<void> {
    const net = await this.useNetwork(networkAllowed(agentNetwork(this.task.config, step?.config)));
    if (!net.ok) throw new InfraError(`${this.task.name}: ${net.error}`, "start");
  }

  /** Between phases (a later step's setup): the environment's network again, as Harbor restores its baseline. */
  async betweenPhases(): Promise<void> {
    const net = await this.useNetwork(networkAllowed(this.task.config.environment.network));
    if (!net.ok) throw new InfraError(`${this.task.name}: ${net.error}`, "setup");
  }

  /** Gives the box the network or takes it away (a no-op when it is so already); the engine's words when it cannot. */
  async useNetwork(allow: boolean): Promise<{ ok: true } | { ok: false; error: string }> {
    if (allow === this.#network) return { ok: true };
    const r = await this.box.setNetwork(allow);
    if (!r.ok) {
      return { ok: false, error: `cannot ${allow ? "give the box the network" : "take the network away"}: ${r.error}` };
    }
    this.#network = allow;
    return r;
  }

  /** Runs `hc` until it passes; an InfraError when its retries are used up. */
  async healthcheck(hc: HealthcheckConfig): Promise<void> {
    const started = performance.now();
    let failures = 0;
    let last = "";
    for (;;) {
      const r = await this.exec(hc.command, { shell: "sh", timeoutSec: hc.timeoutSec });
      if (r.exitCode === 0 && !r.timedOut) return;
      last = r.timedOut
        ? "timed out"
        : `exit ${r.exitCode}${text(r.stderr).trim() ? `: ${text(r.stderr).trim()}` : ""}`;
      const inStartPeriod = performance.now() - started < hc.startPeriodSec * 1000;
      if (!inStartPeriod && ++failures > hc.retries) {
        throw new InfraError(
          `${this.task.name}: healthcheck failed ${failures} times (${hc.command}): ${last.split("\n").pop()}`,
          "healthcheck",
        );
      }
      await new Promise((r) => setTimeout(r, hc.intervalSec * 1000));
    }
  }

  /** Runs a script as the agent's user, in the working directory unless `cwd` says otherwise. */
  exec(script: string, opts: ExecOptions & { env?: Record<string, string> } = {}): Promise<ExecResult> {
    const exports = exportLines(opts.env ?? {});
    return this.channel.exec(exports + script, { cwd: this.workdir, ...opts });
  }

  /** Runs a command as root through its own exec (capture, diagnostics); never through the agent's channel. */
  execRoot(argv: string[], timeoutSec: number): Promise<ProcResult> {
    return this.box.exec(argv, { user: "0", workdir: "/", timeoutMs: timeoutSec * 1000 });
  }

  /** True while the container runs (the agent may have killed it); EngineDownError when the engine does not answer. */
  async running(): Promise<boolean> {
    const state = await this.box.state();
    if (state.status === "unknown") await this.runtime.assertAnswering("inspect");
    return state.status === "running";
  }

  /** Keeps work that must finish before `remove()` resolves (e.g. removing a verifier's container). */
  background(p: Promise<unknown>): void {
    this.#background.push(p.catch(() => {}));
  }

  /** Runs `fn` when the box is removed (what the episode made beside it, e.g. an unused verifier box). */
  onRemove(fn: () => Promise<unknown>): void {
    this.#onRemove.push(fn);
  }

  /** Stops the channel and removes the container, with what `onRemove` names; safe to call twice. */
  async remove(): Promise<void> {
    if (this.#removed) return;
    this.#removed = true;
    await Promise.all([
      this.#removeBox(),
      ...this.#onRemove.map((fn) => fn().catch(() => {})),
      ...this.#background,
    ]);
  }

  /**
   * Removes the agent's container now, while the episode's last verification goes on without it (its copy is taken):
   * the removal overlaps the tests instead of following them. `remove()` still waits for it.
   */
  releaseAgent(): void {
    this.background(this.#removeBox());
  }

  #boxRemoval?: Promise<unknown>;

  #removeBox(): Promise<unknown> {
    return this.#boxRemoval ??= Promise.all([this.channel.close().catch(() => {}), this.box.remove()]);
  }

  /** Shell-quoted working directory, for scripts. */
  get quotedWorkdir(): string {
    return shQuote(this.workdir);
  }
}
