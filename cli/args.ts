/** Strict flag parsing for every command: unknown flags and missing values are usage errors (exit 2). */
import { didYouMean } from "../lib/base/suggest.ts";
import { type LoadedOverlay, readOverlay } from "../lib/harness/overlay.ts";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../lib/base/errors.ts";
import { createRuntime, DEFAULT_RUNTIME, runtimeNames } from "../lib/runtime/registry.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { DEFAULT_STORAGE_MB } from "../lib/runtime/limits.ts";
import type { PodBudget } from "../lib/runtime/pod_budget.ts";
import { parseVerifierMode, VERIFIER_MODES, type VerifierMode } from "../lib/task/verifier_mode.ts";

/** A command of the CLI. */
export interface Command {
  /** Words after `pgs`, e.g. `harbor check`. */
  name: string;
  /** One line for `pgs --help`. */
  summary: string;
  /** Full help text. */
  usage: string;
  /** Runs the command; returns the exit code. */
  run(argv: string[]): Promise<number>;
  /** True when the command handles SIGINT/SIGTERM itself (default false: the CLI's container cleanup does). */
  ownSignals?: boolean;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A value that looks like a negative number (`-1`, `-0.5`): an option's value, never an option. */
const NEGATIVE = /^-(\d|\.\d)/;

/**
 * `-k -1` and `--seed -3` as `-k=-1` and `--seed=-3`: parseArgs reads a value starting with a dash as "ambiguous", so a
 * negative number would never reach the check that says what is wrong with it.
 */
function joinNegatives(argv: string[], options: Options): string[] {
  const takesValue = (arg: string) => {
    if (arg.startsWith("--")) return options[arg.slice(2)]?.type === "string";
    if (/^-[^-]$/.test(arg)) return Object.values(options).some((o) => o.short === arg[1] && o.type === "string");
    return false;
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") return [...out, ...argv.slice(i)];
    if (takesValue(argv[i]) && NEGATIVE.test(argv[i + 1] ?? "")) {
      out.push(argv[i].startsWith("--") ? `${argv[i]}=${argv[i + 1]}` : `${argv[i]}${argv[i + 1]}`);
      i++;
    } else out.push(argv[i]);
  }
  return out;
}

/** parseArgs' message as one line naming the flag. */
function flagMessage(message: string): string {
  const first = message.split("\n")[0].split(". To specify")[0];
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(first);
  if (ambiguous) {
    const flag = ambiguous[1], spelled = flag.startsWith("--") ? `${flag}=VALUE` : `${flag}VALUE`;
    return `${flag} needs a value (to pass one that starts with a dash, write ${spelled})`;
  }
  const missing = /^Option '(?:-\w, )?(--?[\w-]+)[^']*' argument missing/.exec(first);
  if (missing) return `${missing[1]} needs a value`;
  return first;
}

/** Parses `argv` strictly; `--help` is added to every command. */
export function parseFlags<O extends Options>(cmd: string, argv: string[], options: O) {
  const all = { ...options, help: { type: "boolean", short: "h" } } as const;
  try {
    return parseArgs({ args: joinNegatives(argv, all), options: all, allowPositionals: true, strict: true });
  } catch (e) {
    const message = flagMessage((e as Error).message);
    // A mistyped flag (`--max_turns`, `--temprature`) is named with the one it is close to.
    const unknown = /^Unknown option '(--[^']+)'/.exec(message)?.[1];
    const near = unknown ? didYouMean(unknown.replaceAll("_", "-"), Object.keys(all).map((k) => `--${k}`)) : "";
    throw new UsageError(`${cmd}: ${message}${near}`);
  }
}

