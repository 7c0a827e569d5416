/**
 * An episode's pod (issue #41) written as a Kubernetes `v1` Pod manifest, for `podman kube play`: the agent's box
 * `main` first, then the task's other services in start order, sharing one network namespace in which every service
 * name resolves to 127.0.0.1. Made from the parsed compose model; nothing here touches an engine (it only looks
 * whether each bind mount's source is a file or a folder).
 *
 * What a plain Pod spec cannot say, and podman 4.3.1 does with it (found with `tests/kube_play_test.ts`):
 * - no network: there is no Pod field for it, so the pod carries the annotation `pgs/network: none` and the runtime
 *   plays it with `podman kube play --network none` (loopback only);
 * - under `--network none` podman 4.3 drops `hostAliases` from /etc/hosts (it keeps them in the pod's config):
 *   `hostsFile` mounts a hosts file the caller wrote (`hostsFileText`) at /etc/hosts of every container instead;
 * - `emptyDir` becomes a podman volume named as the Pod volume, global to the engine: volumes are named after the pod
 *   so two episodes never share one; `medium: Memory` is not honoured (a disk volume);
 * - `readinessProbe` is ignored by podman 4.3 (and a `livenessProbe` is rewritten into a word-split CMD-SHELL), so
 *   health gating stays the runtime's job; the probe is written for other players;
 * - a `workingDir` the image lacks fails the play ("workdir ... does not exist on container"; `podman run` would make
 *   it): main's image must hold its working directory, as the image pgs bakes the working directory into does
 *   (`ImageStore.withWorkdir`).
 *
 * `cli/harbor_pod.ts` (`pgs harbor pod`) makes the input from a loaded task, naming the images without building.
 */
import { stringify } from "npm:yaml@2.9.1";
import { parseBytes } from "../task/compose_units.ts";
import type { ComposeHealthcheck, ComposeModel, ComposeMount, ComposeService } from "../task/compose_types.ts";

/** What an episode's pod is made of. */
export interface PodManifestInput {
  /** The pod's name (a DNS-1123 label, at most 63 characters); podman names containers `<name>-<container>`. */
  name: string;
  /** The task's name, kept as the annotation `pgs/task`. */
  task: string;
  /** The task's parsed compose file. */
  model: ComposeModel;
  /** The image to run for each service by name, `main` included (built or pulled by the caller). */
  images: Record<string, string>;
  /** The agent's box; its command, directory, environment, user and limits are pgs's (merged by the caller). */
  main: {
    command: string[];
    workdir: string;
    env: Record<string, string>;
    user?: string;
    cpus: number;
    memoryMb: number;
  };
  /** Whether the pod may reach the network; false: annotation `pgs/network: none`, played with `--network none`. */
  network: boolean;
  /** Labels of the pod (podman copies them onto every container). Default {}. */
  labels?: Record<string, string>;
  /** A host file mounted read-only at /etc/hosts in every container (see `hostsFileText`). Default: none. */
  hostsFile?: string;
}

type Obj = Record<string, unknown>;

/** The host names of the pod: every service's name and alias, `main` first, each once. */
export function podHostnames(model: ComposeModel): string[] {
  const names = ["main", ...model.startOrder];
  for (const s of model.startOrder) names.push(...model.services[s].aliases);
  return [...new Set(names)];
}

/** The /etc/hosts a member of the pod needs: localhost and every service name on 127.0.0.1. */
export function hostsFileText(model: ComposeModel): string {
  return `127.0.0.1\tlocalhost ${podHostnames(model).join(" ")}\n::1\tlocalhost\n`;
}

/** Services a `service_completed_successfully` dependency names: they run to the end before main, as init containers. */
export function initServices(model: ComposeModel): string[] {
  const done = new Set<string>();
  for (const s of Object.values(model.services)) {
    for (const [dep, d] of Object.entries(s.dependsOn)) {
      if (d.condition === "service_completed_successfully") done.add(dep);
    }
  }
  return model.startOrder.filter((s) => done.has(s) && s !== "main");
}

