/**
 * A pod per episode for a task that ships `environment/docker-compose.yaml`: the agent's box (the service `main`)
 * and the task's other services share one network namespace, as the containers of a Kubernetes pod do. Every member
 * reaches the others over loopback and every service name resolves to 127.0.0.1 (`/etc/hosts`); with the network
 * disallowed the pod has loopback only. Named volumes are made per episode and shared by the members that name them.
 *
 * The sidecars start in dependency order as Compose's `up --wait` does: a service waits for its `depends_on`
 * (started, healthy, or exited 0) and `main` is handed to the agent only once its own dependencies hold. A service
 * that exits or fails its healthcheck before then is an InfraError naming it, with the last lines of its log.
 * Healthchecks run as execs in the service (podman without systemd runs none of its own), polled faster than their
 * `interval` (at most every 500 ms) with Docker's verdict kept: unhealthy after `retries` failures in a row once
 * `start_period` has passed, a failure counted at most once per interval.
 */
import { InfraError } from "../base/errors.ts";
import type { Task } from "../task/task.ts";
import type { ComposeHealthcheck, ComposeModel, ComposeMount, ComposeService } from "../task/compose_types.ts";
import { HARBOR_LOG_TARGETS } from "../task/compose_interpolate.ts";
import type { ImageInfo, ImageStore } from "./images.ts";
import { type MemberLimits, type PodBudget, sidecarLimits } from "./pod_budget.ts";
import type { Box, BoxLimits, BoxMount, BoxSpec, ImageHealthcheck, Runtime } from "./runtime.ts";

/** The label naming the pod's episode id on every member, and the member's service. */
export const POD_LABELS = { pod: "pgs.pod", service: "pgs.service" } as const;

/** Docker's healthcheck defaults (interval, timeout, retries), which Compose keeps when a field is unset. */
const DOCKER_HC = { intervalMs: 30_000, timeoutMs: 30_000, retries: 3 } as const;
/** The fastest pgs polls a healthcheck or an exit. */
const POLL_MS = 500;

/** A task's services around the agent's box; made before the box (`prepare`), started after it (`startServices`). */
export class Pod {
  /** The sidecars started so far, by service name. */
  readonly members: Map<string, Box> = new Map();
  readonly #id = crypto.randomUUID().slice(0, 12);
  #removed = false;
  /** Set once the start failed or the pod is being removed: the watches stop polling. */
  #stopped = false;

  private constructor(
    readonly runtime: Runtime,
    readonly task: Task,
    readonly model: ComposeModel,
    readonly images: Map<string, ImageInfo>,
    /** Engine volume names by the file's volume name (and `harbor:<X>` for Harbor's log folders). */
    readonly volumes: Map<string, string>,
  ) {}

  /** Resolves (or builds) every sidecar's image and makes the pod's volumes; nothing is left when it throws. */
  static async prepare(task: Task, model: ComposeModel, store: ImageStore): Promise<Pod> {
    const sidecars = sidecarsOf(model);
    const infos = await Promise.all(sidecars.map((s) => store.resolveService(task, s)));
    const images = new Map(sidecars.map((s, i) => [s.name, infos[i]]));
    const runtime = store.runtime;
    const wanted = new Set<string>(model.volumes);
    for (const s of Object.values(model.services)) {
      for (const m of s.volumes) if (m.type === "bind" && m.harbor) wanted.add(`harbor:${m.harbor}`);
    }
    const volumes = new Map<string, string>();
    const pod = new Pod(runtime, task, model, images, volumes);
    try {
      for (const key of wanted) volumes.set(key, await runtime.createVolume(task.name));
    } catch (e) {
      await runtime.removeVolumes([...volumes.values()]);
      throw e;
    }
    return pod;
  }

  /** The pod's id, a label on every member. */
  get id(): string {
    return this.#id;
  }

