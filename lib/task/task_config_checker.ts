/** Field checks for task.toml: each error names the field and, where the text shows it, the line. */
import { didYouMean } from "../base/suggest.ts";
import { expandEnv } from "./env_expand.ts";
import { TaskError } from "../base/errors.ts";
import { findKeyLine } from "./toml_lines.ts";
import { warnOnce } from "../base/warn.ts";
import { normalizeAllowedHosts } from "./allowed_hosts.ts";
import type { NetworkPolicy } from "./task_config_types.ts";

/** A TOML table as parsed. */
export type Table = Record<string, unknown>;
/** A dotted key path, as parts. */
export type Path = readonly string[];

const NETWORK = ["network_mode", "allowed_hosts"];
// Keys Harbor defines (reference/harbor.md §1): accepted even where pgs ignores them, so only typos draw a warning.
/** Every key task.toml may hold (the seed's and Harbor's); others are warned about once. */
export const KNOWN: Record<string, string[]> = {
  "": [
    "schema_version",
    "version",
    "task",
    "metadata",
    "verifier",
    "agent",
    "environment",
    "solution",
    "source",
    "multi_step_reward_strategy",
    "steps",
    "artifacts",
  ],
  task: ["name", "version", "description", "authors", "keywords"],
  environment: [
    ...NETWORK,
    "allow_internet",
    "build_timeout_sec",
    "docker_image",
    "os",
    "cpus",
    "memory_mb",
    "memory",
    "storage_mb",
    "storage",
    "pids_limit",
    "gpus",
    "gpu_types",
    "tpu",
    "mcp_servers",
    "env",
    "skills_dir",
    "healthcheck",
    "workdir",
  ],
  "environment.healthcheck": [
    "command",
    "retries",
    "interval_sec",
    "timeout_sec",
    "start_period_sec",
    "start_interval_sec",
  ],
  agent: [...NETWORK, "timeout_sec", "user"],
  verifier: [
    ...NETWORK,
    "allow_internet",
    "timeout_sec",
    "env",
    "user",
    "environment_mode",
    "environment",
    "collect",
    "capture",
    "capture_timeout_sec",
  ],
  solution: ["env"],
};
KNOWN["verifier.environment"] = KNOWN.environment;
KNOWN["steps.healthcheck"] = KNOWN["environment.healthcheck"];
KNOWN["steps.agent"] = KNOWN.agent;
KNOWN["steps.verifier"] = KNOWN.verifier;
KNOWN["verifier.environment.healthcheck"] = KNOWN["environment.healthcheck"];

export type NumberKind = "positive" | "non-negative" | "positive integer" | "non-negative integer";

/** Validation helpers that know the text, so that every error can point at the offending line. */
export class Checker {
  readonly warnings: string[] = [];
  constructor(
    readonly text: string,
    readonly file: string,
    readonly lookup: (name: string) => string | undefined,
  ) {}

  raise(path: Path, detail: string): never {
    throw new TaskError(this.file, detail, findKeyLine(this.text, path));
  }

  fail(path: Path, must: string, got: unknown): never {
    this.raise(path, `${path.join(".")} ${must}, got ${show(got)}`);
  }

  warn(message: string): void {
    const m = `${this.file}: ${message}`;
    this.warnings.push(m);
    warnOnce(m);
  }

  /** Warns, once per run for each key, that an accepted Harbor key has no effect in pgs. */
  notApplied(path: Path): void {
    const key = path.filter((p) => !/^\d+$/.test(p)).join(".");
    const m = `${this.file}: ${key} is accepted but not applied by pgs (further tasks that set it are not named)`;
    this.warnings.push(m);
    warnOnce(m, `not-applied:${key}`);
  }

  unknownKeys(t: Table, path: Path): void {
    const known = KNOWN[schemaKey(path)];
    for (const k of Object.keys(t)) {
      if (!known.includes(k)) this.warn(`unknown key ${[...path, k].join(".")} ignored${didYouMean(k, known, 1)}`);
    }
  }