/** The Pod manifest of an episode's pod, as an object (see the module's notes for what podman makes of it). */
export function podManifest(input: PodManifestInput): Record<string, unknown> {
  const { model } = input;
  const vols = new Volumes(input.name);
  const inits = initServices(model);
  const main = container("main", imageOf(input, "main"), {
    command: input.main.command, // pgs's idle process replaces ENTRYPOINT and CMD both
    workingDir: input.main.workdir,
    env: envList(input.main.env),
    resources: { limits: { cpu: cpuString(input.main.cpus), memory: `${input.main.memoryMb}Mi` } },
    securityContext: securityContext(input.main.user),
    volumeMounts: mounts(model.services.main, vols, input.hostsFile), // the task's main adds its mounts
  });
  const build = (name: string, init: boolean): Obj => {
    const s = model.services[name];
    const limits: Obj = {};
    if (s.cpus !== undefined) limits.cpu = cpuString(s.cpus);
    if (s.memoryBytes !== undefined) limits.memory = `${Math.ceil(s.memoryBytes / 2 ** 20)}Mi`; // rounded up to MiB
    return container(name, imageOf(input, name), {
      ...commandOf(s),
      workingDir: s.workingDir,
      env: envList(s.environment), // env_file is not read here: the caller folds it into `environment`
      resources: Object.keys(limits).length ? { limits } : undefined, // pids_limit: no Pod field, the runtime's
      securityContext: securityContext(s.user),
      readinessProbe: init ? undefined : probe(s.healthcheck), // Kubernetes refuses probes on init containers
      volumeMounts: mounts(s, vols, input.hostsFile),
    });
  };
  const rest = model.startOrder.filter((s) => s !== "main" && !inits.includes(s));
  const grace = Math.max(10_000, ...Object.values(model.services).map((s) => s.stopGracePeriodMs)); // main's: 10s
  const annotations: Record<string, string> = { "pgs/task": input.task };
  if (!input.network) annotations["pgs/network"] = "none";
  const spec: Obj = {
    restartPolicy: "Never", // an episode's pod runs once; a service that exits stays exited
    terminationGracePeriodSeconds: Math.ceil(grace / 1000), // the longest stop_grace_period of the services
    hostAliases: [{ ip: "127.0.0.1", hostnames: podHostnames(model) }],
  };
  if (inits.length) spec.initContainers = inits.map((s) => build(s, true)); // in start order, each to its end
  spec.containers = [main, ...rest.map((s) => build(s, false))];
  if (vols.list.length) spec.volumes = vols.list;
  const labels = input.labels ?? {};
  return { apiVersion: "v1", kind: "Pod", metadata: { name: input.name, labels, annotations }, spec };
}

/** The Pod manifest of `podManifest` as YAML, for `podman kube play FILE`. */
export function podManifestYaml(input: PodManifestInput): string {
  return stringify(podManifest(input), { lineWidth: 0 });
}

function imageOf(input: PodManifestInput, name: string): string {
  const image = input.images[name];
  if (!image) throw new Error(`pod ${input.name}: no image for service "${name}"`);
  return image;
}

/** A container with its unset (undefined or empty) fields left out. */
function container(name: string, image: string, fields: Obj): Obj {
  const c: Obj = { name, image, imagePullPolicy: "IfNotPresent" }; // the caller built or pulled every image already
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || (Array.isArray(v) && v.length === 0 && k !== "command")) continue;
    c[k] = v;
  }
  return c;
}

/** Compose `entrypoint` is Kubernetes `command` and `command` is `args`, as both replace ENTRYPOINT and CMD. */
function commandOf(s: ComposeService): Obj {
  // `entrypoint: []` clears the image's ENTRYPOINT: the CMD then runs as the command; with no CMD, the image's own.
  if (s.entrypoint?.length === 0) return s.command?.length ? { command: s.command } : {};
  return { command: s.entrypoint, args: s.command };
}

function envList(env: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}

/** CPUs as a Kubernetes quantity: a decimal string ("1", "0.5"). */
function cpuString(cpus: number): string {
  return String(Math.round(cpus * 1000) / 1000);
}

/** A numeric `uid[:gid]` as runAsUser/runAsGroup; a user name has no Pod field, so the image's user runs. */
function securityContext(user: string | undefined): Obj | undefined {
  const m = user?.match(/^(\d+)(?::(\d+))?$/);
  if (!m) return undefined;
  return m[2] === undefined ? { runAsUser: Number(m[1]) } : { runAsUser: Number(m[1]), runAsGroup: Number(m[2]) };
}

/** Milliseconds as whole seconds, rounded up, at least 1. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * A healthcheck as a readinessProbe: exec argv as is, a shell line under /bin/sh -c; interval, timeout and retries
 * as period, timeout and failure threshold when set (else Kubernetes' defaults). `start_period` is left out: failures
 * in it do not count in Compose, and a readiness probe's failures never harm, whereas `initialDelaySeconds` would
 * hold readiness back for the whole period. `inherit` (the image's HEALTHCHECK) and `none`: no probe.
 */