  /** What the agent's box (`main`) adds to its spec: the pod's names, its mounts, its labels and its compose env. */
  mainSpec(): Pick<BoxSpec, "hosts" | "mounts" | "labels"> & { env: Record<string, string> } {
    const main = this.model.services.main;
    const hosts = Object.values(this.model.services).flatMap((s) => [s.name, ...s.aliases]);
    // Harbor's log folders a sidecar mounts are the agent's /logs folders too: one volume, both ends.
    const harborMounts: BoxMount[] = [...this.volumes.keys()].filter((k) => k.startsWith("harbor:")).map((k) => ({
      type: "volume",
      source: this.volumes.get(k)!,
      target: HARBOR_LOG_TARGETS[k.slice("harbor:".length) as keyof typeof HARBOR_LOG_TARGETS],
    }));
    return {
      hosts: [...new Set(hosts)],
      mounts: [
        ...harborMounts,
        ...(main ? this.#mounts(main).filter((m) => !harborMounts.some((h) => h.target === m.target)) : []),
      ],
      labels: { [POD_LABELS.pod]: this.#id, [POD_LABELS.service]: "main" },
      env: main ? { ...readEnvFiles(main), ...main.environment } : {},
    };
  }

  /**
   * Starts every sidecar joined to `main`'s namespace, each once its dependencies hold, and returns once `main`'s own
   * dependencies hold. `limits` are main's, and a sidecar's unless it has its own; `budget` bounds the whole pod
   * (`pod_budget.ts`). Throws InfraError (stage `services`) naming the service that failed; the caller removes the pod.
   */
  async startServices(main: Box, limits: BoxLimits, budget?: PodBudget): Promise<void> {
    const own = sidecarLimits(this.task.name, sidecarsOf(this.model), limits, budget);
    const started = new Map<string, Promise<Box>>();
    // Health and exits are watched only for a service someone waits on, once.
    const watched = new Map<string, Promise<unknown>>();
    const watch = (dep: string, cond: string, what: (svc: ComposeService, box: Box) => Promise<void>) => {
      const key = `${dep}\0${cond}`;
      let p = watched.get(key);
      if (!p) {
        p = started.get(dep)!.then((b) => what(this.model.services[dep], b));
        watched.set(key, p);
      }
      return p;
    };
    const reach = (dep: string, cond: string): Promise<unknown> => {
      if (dep === "main") return Promise.resolve();
      if (cond === "service_healthy") return watch(dep, cond, (s, b) => this.#healthy(s, b));
      if (cond === "service_completed_successfully") return watch(dep, cond, (s, b) => this.#exited(s, b));
      return started.get(dep)!;
    };
    for (const name of this.model.startOrder) {
      if (name === "main") continue;
      const svc = this.model.services[name];
      const deps = Object.entries(svc.dependsOn).filter(([d]) => d !== "main");
      const box = Promise.all(deps.map(([d, c]) => reach(d, c.condition))).then(() =>
        this.#start(svc, main, own.get(name)!)
      );
      box.catch(() => {}); // heard through `all` below
      started.set(name, box);
    }
    const mainDeps = Object.entries(this.model.services.main?.dependsOn ?? {});
    const all = [...started.values(), ...mainDeps.map(([d, c]) => reach(d, c.condition))];
    try {
      await Promise.all(all);
      // As `up --wait`: every service runs when the agent starts, but those run to completion for a dependent.
      const oneShot = new Set([...watched.keys()].filter((k) => k.endsWith("\0service_completed_successfully")));
      await Promise.all([...this.members].map(async ([name, box]) => {
        if (oneShot.has(`${name}\0service_completed_successfully`)) return;
        const state = await box.state();
        if (state.status === "stopped") throw await this.#ended(this.model.services[name], box, state.exitCode);
      }));
    } catch (e) {
      this.#stopped = true; // ends the watches still polling
      // A sidecar still starting joins `members` before the caller removes them, so that none is left behind.
      await Promise.allSettled(started.values());
      throw e;
    }
  }

  async #start(svc: ComposeService, main: Box, limits: MemberLimits): Promise<Box> {
    const image = this.images.get(svc.name)!;
    const spec: BoxSpec = {
      image: image.ref,
      joins: main,
      limits,
      role: "service",
      task: this.task.name,
      labels: { [POD_LABELS.pod]: this.#id, [POD_LABELS.service]: svc.name },
      env: { ...readEnvFiles(svc), ...svc.environment },
      workdir: svc.workingDir ?? "",
      ...(svc.user !== undefined ? { user: svc.user } : {}),
      command: svc.command ?? [],
      ...(svc.entrypoint ? { entrypoint: svc.entrypoint } : {}),
      init: svc.init,
      mounts: this.#mounts(svc),
      stage: "services",
    };
    try {
      const box = await this.runtime.start(spec);
      this.members.set(svc.name, box);
      return box;
    } catch (e) {
      if (e instanceof InfraError) {
        throw new InfraError(`${this.task.name}: service ${svc.name}: ${e.message}`, "services");
      }
      throw e;
    }
  }

  /** A service's mounts: its named volumes as the pod's, its bind mounts as they are, its tmpfs. */
  #mounts(svc: ComposeService): BoxMount[] {
    const out: BoxMount[] = svc.volumes.map((m: ComposeMount): BoxMount => {
      if (m.type === "tmpfs") return m;
      if (m.type === "bind" && m.harbor) {
        return {
          type: "volume",
          source: this.volumes.get(`harbor:${m.harbor}`)!,
          target: m.target,
          readOnly: m.readOnly,
        };
      }
      if (m.type === "bind") return m;
      // An anonymous volume (no source) is the box's own: a tmpfs would change its size rules, a volume it is.
      if (!m.source) return { type: "tmpfs", target: m.target };
      return {
        type: "volume",
        source: this.volumes.get(m.source)!,
        target: m.target,
        readOnly: m.readOnly,
        nocopy: m.nocopy,
      };
    });
    for (const t of svc.tmpfs) out.push({ type: "tmpfs", target: t.split(":")[0] });
    return out;
  }

  /** Resolves once `svc`'s healthcheck passes; InfraError when it is unhealthy, has none, or the service ended. */
  async #healthy(svc: ComposeService, box: Box): Promise<void> {
    const hc = healthcheckOf(svc, this.images.get(svc.name)!.healthcheck);
    if (!hc) {
      throw new InfraError(
        `${this.task.name}: service ${svc.name} is a service_healthy dependency but has no healthcheck`,
        "services",
      );
    }
    const interval = hc.intervalMs ?? DOCKER_HC.intervalMs;
    const timeout = hc.timeoutMs ?? DOCKER_HC.timeoutMs;
    const retries = hc.retries ?? DOCKER_HC.retries;
    const startEnds = performance.now() + (hc.startPeriodMs ?? 0);
    // Docker checks once per interval; pgs polls faster, so a failure counts only once per interval.
    let failures = 0;
    let counted = -Infinity;
    let last = "";
    for (;;) {
      if (this.#stopped) throw new InfraError(`${this.task.name}: the pod was stopped`, "services");
      const r = await box.exec(hc.argv, { timeoutMs: timeout });
      if (r.code === 0 && !r.timedOut) return;
      last = r.timedOut ? "timed out" : (r.stderr || new TextDecoder().decode(r.stdout)).trim().split("\n").pop() ?? "";
      const state = await box.state();
      if (state.status !== "running") throw await this.#ended(svc, box, state.exitCode);
      const now = performance.now();
      if (now >= startEnds && now - counted >= interval) {
        failures++;
        counted = now;
      }
      if (failures >= retries) {
        throw new InfraError(
          `${this.task.name}: service ${svc.name} is unhealthy (${hc.argv.join(" ")}: ${last || "failed"})${await tail(
            box,
          )}`,
          "services",
        );
      }
      await sleep(Math.min(interval, POLL_MS));
    }
  }

  /** Resolves once `svc` exited 0 (`service_completed_successfully`); InfraError when it exited otherwise. */
  async #exited(svc: ComposeService, box: Box): Promise<void> {
    // Bounded as setup.sh is: a one-shot service that never ends must not hold the episode's start forever.
    const limitSec = this.task.config.environment.buildTimeoutSec;
    const deadline = performance.now() + limitSec * 1000;
    for (;;) {
      if (this.#stopped) throw new InfraError(`${this.task.name}: the pod was stopped`, "services");
      if (performance.now() > deadline) {
        throw new InfraError(
          `${this.task.name}: service ${svc.name} did not finish within ${limitSec} s (environment.build_timeout_sec)` +
            await tail(box),
          "services",
        );
      }
      const state = await box.state();
      if (state.status === "stopped") {
        if (state.exitCode === 0) return;
        throw await this.#ended(svc, box, state.exitCode);
      }
      if (state.status === "unknown") {
        await this.runtime.assertAnswering("services");
        throw new InfraError(`${this.task.name}: service ${svc.name} is gone: ${state.detail}`, "services");
      }
      await sleep(POLL_MS);
    }
  }

  async #ended(svc: ComposeService, box: Box, code?: number): Promise<InfraError> {
    const how = code === undefined ? "stopped" : `exited ${code}`;
    return new InfraError(
      `${this.task.name}: service ${svc.name} ${how} before the agent started${await tail(box)}`,
      "services",
    );
  }

  /** Removes every sidecar (before `main`: podman keeps a namespace's owner while members joined it). */
  async removeMembers(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.members.values()].map((b) => b.remove()));
  }

