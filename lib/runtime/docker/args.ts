/** `docker run`/`docker create`/`docker exec` flags: env, limits, hygiene labels, and a whole `run` of a `BoxSpec`. */
import { boxLabels } from "../hygiene.ts";
import type { BoxExecOptions, BoxLimits, BoxSpec } from "../runtime.ts";
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
export function limitArgs(cli: CliEngine, limits: BoxLimits): string[] {
  return [
    ...cli.initArgs,
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

/** `--label` flags marking a container as this process's, for `role` and `task`. */
export function labelArgs(role: string, task: string): string[] {
  return Object.entries(boxLabels(role, task)).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
}

/** The whole `run` of a box: `-d`, or `-i` attached (with `--rm` unless `keep`) for a box tied to a pipe (`spec.pipe`). */
export function runArgs(cli: CliEngine, spec: BoxSpec): string[] {
  const [first, ...rest] = spec.command;
  return [
    "run",
    ...(spec.pipe ? ["-i", ...(spec.pipe.keep ? [] : ["--rm"])] : ["-d", ...(spec.stdinOpen ? ["-i"] : [])]),
    ...limitArgs(cli, spec.limits),
    ...labelArgs(spec.role, spec.task),
    ...envArgs(spec.env ?? {}),
    ...(spec.user !== undefined ? ["-u", spec.user] : []),
    "-w",
    spec.workdir,
    ...(spec.replaceEntrypoint ? ["--entrypoint", first, spec.image, ...rest] : [spec.image, first, ...rest]),
  ];
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