function probe(h: ComposeHealthcheck | undefined): Obj | undefined {
  if (!h || (h.kind !== "exec" && h.kind !== "shell")) return undefined;
  const p: Obj = { exec: { command: h.kind === "exec" ? h.command : ["/bin/sh", "-c", h.command[0]] } };
  if (h.intervalMs !== undefined) p.periodSeconds = seconds(h.intervalMs);
  if (h.timeoutMs !== undefined) p.timeoutSeconds = seconds(h.timeoutMs);
  if (h.retries !== undefined) p.failureThreshold = Math.max(1, h.retries);
  return p;
}

/** The Pod's volumes, each named after the pod (podman makes an engine-global volume of each `emptyDir`). */
class Volumes {
  /** The Pod's `spec.volumes`, in the order first named. */
  readonly list: Obj[] = [];
  private readonly byKey = new Map<string, string>();
  constructor(private readonly pod: string) {}

  /** The name of the volume for `key` (the same key, the same volume), added with `source` when new. */
  add(key: string, source: Obj): string {
    const known = this.byKey.get(key);
    if (known) return known;
    const name = volumeName(this.pod, this.list.length);
    this.byKey.set(key, name);
    this.list.push({ name, ...source });
    return name;
  }
}

/** `<pod>-v<i>`, the pod's part cut (and tagged with a hash of the whole) to keep a 63-character DNS-1123 label. */
function volumeName(pod: string, i: number): string {
  const suffix = `-v${i}`;
  if (pod.length + suffix.length <= 63) return pod + suffix;
  let h = 0x811c9dc5; // FNV-1a over the pod name, so pods alike in their first characters stay apart
  for (const c of pod) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  const tag = `-${h.toString(16).padStart(8, "0")}`;
  return pod.slice(0, 63 - tag.length - suffix.length).replace(/-+$/, "") + tag + suffix;
}

/** A service's mounts: named volumes shared by key, anonymous ones and tmpfs its own, binds as hostPath. */
function mounts(s: ComposeService | undefined, vols: Volumes, hostsFile: string | undefined): Obj[] {
  const out: Obj[] = [];
  const mount = (name: string, mountPath: string, readOnly: boolean) =>
    out.push(readOnly ? { name, mountPath, readOnly } : { name, mountPath });
  (s?.volumes ?? []).forEach((m: ComposeMount, i) => {
    const own = `${s!.name}#${i}`;
    if (m.type === "volume") {
      mount(vols.add(m.source ? `volume:${m.source}` : own, { emptyDir: {} }), m.target, m.readOnly);
    } else if (m.type === "tmpfs") {
      mount(vols.add(own, { emptyDir: tmpfsSource(m.sizeBytes) }), m.target, false);
    } else {
      mount(
        vols.add(`bind:${m.source}`, { hostPath: { path: m.source, type: hostPathType(m.source) } }),
        m.target,
        m.readOnly,
      );
    }
  });
  (s?.tmpfs ?? []).forEach((t, i) => {
    const [target, opts = ""] = t.split(":", 2);
    const size = opts.match(/(?:^|,)size=([^,]+)/)?.[1]; // `/run:size=64m`, read as Docker reads sizes
    const bytes = size === undefined ? undefined : parseBytes(size);
    mount(vols.add(`${s!.name}#tmpfs${i}`, { emptyDir: tmpfsSource(bytes) }), target, false);
  });
  if (hostsFile) {
    out.push({
      name: vols.add("hosts", { hostPath: { path: hostsFile, type: "File" } }),
      mountPath: "/etc/hosts",
      readOnly: true,
    });
  }
  return out;
}

/** A tmpfs as a memory-backed emptyDir, its size as `sizeLimit` in MiB rounded up when given. */
function tmpfsSource(bytes: number | undefined): Obj {
  return bytes === undefined
    ? { medium: "Memory" }
    : { medium: "Memory", sizeLimit: `${Math.ceil(bytes / 2 ** 20)}Mi` };
}

/** `File` or `Directory` as the source is now; a missing source `DirectoryOrCreate` (Compose makes the folder). */
function hostPathType(path: string): string {
  try {
    return Deno.statSync(path).isFile ? "File" : "Directory";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "DirectoryOrCreate";
    throw e;
  }
}
