/** One Compose service, already interpolated and checked against the schema, read into a `ComposeService`. */
import { isAbsolute, relative, resolve } from "node:path";
import type { HarborLogMount } from "./compose_interpolate.ts";
import type {
  ComposeBuild,
  ComposeDependency,
  ComposeHealthcheck,
  ComposeMount,
  ComposeService,
} from "./compose_types.ts";
import { parseBool, parseBytes, parseCount, parseCpus, parseDuration, shellWords } from "./compose_units.ts";

/** What reading a service needs from its file. */
export interface ServiceContext {
  /** The folder of the compose file (`<task>/environment`), absolute: relative paths start here. */
  envDir: string;
  /** The task folder, absolute. */
  taskDir: string;
  /** The compose variables (bare `environment` and `args` names read from them). */
  vars: Record<string, string>;
  /** Harbor's log folders on the host, by which `HOST_*_PATH` each is. */
  harborHostPaths: Map<string, HarborLogMount>;
  /** Throws the one-line error for the field at `path` (keys below the service). */
  fail(path: (string | number)[], message: string): never;
}

/** The fields pgs applies; every other field the schema allows is listed in `ignored`. */
const APPLIED = new Set([
  "image",
  "build",
  "command",
  "entrypoint",
  "environment",
  "env_file",
  "working_dir",
  "user",
  "healthcheck",
  "depends_on",
  "volumes",
  "tmpfs",
  "init",
  "pull_policy",
  "cpus",
  "mem_limit",
  "pids_limit",
  "deploy",
  "stop_grace_period",
  "networks",
  "profiles",
]); // deno-fmt-ignore

/** Whether `path` is `dir` or below it (lexically; symlinks are the runtime's to check). */
export function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

type Raw = Record<string, unknown>;

/** Reads service `name` (its raw, interpolated, schema-valid mapping) into what pgs runs. */
export function readService(name: string, raw: Raw, ctx: ServiceContext): ComposeService {
  const limits = ((raw.deploy as Raw | undefined)?.resources as Raw | undefined)?.limits as Raw | undefined;
  const svc: ComposeService = {
    name,
    image: raw.image as string | undefined,
    build: raw.build === undefined ? undefined : readBuild(raw.build, ctx),
    command: argv(raw.command, ["command"], ctx),
    entrypoint: argv(raw.entrypoint, ["entrypoint"], ctx),
    environment: keyValues(raw.environment, ctx.vars),
    envFiles: envFiles(raw.env_file, ctx),
    workingDir: raw.working_dir as string | undefined,
    user: raw.user as string | undefined,
    healthcheck: raw.healthcheck === undefined ? undefined : readHealthcheck(raw.healthcheck as Raw, ctx),
    dependsOn: dependsOn(raw.depends_on, ctx),
    volumes: ((raw.volumes ?? []) as unknown[]).map((v, i) => readMount(v, i, ctx)),
    tmpfs: [raw.tmpfs ?? []].flat() as string[],
    init: raw.init === undefined ? false : need(parseBool(raw.init), ["init"], "a boolean", ctx),
    pullPolicy: raw.pull_policy === "if_not_present" ? "missing" : (raw.pull_policy as string | undefined) ?? "missing",
    cpus: oneLimit(raw.cpus, limits?.cpus, "cpus", parseCpus, ctx),
    memoryBytes: oneLimit(raw.mem_limit, limits?.memory, "mem_limit", parseBytes, ctx),
    pids: oneLimit(raw.pids_limit, limits?.pids, "pids_limit", parseCount, ctx),
    stopGracePeriodMs: raw.stop_grace_period === undefined
      ? 10_000
      : need(parseDuration(raw.stop_grace_period), ["stop_grace_period"], "a duration such as 1m30s", ctx),
    aliases: aliases(raw.networks),
    ignored: Object.keys(raw).filter((k) => !APPLIED.has(k) && !k.startsWith("x-")).sort(),
  };
  return svc;
}