/** A positive integer flag value, or a usage error naming the flag. */
export function positiveInt(cmd: string, flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${cmd}: --${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A number flag value (any finite number), or a usage error naming the flag. */
export function numberFlag(cmd: string, flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) {
    throw new UsageError(`${cmd}: --${flag} must be a number, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A `--storage-mb` value: a non-negative integer (0: no disk bound), or a usage error naming the flag. */
export function storageMbFlag(cmd: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0) {
    throw new UsageError(
      `${cmd}: --storage-mb must be a non-negative integer (0: no bound), got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** The help lines of `--storage-mb`, shared by every command that takes it. */
export const STORAGE_MB_HELP =
  `  --storage-mb N      disk bound in MB of each box (the agent's and the verifier's) of a task that sets no
                      storage_mb; 0: none (default ${DEFAULT_STORAGE_MB}). Enforced where the engine can (btrfs,
                      zfs, overlay on XFS with pquota); elsewhere the run says so once`;

/** The flags of a pod budget, shared by every command that takes them (`podBudgetFlags` reads them). */
export const POD_BUDGET_FLAGS = {
  "pod-cpus": { type: "string" },
  "pod-memory-mb": { type: "string" },
} as const;

/**
 * The most a compose task's whole pod may use, from `--pod-cpus` (a positive number) and `--pod-memory-mb` (a positive
 * integer): undefined when neither is given (no total), else a usage error naming the flag on a bad value.
 */
export function podBudgetFlags(
  cmd: string,
  values: { "pod-cpus"?: unknown; "pod-memory-mb"?: unknown },
): PodBudget | undefined {
  const cpus = values["pod-cpus"] as string | undefined, mem = values["pod-memory-mb"] as string | undefined;
  if (cpus === undefined && mem === undefined) return undefined;
  const budget: PodBudget = {};
  if (cpus !== undefined) {
    const n = Number(cpus);
    if (cpus.trim() === "" || !Number.isFinite(n) || n <= 0) {
      throw new UsageError(`${cmd}: --pod-cpus must be a positive number, got ${JSON.stringify(cpus)}`);
    }
    budget.cpus = n;
  }
  if (mem !== undefined) {
    const n = Number(mem);
    if (mem.trim() === "" || !Number.isInteger(n) || n < 1) {
      throw new UsageError(`${cmd}: --pod-memory-mb must be a positive integer, got ${JSON.stringify(mem)}`);
    }
    budget.memoryMb = n;
  }
  return budget;
}

/** The help lines of `--pod-cpus` and `--pod-memory-mb`, shared by every command that takes them. */
export const POD_BUDGET_HELP =
  `  --pod-cpus N        CPUs of a compose task's whole pod (main and its sidecars together): main keeps the
                      task's limits, the sidecars share the rest (default: no total)
  --pod-memory-mb N   memory in MB of a compose task's whole pod, shared the same way (default: no total)`;

/** A `--verifier-mode` value, or a usage error listing the modes. */
export function verifierModeFlag(cmd: string, value: string | undefined): VerifierMode | undefined {
  if (value === undefined) return undefined;
  const mode = parseVerifierMode(value);
  if (!mode) {
    throw new UsageError(
      `${cmd}: --verifier-mode must be one of ${VERIFIER_MODES.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  return mode;
}

/**
 * A `--harness-model` value: a model name, or a JSON object of names by profile (`{"gemini-cli": "gemini-2.5-pro"}`).
 */
export function harnessModelFlag(cmd: string, value: string | undefined): string | Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!value.trim().startsWith("{")) {
    if (value.trim() === "") throw new UsageError(`${cmd}: --harness-model must be a model name`);
    return value;
  }
  let o: unknown;
  try {
    o = JSON.parse(value);
  } catch (e) {
    throw new UsageError(`${cmd}: --harness-model: not JSON (${(e as Error).message})`);
  }
  if (!o || typeof o !== "object" || Array.isArray(o) || Object.values(o).some((v) => typeof v !== "string" || !v)) {
    throw new UsageError(`${cmd}: --harness-model must be a name or a JSON object of names by profile`);
  }
  return o as Record<string, string>;
}

/** The `--overlay` files, read and checked; a usage error names the bad one. */
export async function readOverlays(cmd: string, files: string[] | undefined): Promise<LoadedOverlay[]> {
  const out: LoadedOverlay[] = [];
  for (const f of files ?? []) {
    try {
      out.push(await readOverlay(f));
    } catch (e) {
      throw new UsageError(`${cmd}: --overlay: ${(e as Error).message}`);
    }
  }
  return out;
}

/** The help lines of `--verifier-mode`, shared by every command that takes it. */
export const VERIFIER_MODE_HELP =
  `  --verifier-mode M   where the tests run, for every task: isolated (a clean container holding a copy of the
                      working directory), shared (Harbor's default: the agent's container after the episode),
                      separate (Harbor's separate verifier image), snapshot (a fresh container of the agent's
                      committed one) or shared-clean (shared, with every process the agent started stopped
                      first). Default: the task's environment_mode, else isolated for pgs's own layout
                      (environment/workdir/, setup.sh, capture), else shared`;

/** `runtimeFlag`'s runtime, once its engine answers its ping; a usage error naming the engine otherwise. */
export async function answeringRuntime(cmd: string, value: string | undefined): Promise<Runtime> {
  const runtime = runtimeFlag(cmd, value);
  if (!await runtime.ping()) throw new UsageError(`${cmd}: no ${runtime.kind} engine answers at ${runtime.engine}`);
  return runtime;
}

/** A `--runtime` value made into a client of its engine (default docker), or a usage error listing the runtimes. */
export function runtimeFlag(cmd: string, value: string | undefined): Runtime {
  const name = value ?? DEFAULT_RUNTIME;
  if (!runtimeNames().includes(name)) {
    throw new UsageError(`${cmd}: --runtime must be one of ${runtimeNames().join(", ")}, got ${JSON.stringify(name)}`);
  }
  return createRuntime(name);
}

/** The help line of `--runtime`, shared by every command that takes it. */
export const RUNTIME_HELP = `  --runtime R   the container runtime: ${
  runtimeNames().join(" or ")
} (default ${DEFAULT_RUNTIME}; its engine is
                DOCKER_HOST's for docker, CONTAINER_HOST's for podman)`;
