/** `docker run`/`docker create`/`docker exec` flags: env, limits, hygiene labels, and a whole `run` of a `BoxSpec`. */
import { boxLabels } from "../hygiene.ts";
import { join } from "node:path";
import type { BoxExecOptions, BoxLimits, BoxMount, BoxSpec, BuildOptions, ImageHealthcheck } from "../runtime.ts";
import type { CliEngine } from "./engine.ts";

/** The `-e` flags of an env table. */
export function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
}

/**
 * The engine's init flags, the CPU, memory (swap off) and PID limits, `--gpus` when asked, the disk bound when given
 * (`--storage-opt size=NM`: the runtime drops it where the engine cannot enforce it), `--network none` unless allowed
 * (or switchable on an engine that cannot connect such a box later: it then starts on the public network, which the
 * runtime takes away before the box is handed out).
 */
export function limitArgs(cli: CliEngine, limits: BoxLimits, init = true): string[] {
  return [
    ...(init ? cli.initArgs : cli.initArgs.filter((a) => a !== "--init")),
    `--cpus=${limits.cpus}`,
    `--memory=${limits.memoryMb}m`,
    `--memory-swap=${limits.memoryMb}m`,
    `--pids-limit=${limits.pidsLimit}`,
    ...(limits.gpus ? [`--gpus=${limits.gpus}`] : []),
    ...(limits.storageMb ? ["--storage-opt", `size=${limits.storageMb}M`] : []),
    ...networkArgs(cli, limits),
  ];
}

/** `--network none`, or the public network (no flag for the engine's default, unless the box must leave it later). */
function networkArgs(cli: CliEngine, limits: BoxLimits): string[] {
  const leavesLater = Boolean(limits.switchable) && !cli.connectsFromNone;
  if (!limits.network && !leavesLater) return ["--network", "none"];
  return cli.network || leavesLater ? ["--network", cli.network ?? cli.defaultNetwork] : [];
}

/** `--label` flags marking a container as this process's, for `role` and `task`, with `more` labels. */
export function labelArgs(role: string, task: string, more: Record<string, string> = {}): string[] {
  return Object.entries({ ...more, ...boxLabels(role, task) }).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
}

/** The whole `run` of a box: `-d`, or `-i` attached (with `--rm` unless `keep`) for a box tied to a pipe (`spec.pipe`). */
export function runArgs(cli: CliEngine, spec: BoxSpec): string[] {
  const limits = spec.joins ? [...limitArgs(cli, { ...spec.limits, network: false }, spec.init)] : [
    ...limitArgs(cli, spec.limits, spec.init),
  ];
  if (spec.joins) {
    // A member that joins a pod takes the first member's namespace (and, with it, its /etc/hosts on Docker).
    const net = limits.indexOf("--network");
    if (net >= 0) limits.splice(net, 2);
    limits.push("--network", `container:${spec.joins.id}`);
  }
  return [
    "run",
    ...(spec.pipe ? ["-i", ...(spec.pipe.keep ? [] : ["--rm"])] : ["-d", ...(spec.stdinOpen ? ["-i"] : [])]),
    ...limits,
    ...(spec.stopTimeoutSec !== undefined ? [`--stop-timeout=${spec.stopTimeoutSec}`] : []),
    ...(spec.hosts ?? []).flatMap((h) => ["--add-host", `${h}:127.0.0.1`]),
    ...(spec.mounts ?? []).flatMap(mountArgs),
    ...labelArgs(spec.role, spec.task, spec.labels),
    ...envArgs(spec.env ?? {}),
    ...(spec.user !== undefined ? ["-u", spec.user] : []),
    ...(spec.workdir ? ["-w", spec.workdir] : []),
    ...imageAndCommand(spec),
  ];
}

/** `--entrypoint`, the image and the command: a `spec.entrypoint` argv, or `replaceEntrypoint`'s first word. */
function imageAndCommand(spec: BoxSpec): string[] {
  if (spec.entrypoint) {
    const [first, ...rest] = spec.entrypoint;
    return ["--entrypoint", first ?? "", spec.image, ...rest, ...spec.command];
  }
  const [first, ...rest] = spec.command;
  if (first === undefined) return [spec.image];
  return spec.replaceEntrypoint ? ["--entrypoint", first, spec.image, ...rest] : [spec.image, first, ...rest];
}

/** The `--mount` (volume, bind) or `--tmpfs` flags of one mount. */
export function mountArgs(m: BoxMount): string[] {
  if (m.type === "tmpfs") return ["--tmpfs", m.sizeBytes ? `${m.target}:size=${m.sizeBytes}` : m.target];
  const opts = [
    `type=${m.type}`,
    `source=${m.source}`,
    `target=${m.target}`,
    ...(m.readOnly ? ["readonly"] : []),
    ...(m.type === "volume" && m.nocopy ? ["volume-nocopy"] : []),
  ];
  return ["--mount", opts.join(",")];
}

/** `build` flags beyond the context: `-f` (a path inside the context), `--build-arg`s and `--target`. */
export function buildArgs(contextDir: string, opts: BuildOptions): string[] {
  return [
    ...(opts.dockerfile && opts.dockerfile !== "Dockerfile" ? ["-f", join(contextDir, opts.dockerfile)] : []),
    ...Object.entries(opts.args ?? {}).flatMap(([k, v]) => ["--build-arg", `${k}=${v}`]),
    ...(opts.target ? ["--target", opts.target] : []),
  ];
}

/** An image's HEALTHCHECK from `image inspect`'s `.Config.Healthcheck` (durations in ns), when it sets one. */
export function imageHealthcheck(raw: unknown): { healthcheck?: ImageHealthcheck } {
  if (!raw || typeof raw !== "object") return {};
  const h = raw as Record<string, unknown>;
  if (!Array.isArray(h.Test) || !h.Test.length) return {};
  const ms = (v: unknown) => typeof v === "number" && v > 0 ? Math.round(v / 1e6) : undefined;
  const hc: ImageHealthcheck = { test: h.Test.map(String) };
  const [interval, timeout, start] = [ms(h.Interval), ms(h.Timeout), ms(h.StartPeriod)];
  if (interval) hc.intervalMs = interval;
  if (timeout) hc.timeoutMs = timeout;
  if (start) hc.startPeriodMs = start;
  if (typeof h.Retries === "number" && h.Retries > 0) hc.retries = h.Retries;
  return { healthcheck: hc };
}

/** The flags of an `exec` before the container's id: `-i` with stdin, then user, directory and env. */
export function execArgs(opts: BoxExecOptions & { interactive?: boolean }): string[] {
  return [
    ...(opts.interactive ? ["-i"] : []),
    ...(opts.user !== undefined ? ["-u", opts.user] : []),
    ...(opts.workdir !== undefined ? ["-w", opts.workdir] : []),
    ...envArgs(opts.env ?? {}),
  ];
}
