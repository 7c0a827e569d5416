/**
 * Compose interpolation (`${VAR}`, `${VAR:-d}`, `${VAR-d}`, `${VAR:?msg}`, `${VAR?msg}`, `${VAR:+alt}`, `${VAR+alt}`,
 * `$VAR`, `$$` for a `$`) over the values of a parsed Compose file, with the variables Harbor gives `docker compose`:
 * the OS environment, then the task's `[environment] env` over it, then Harbor's own over both
 * (wrongbutworks/harbor@39b85872597ea710077d8c93095059bca3ca4ed2:src/harbor/environments/docker/compose_env.py,
 * `merge_compose_env`, and `docker.py`, `_compose_env_vars`).
 */

/** The container-side paths Harbor mounts its log folders at (Harbor's `EnvironmentPaths`). */
export const HARBOR_LOG_TARGETS = {
  AGENT_LOGS: "/logs/agent",
  VERIFIER_LOGS: "/logs/verifier",
  ARTIFACTS: "/logs/artifacts",
} as const;

/** Which of Harbor's log folders a `HOST_*_PATH` variable names. */
export type HarborLogMount = "AGENT_LOGS" | "VERIFIER_LOGS" | "ARTIFACTS";

/** What Harbor's own compose variables are made of. */
export interface HarborVarsInput {
  /** The task's `environment/` folder, absolute: `CONTEXT_DIR`. */
  contextDir: string;
  /** The image `main` is built as: `MAIN_IMAGE_NAME`. Default `hb__main`. */
  mainImageName?: string;
  /** `[environment] docker_image`, when the task is prebuilt: `PREBUILT_IMAGE_NAME`. Default: not set. */
  prebuiltImageName?: string;
  /** The CPU limit of `main`: `CPUS`. Default: not set. */
  cpus?: number;
  /** The memory limit of `main` in MB: `MEMORY` (`2048M`). Default: not set. */
  memoryMb?: number;
  /** The host folders of `/logs/agent`, `/logs/verifier` and `/logs/artifacts`: `HOST_*_PATH` and `ENV_*_PATH`. */
  hostLogs?: Partial<Record<HarborLogMount, string>>;
}

/**
 * Harbor's infrastructure variables (`ComposeInfraEnvVars` and `legacy_log_mount_env_vars`): `MAIN_IMAGE_NAME`,
 * `CONTEXT_DIR`, `PREBUILT_IMAGE_NAME`, `CPUS`, `MEMORY`, and for each log folder given `HOST_<X>_PATH` (the host
 * folder) and `ENV_<X>_PATH` (its path in the container) with X one of AGENT_LOGS, VERIFIER_LOGS, ARTIFACTS.
 */
export function harborComposeVars(input: HarborVarsInput): Record<string, string> {
  const out: Record<string, string> = {
    MAIN_IMAGE_NAME: input.mainImageName ?? "hb__main",
    CONTEXT_DIR: input.contextDir,
  };
  if (input.prebuiltImageName) out.PREBUILT_IMAGE_NAME = input.prebuiltImageName;
  if (input.cpus !== undefined) out.CPUS = String(input.cpus);
  if (input.memoryMb !== undefined) out.MEMORY = `${input.memoryMb}M`;
  for (const [key, target] of Object.entries(HARBOR_LOG_TARGETS)) {
    const host = input.hostLogs?.[key as HarborLogMount];
    if (host === undefined) continue;
    out[`ENV_${key}_PATH`] = target;
    out[`HOST_${key}_PATH`] = host;
  }
  return out;
}

/** The three layers of compose variables, lowest first; each later layer wins. */
export interface ComposeEnv {
  /** The OS environment pgs runs in (`Deno.env.toObject()`). Default {}. */
  os?: Record<string, string>;
  /** The task's `[environment] env`, its `${VAR}` templates already read from the host. Default {}. */
  task?: Record<string, string>;
  /** Harbor's own variables (`harborComposeVars`). Default {}: none. */
  harbor?: Record<string, string>;
}