function need<T>(value: T | undefined, path: (string | number)[], what: string, ctx: ServiceContext): T {
  if (value === undefined) ctx.fail(path, `must be ${what}`);
  return value;
}

/** `cpus`/`mem_limit`/`pids_limit` and their `deploy.resources.limits` twin: Compose refuses two distinct values. */
function oneLimit(
  own: unknown,
  deploy: unknown,
  field: string,
  parse: (v: unknown) => number | undefined,
  ctx: ServiceContext,
): number | undefined {
  const twin = { cpus: "cpus", mem_limit: "memory", pids_limit: "pids" }[field]!;
  const a = own === undefined ? undefined : need(parse(own), [field], `a valid ${field}`, ctx);
  const b = deploy === undefined
    ? undefined
    : need(parse(deploy), ["deploy", "resources", "limits", twin], `a valid ${twin}`, ctx);
  if (a !== undefined && b !== undefined && a !== b) {
    ctx.fail([field], `differs from deploy.resources.limits.${twin} (Compose refuses two distinct values)`);
  }
  return a ?? b;
}

function argv(value: unknown, path: string[], ctx: ServiceContext): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String);
  return need(shellWords(String(value)), path, "a command line with its quotes closed", ctx);
}

/** `environment` or `args`, list (`K=V`, `K`) or map form; a bare or null `K` reads the variables, else is left out. */
export function keyValues(value: unknown, vars: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    if (v !== null && v !== undefined) out[k] = String(v);
    else if (Object.hasOwn(vars, k)) out[k] = vars[k];
  };
  if (Array.isArray(value)) {
    for (const item of value as string[]) {
      const eq = item.indexOf("=");
      if (eq < 0) put(item, undefined);
      else put(item.slice(0, eq), item.slice(eq + 1));
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) put(k, v);
  }
  return out;
}

function envFiles(value: unknown, ctx: ServiceContext): { path: string; required: boolean }[] {
  if (value === undefined) return [];
  return [value].flat().map((item, i) => {
    const entry = typeof item === "string" ? { path: item, required: true } : item as Raw;
    const path = resolve(ctx.envDir, String(entry.path));
    if (!inside(ctx.taskDir, path)) ctx.fail(["env_file", i], `${entry.path} is outside the task folder`);
    return { path, required: entry.required === undefined ? true : parseBool(entry.required) ?? true };
  });
}

function readBuild(value: unknown, ctx: ServiceContext): ComposeBuild {
  const raw: Raw = typeof value === "string" ? { context: value } : value as Raw;
  const written = String(raw.context ?? ".");
  const path = typeof value === "string" ? ["build"] : ["build", "context"];
  if (/^[a-z][a-z0-9+.-]*:\/\/|^git@/i.test(written)) ctx.fail(path, `${written} is a remote build context`);
  const context = resolve(ctx.envDir, written);
  if (!inside(ctx.taskDir, context)) ctx.fail(path, `${written} is outside the task folder`);
  const dockerfile = String(raw.dockerfile ?? "Dockerfile");
  if (!inside(ctx.taskDir, resolve(context, dockerfile))) {
    ctx.fail(["build", "dockerfile"], `${dockerfile} is outside the task folder`);
  }
  const build: ComposeBuild = { context, dockerfile, args: keyValues(raw.args, ctx.vars) };
  if (raw.target !== undefined) build.target = String(raw.target);
  return build;
}