  /** Removes the pod's volumes (its boxes removed first); safe to call twice. */
  async removeVolumes(): Promise<void> {
    if (this.#removed) return;
    this.#removed = true;
    await this.runtime.removeVolumes([...this.volumes.values()]);
  }
}

/** The services that run beside `main`, in start order. */
export function sidecarsOf(model: ComposeModel): ComposeService[] {
  return model.startOrder.filter((n) => n !== "main").map((n) => model.services[n]);
}

/** A healthcheck as an argv with its timings: the service's own, else its image's; undefined when there is none. */
export function healthcheckOf(
  svc: ComposeService,
  image?: ImageHealthcheck,
): (Omit<ImageHealthcheck, "test"> & { argv: string[] }) | undefined {
  const own: ComposeHealthcheck | undefined = svc.healthcheck;
  if (own?.kind === "none") return undefined;
  const timings = (h: Omit<ImageHealthcheck, "test"> | ComposeHealthcheck) => ({
    ...(h.intervalMs !== undefined ? { intervalMs: h.intervalMs } : {}),
    ...(h.timeoutMs !== undefined ? { timeoutMs: h.timeoutMs } : {}),
    ...(h.retries !== undefined ? { retries: h.retries } : {}),
    ...(h.startPeriodMs !== undefined ? { startPeriodMs: h.startPeriodMs } : {}),
  });
  if (own && own.kind !== "inherit") {
    const argv = own.kind === "shell" ? ["/bin/sh", "-c", own.command[0]] : own.command;
    return { argv, ...timings(image ?? {}), ...timings(own) };
  }
  if (!image) return undefined;
  const [kind, ...rest] = image.test;
  if (kind === "NONE") return undefined;
  const argv = kind === "CMD-SHELL" ? ["/bin/sh", "-c", rest[0]] : kind === "CMD" ? rest : image.test;
  return { argv, ...timings(image), ...(own ? timings(own) : {}) };
}

/** The `KEY=VALUE` lines of a service's `env_file`s (a missing optional file is skipped), later files winning. */
export function readEnvFiles(svc: ComposeService): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of svc.envFiles) {
    let text: string;
    try {
      text = Deno.readTextFileSync(f.path);
    } catch (e) {
      if (!f.required && e instanceof Deno.errors.NotFound) continue;
      throw new InfraError(`service ${svc.name}: cannot read env_file ${f.path}: ${(e as Error).message}`, "services");
    }
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (!line || line.startsWith("#")) continue;
      const eq = line.indexOf("=");
      const key = (eq < 0 ? line : line.slice(0, eq)).replace(/^export\s+/, "").trim();
      if (eq < 0) continue;
      let value = line.slice(eq + 1).trim();
      const q = value[0];
      if ((q === '"' || q === "'") && value.endsWith(q) && value.length >= 2) value = value.slice(1, -1);
      out[key] = value;
    }
  }
  return out;
}

/** `: <last lines of the log>` for a message, or "" when the box printed nothing. */
async function tail(box: Box): Promise<string> {
  const log = await box.logs(5).catch(() => "");
  return log ? `; its last lines: ${log.split("\n").slice(-5).join(" | ")}` : "";
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