/** The variables Compose sees: the OS env, then the task env, then Harbor's, each later one winning. */
export function composeVariables(env: ComposeEnv): Record<string, string> {
  return { ...env.os, ...env.task, ...env.harbor };
}

/** A value Compose cannot interpolate: `${VAR:?msg}` on an unset variable, or a `$` that starts nothing. */
export class InterpolationError extends Error {
  /** Always "InterpolationError". */
  override name = "InterpolationError";
}

const NAME = /^[_a-zA-Z][_a-zA-Z0-9]*/;

/**
 * Interpolates one string. `vars` holds the variables; `unset` collects names used without a value or default
 * (Compose warns and substitutes ""). Throws InterpolationError for `:?`/`?` on a missing value and for a bad `$`.
 */
export function interpolate(text: string, vars: Record<string, string>, unset: Set<string> = new Set()): string {
  const get = (name: string) => Object.hasOwn(vars, name) ? vars[name] : undefined;
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== "$") {
      out += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
      continue;
    }
    if (next === "{") {
      const end = closingBrace(text, i + 2);
      if (end < 0) throw new InterpolationError(`invalid interpolation format: "${text}" (an unclosed \${)`);
      out += braced(text.slice(i + 2, end), text, vars, get, unset);
      i = end + 1;
      continue;
    }
    const m = NAME.exec(text.slice(i + 1));
    if (!m) throw new InterpolationError(`invalid interpolation format: "${text}" (write $$ for a literal $)`);
    const v = get(m[0]);
    if (v === undefined) unset.add(m[0]);
    out += v ?? "";
    i += 1 + m[0].length;
  }
  return out;
}

/** The index of the `}` closing a `${` whose body starts at `from`, nested `${...}` included; -1 if none. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let j = from; j < text.length; j++) {
    if (text[j] === "$" && text[j + 1] === "$") j++;
    else if (text[j] === "$" && text[j + 1] === "{") {
      depth++;
      j++;
    } else if (text[j] === "}" && --depth === 0) return j;
  }
  return -1;
}

function braced(
  body: string,
  whole: string,
  vars: Record<string, string>,
  get: (name: string) => string | undefined,
  unset: Set<string>,
): string {
  const m = NAME.exec(body);
  if (!m) throw new InterpolationError(`invalid interpolation format: "${whole}" (no variable name in \${${body}})`);
  const name = m[0];
  const rest = body.slice(name.length);
  const value = get(name);
  if (rest === "") {
    if (value === undefined) unset.add(name);
    return value ?? "";
  }
  const op = /^(:-|-|:\?|\?|:\+|\+)/.exec(rest)?.[0];
  if (!op) throw new InterpolationError(`invalid interpolation format: "${whole}" (unknown operator in \${${body}})`);
  const arg = () => interpolate(rest.slice(op.length), vars, unset);
  const missing = op.startsWith(":") ? value === undefined || value === "" : value === undefined;
  switch (op) {
    case ":-":
    case "-":
      return missing ? arg() : value!;
    case ":?":
    case "?": {
      if (!missing) return value!;
      const msg = arg();
      const what = op === ":?" ? "is missing a value" : "is not set";
      throw new InterpolationError(`required variable ${name} ${what}${msg ? `: ${msg}` : ""}`);
    }
    default:
      return missing ? "" : arg();
  }
}

/**
 * Interpolates every string value (never a key) of a parsed Compose document, as Compose does before it checks the
 * schema. `onError(path, err)` turns a failure into the caller's error, given the path of the value.
 */
export function interpolateTree(
  node: unknown,
  vars: Record<string, string>,
  unset: Set<string>,
  onError: (path: (string | number)[], err: InterpolationError) => never,
  path: (string | number)[] = [],
): unknown {
  if (typeof node === "string") {
    try {
      return interpolate(node, vars, unset);
    } catch (e) {
      if (e instanceof InterpolationError) onError(path, e);
      throw e;
    }
  }
  if (Array.isArray(node)) return node.map((v, i) => interpolateTree(v, vars, unset, onError, [...path, i]));
  if (node !== null && typeof node === "object") {
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, interpolateTree(v, vars, unset, onError, [...path, k])]),
    );
  }
  return node;
}