  /** The sub-table at `path` (last element is its key in `t`), checked for unknown keys when pgs knows its schema. */
  table(t: Table, path: Path): Table | undefined {
    const v = t[path[path.length - 1]];
    if (v === undefined) return undefined;
    if (!isTable(v)) this.fail(path, "must be a table", v);
    if (KNOWN[schemaKey(path)]) this.unknownKeys(v, path);
    return v;
  }

  string(t: Table, path: Path, allowEmpty = false): string | undefined {
    const v = t[path[path.length - 1]];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || (!allowEmpty && v === "")) {
      this.fail(path, allowEmpty ? "must be a string" : "must be a non-empty string", v);
    }
    return v;
  }

  /** A boolean, coerced as Harbor's pydantic models do: `"true"`/`"false"`, `"yes"`/`"no"`, `"on"`/`"off"`, 0/1, ... */
  boolean(t: Table, path: Path): boolean | undefined {
    const v = t[path[path.length - 1]];
    if (v === undefined || typeof v === "boolean") return v;
    const b = laxBoolean(v);
    if (b === undefined) this.fail(path, "must be a boolean", v);
    return b;
  }

  /**
   * A number of `kind`, coerced as Harbor's pydantic models do: a numeric string (`cpus = "2"`, `timeout_sec = "600"`)
   * is its number, and an integer field takes a float with no fraction (`2.0`); anything else is rejected.
   */
  number(t: Table, path: Path, kind: NumberKind, fallback: number): number {
    const v = t[path[path.length - 1]];
    if (v === undefined) return fallback;
    const n = laxNumber(v, kind.endsWith("integer"));
    const ok = n !== undefined && (kind.startsWith("positive") ? n > 0 : n >= 0);
    if (!ok) this.fail(path, `must be a ${kind.endsWith("integer") ? kind : `${kind} number`}`, v);
    return n!;
  }

  /** A user name or numeric id (Harbor's `str | int`), as a string for `docker exec -u`. */
  user(t: Table, path: Path): string | undefined {
    const v = t[path[path.length - 1]];
    if (v === undefined) return undefined;
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) return String(v);
    if (typeof v !== "string" || v.trim() === "" || /\s/.test(v)) {
      this.fail(path, "must be a user name or a non-negative integer id", v);
    }
    return v;
  }

  /** `<key>_mb` or Harbor's deprecated `<key> = "2G"`, in MB; both given and different is an error. */
  size<T extends number | undefined>(e: Table, at: Path, key: "memory" | "storage", fallback: T): number | T {
    const mbPath = [...at, `${key}_mb`];
    const mb = e[mbPath[1]] === undefined ? undefined : this.number(e, mbPath, "positive integer", 0);
    const s = e[key];
    if (s === undefined) return mb ?? fallback;
    const m = typeof s === "string" ? /^\s*(\d+(?:\.\d+)?)\s*([KMG])i?B?\s*$/i.exec(s) : null;
    const scale: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024 };
    const fromString = m ? Math.floor(Number(m[1]) * scale[m[2].toUpperCase()]) : 0;
    if (fromString < 1) {
      this.fail([...at, key], `must be a size of at least 1M like "2G", "512M" or "1024K"`, s);
    }
    if (mb !== undefined && mb !== fromString) {
      const p = at.join(".");
      this.raise([...at, key], `${p}.${key} = ${show(s)} (${fromString} MB) conflicts with ${p}.${key}_mb = ${mb}`);
    }
    return fromString;
  }

  /**
   * A table's network as it states it (Harbor's `network_mode` and `allowed_hosts`, pgs's `allow_internet`), or
   * undefined when it states none. `network_mode` decides over `allow_internet` (warned when they disagree), as in
   * Harbor; `allowed_hosts` is refused without `network_mode = "allowlist"` (a baseline table, whose mode is public
   * when unset in Harbor, may give an empty list) and normalized as Harbor does.
   */
  policy(t: Table, path: Path, baseline: boolean): NetworkPolicy | undefined {
    const allow = this.boolean(t, [...path, "allow_internet"]);
    const mode = t.network_mode;
    const p = path.join(".");
    const modePath = [...path, "network_mode"];
    if (mode !== undefined && mode !== "public" && mode !== "no-network" && mode !== "allowlist") {
      this.fail(modePath, `must be "public", "no-network" or "allowlist"`, mode);
    }
    const hostsPath = [...path, "allowed_hosts"];
    let hosts: string[] | undefined;
    if (t.allowed_hosts !== undefined) {
      const h = t.allowed_hosts;
      if (!Array.isArray(h) || h.some((x) => typeof x !== "string")) {
        this.fail(hostsPath, "must be a list of strings", h);
      }
      const r = normalizeAllowedHosts(h as string[]);
      if ("error" in r) this.raise(hostsPath, `${p}.allowed_hosts: ${r.error}`);
      hosts = r.hosts;
      // A phase table's unset mode is "no override", so any list needs one; a baseline's is public.
      const refused = mode === undefined ? !baseline || hosts.length > 0 : mode !== "allowlist" && hosts.length > 0;
      if (refused) this.raise(hostsPath, `${p}.allowed_hosts is only valid when network_mode='allowlist'.`);
    }
    if (mode === undefined) {
      // Harbor applies the legacy allow_internet only where allowed_hosts is absent; an empty list leaves it public.
      if (hosts !== undefined) return { mode: "public", allowedHosts: [] };
      if (allow === undefined) return undefined;
      return { mode: allow ? "public" : "no-network", allowedHosts: [] };
    }
    if (allow !== undefined && allow !== (mode === "public")) {
      this.warn(`${p}.allow_internet = ${allow} is ignored: ${p}.network_mode = ${show(mode)} decides, as in Harbor`);
    }
    if (mode === "allowlist") {
      // Docker has no host allowlist without a proxy; failing closed keeps a task from reaching what it should not.
      this.warn(`${p}.network_mode = "allowlist" is not enforced; the ${p} phase runs with no network`);
    }
    return { mode, allowedHosts: hosts ?? [] };
  }

  /** An env table: scalars become strings, then a `${VAR}` or `${VAR:-default}` value is read from the host. */
  env(t: Table, path: Path): Record<string, string> {
    const table = this.table(t, path);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(table ?? {})) {
      const field = [...path, k];
      if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
        this.fail(field, "must be a string", v);
      }
      const r = expandEnv(String(v), this.lookup);
      if (r.missing) {
        this.raise(
          field,
          `${
            field.join(".")
          } = "\${${r.missing}}": the host variable ${r.missing} is not set (Harbor refuses to start ` +
            `the task until it is; export it, even empty, or write "\${${r.missing}:-default}")`,
        );
      }
      out[k] = r.value;
    }
    return out;
  }
}

/** pydantic's lax bool: true/false, 0/1, and the strings it names (case-insensitive); undefined otherwise. */
export function laxBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v !== "string") return undefined;
  const s = v.trim().toLowerCase();
  if (["1", "on", "t", "true", "y", "yes"].includes(s)) return true;
  if (["0", "off", "f", "false", "n", "no"].includes(s)) return false;
  return undefined;
}

/** pydantic's lax number: finite numbers and numeric strings; an integer field refuses a fraction. */
export function laxNumber(v: unknown, integer: boolean): number | undefined {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (typeof v === "string") {
    const s = v.trim().replaceAll("_", "");
    const pattern = integer ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
    if (pattern.test(s)) n = Number(s);
  }
  if (n === undefined || !Number.isFinite(n) || (integer && !Number.isInteger(n))) return undefined;
  return n;
}

/** A path's key in KNOWN: array indices left out (`steps.0.healthcheck` → `steps.healthcheck`). */
function schemaKey(path: Path): string {
  return path.filter((p) => !/^\d+$/.test(p)).join(".");
}

export function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export function show(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}