function readHealthcheck(raw: Raw, ctx: ServiceContext): ComposeHealthcheck {
  const at = (k: string) => ["healthcheck", k];
  const dur = (k: string) => raw[k] === undefined ? undefined : need(parseDuration(raw[k]), at(k), "a duration", ctx);
  const timing = {
    intervalMs: dur("interval"),
    timeoutMs: dur("timeout"),
    retries: raw.retries === undefined ? undefined : need(parseCount(raw.retries), at("retries"), "a count", ctx),
    startPeriodMs: dur("start_period"),
    startIntervalMs: dur("start_interval"),
  };
  for (const k of Object.keys(timing) as (keyof typeof timing)[]) if (timing[k] === undefined) delete timing[k];
  if (raw.disable !== undefined && need(parseBool(raw.disable), at("disable"), "a boolean", ctx)) {
    return { kind: "none", command: [] };
  }
  const test = raw.test;
  if (test === undefined) return { kind: "inherit", command: [], ...timing };
  if (typeof test === "string") return { kind: "shell", command: [test], ...timing };
  const [head, ...rest] = test as string[];
  if (head === "NONE") return { kind: "none", command: [] };
  if (head === "CMD" && rest.length > 0) return { kind: "exec", command: rest, ...timing };
  if (head === "CMD-SHELL" && rest.length === 1) return { kind: "shell", command: rest, ...timing };
  return ctx.fail(at("test"), `must be a string, ["CMD", ...], ["CMD-SHELL", "<line>"] or ["NONE"]`);
}

function dependsOn(value: unknown, ctx: ServiceContext): Record<string, ComposeDependency> {
  const out: Record<string, ComposeDependency> = {};
  if (Array.isArray(value)) {
    for (const n of value) out[n] = { condition: "service_started", required: true, restart: false };
    return out;
  }
  for (const [n, d] of Object.entries((value ?? {}) as Record<string, Raw>)) {
    const flag = (k: string, dflt: boolean) =>
      d[k] === undefined ? dflt : need(parseBool(d[k]), ["depends_on", n, k], "a boolean", ctx);
    out[n] = {
      condition: (d.condition as ComposeDependency["condition"] | undefined) ?? "service_started",
      required: flag("required", true),
      restart: flag("restart", false),
    };
  }
  return out;
}

function aliases(networks: unknown): string[] {
  if (!networks || Array.isArray(networks)) return [];
  return Object.values(networks as Record<string, Raw | null>).flatMap((n) => (n?.aliases as string[]) ?? []);
}

/** A short-syntax source is a host path when it starts with `.`, `/` or `~` (Compose's rule); else a volume name. */
function readMount(value: unknown, i: number, ctx: ServiceContext): ComposeMount {
  const at = ["volumes", i];
  let long: Raw;
  if (typeof value === "string") {
    const parts = value.split(":");
    if (parts.length === 1) long = { type: "volume", target: parts[0] };
    else {
      const [source, target, mode = ""] = parts;
      const opts = mode.split(",");
      long = {
        type: /^[./~]/.test(source) ? "bind" : "volume",
        source,
        target,
        read_only: opts.includes("ro"),
        volume: { nocopy: opts.includes("nocopy") },
      };
    }
  } else long = value as Raw;
  const target = String(long.target ?? "");
  if (!target.startsWith("/")) ctx.fail(at, `the container path "${target}" is not absolute`);
  const readOnly = long.read_only === undefined
    ? false
    : need(parseBool(long.read_only), at, "read_only: a boolean", ctx);
  switch (long.type) {
    case "volume": {
      const nocopy = parseBool((long.volume as Raw | undefined)?.nocopy) ?? false;
      const m: ComposeMount = { type: "volume", target, readOnly, nocopy };
      if (long.source) m.source = String(long.source);
      return m;
    }
    case "bind": {
      const written = String(long.source ?? "");
      if (written.startsWith("~")) ctx.fail(at, `bind mount ${written} is outside environment/`);
      const source = resolve(ctx.envDir, written);
      const harbor = ctx.harborHostPaths.get(source);
      if (harbor) return { type: "bind", source, target, readOnly, harbor };
      if (!inside(ctx.envDir, source)) ctx.fail(at, `bind mount ${written} is outside environment/`);
      return { type: "bind", source, target, readOnly };
    }
    case "tmpfs": {
      const size = (long.tmpfs as Raw | undefined)?.size;
      const m: ComposeMount = { type: "tmpfs", target };
      if (size !== undefined) m.sizeBytes = need(parseBytes(size), [...at, "tmpfs", "size"], "a size", ctx);
      return m;
    }
    default:
      return ctx.fail([...at, "type"], `a ${long.type} mount is not supported (volume, bind or tmpfs)`);
  }
}
