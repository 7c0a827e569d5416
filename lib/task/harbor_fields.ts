/**
 * The Harbor fields of task.toml that pgs checks as Harbor's task model does but keeps apart from the seed's schema:
 * root and step `artifacts` (with Harbor's load-time overlap warnings), `[[environment.mcp_servers]]` and
 * `[[verifier.collect]]` (wrongbutworks/harbor@39b85872:src/harbor/models/task/config.py, models/task/artifacts.py).
 */
import { Checker, isTable, show, type Table } from "./task_config_checker.ts";
import type { ArtifactConfig, CollectHook } from "./task_config_types.ts";

/** Harbor's compose service names (`_COMPOSE_SERVICE_NAME_PATTERN`). */
const SERVICE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** The agent's compose service (Harbor's `MAIN_SERVICE_NAME`, harbor@39b85872:src/harbor/constants.py). */
export const MAIN_SERVICE = "main";

/** A `service` value checked as Harbor's `_validate_compose_service_name` does (trimmed first). */
function serviceName(c: Checker, v: unknown, at: string[]): string {
  const svc = typeof v === "string" ? v.trim() : v;
  if (typeof svc !== "string" || !SERVICE_NAME.test(svc)) c.fail(at, "must be a Docker Compose service name", v);
  return svc;
}

/**
 * Root or step `artifacts`, as Harbor's ArtifactConfig validates them: a source without `..` (a relative one is
 * resolved in the agent's working directory when copied), a destination relative, without `..` or backslashes, never
 * `manifest.json` (an empty one is none), a service named as compose names them, whose source is absolute when it is
 * not `main` (harbor@39b85872:src/harbor/models/task/config.py `ArtifactConfig._validate_sidecar_source`). Whether the
 * compose file defines the service is the loader's to check (`loadTask`).
 */
export function parseArtifacts(c: Checker, v: unknown, at: string[]): ArtifactConfig[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) c.fail(at, "must be a list of paths or tables", v);
  return v.map((item, i) => {
    const field = [...at, String(i)];
    const name = `${at.join(".")}[${i}]`;
    const a: Table = typeof item === "string"
      ? { source: item }
      : isTable(item)
      ? item
      : c.fail(field, "must be a path or a table", item);
    for (const k of Object.keys(a)) {
      if (!["source", "destination", "exclude", "service"].includes(k)) c.warn(`unknown key ${name}.${k} ignored`);
    }
    const source = a.source;
    if (typeof source !== "string" || source === "") c.fail([...field, "source"], "must be a non-empty string", source);
    if (source.split("/").includes("..")) {
      c.raise(
        [...field, "source"],
        `${name}.source: Artifact source must not contain '..' components, got: '${source}'`,
      );
    }
    const out: ArtifactConfig = { source, exclude: [] };
    if (a.service !== undefined) {
      const svc = serviceName(c, a.service, [...field, "service"]);
      if (svc !== MAIN_SERVICE && !/^\/|^[A-Za-z]:[/\\]/.test(source)) {
        c.raise(
          [...field, "source"],
          `${name}: Artifact source ${show(source)} collected from service ${show(svc)} must be an absolute path`,
        );
      }
      if (svc !== MAIN_SERVICE) out.service = svc;
    }
    const d = a.destination;
    if (d !== undefined && d !== "") {
      if (typeof d !== "string") c.fail([...field, "destination"], "must be a string", d);
      const why = d.includes("\\")
        ? "Artifact destination must use forward slashes as path separators"
        : d.startsWith("/")
        ? "Artifact destination must be a relative path"
        : d.split("/").includes("..")
        ? "Artifact destination must not contain '..' components"
        : d.replace(/\/+$/, "") === "manifest.json"
        ? "Artifact destination 'manifest.json' is reserved for the collection manifest"
        : undefined;
      if (why) c.raise([...field, "destination"], `${name}.destination: ${why}, got: ${show(d)}`);
      out.destination = d;
    }
    if (a.exclude !== undefined) {
      if (!Array.isArray(a.exclude) || a.exclude.some((x) => typeof x !== "string")) {
        c.fail([...field, "exclude"], "must be a list of strings", a.exclude);
      }
      out.exclude = a.exclude as string[];
      if (out.exclude.length) c.notApplied([...at, "exclude"]);
    }
    return out;
  });
}

/** Harbor's load-time warnings for one collection set: sources (with `/logs/artifacts`) or destinations that overlap. */
export function warnOverlaps(c: Checker, entries: ArtifactConfig[], where: string): void {
  const overlap = (a: string, b: string) => {
    const x = a.replace(/\/+$/, "") || "/", y = b.replace(/\/+$/, "") || "/";
    return x === y || y.startsWith(x === "/" ? "/" : `${x}/`) || x.startsWith(y === "/" ? "/" : `${y}/`);
  };
  const sources = [CONVENTION_ARTIFACTS, ...entries.map((e) => e.source)];
  const unique = sources.filter((s, i) => i > 0 || !entries.some((e) => e.source.replace(/\/+$/, "") === s));
  pairs(unique, (a, b) => {
    if (overlap(a, b)) c.warn(`${where}: artifact sources ${show(a)} and ${show(b)} overlap; the first is kept`);
  });
  pairs(entries.flatMap((e) => e.destination ? [e.destination] : []), (a, b) => {
    if (overlap(a, b)) c.warn(`${where}: artifact destinations ${show(a)} and ${show(b)} overlap; the first is kept`);
  });
}

/** Harbor's convention folder, always collected (`EnvironmentPaths.artifacts_dir`). */
const CONVENTION_ARTIFACTS = "/logs/artifacts";

function pairs<T>(xs: T[], f: (a: T, b: T) => void): void {
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) f(xs[i], xs[j]);
}

/** `[[environment.mcp_servers]]` as Harbor's MCPServerConfig validates them (pgs does not start them). */
export function checkMcpServers(c: Checker, v: unknown, at: string[]): void {
  if (v === undefined) return;
  if (!Array.isArray(v) || !v.every(isTable)) c.fail(at, "must be a list of tables", v);
  (v as Table[]).forEach((m, i) => {
    const field = [...at, String(i)];
    const name = `${at.join(".")}[${i}]`;
    if (typeof m.name !== "string") c.fail([...field, "name"], "is required (a string)", m.name);
    const transport = m.transport === undefined ? "sse" : m.transport === "http" ? "streamable-http" : m.transport;
    if (transport !== "sse" && transport !== "streamable-http" && transport !== "stdio") {
      c.fail([...field, "transport"], `must be "stdio", "sse" or "streamable-http"`, m.transport);
    }
    if (transport === "stdio" ? !m.command : !m.url) {
      const key = transport === "stdio" ? "command" : "url";
      c.raise([...field, key], `${name}: '${key}' is required for transport '${transport}'`);
    }
  });
}

/**
 * `[[verifier.collect]]` as Harbor's VerifierCollectConfig validates it: a command (required), a service (default
 * `main`), `timeout_sec` (default 60), a user (default: the service's own); harbor@39b85872:src/harbor/models/task/
 * config.py. Harbor's own pydantic does not bound `timeout_sec`; pgs asks for a positive number. Undefined is [].
 */
export function checkCollect(c: Checker, v: unknown, at: string[]): CollectHook[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isTable)) c.fail(at, "must be a list of tables", v);
  return (v as Table[]).map((h, i) => {
    const field = [...at, String(i)];
    if (typeof h.command !== "string") c.fail([...field, "command"], "is required (a string)", h.command);
    const service = h.service === undefined ? MAIN_SERVICE : serviceName(c, h.service, [...field, "service"]);
    const hook: CollectHook = {
      command: h.command,
      service,
      timeoutSec: c.number(h, [...field, "timeout_sec"], "positive", 60),
    };
    const user = c.user(h, [...field, "user"]);
    if (user !== undefined) hook.user = user;
    return hook;
  });
}

/**
 * Refuses, as `file`'s error naming the field and its line, an artifact or collect hook whose `service` is not among
 * `services` (the compose file's; undefined: the task has none, so only `main` exists). Harbor refuses such a task at
 * trial start (harbor@39b85872:src/harbor/trial/trial.py `_validate_artifact_configuration`).
 */
export function checkServices(
  text: string,
  file: string,
  config: { artifacts: ArtifactConfig[]; steps?: { artifacts: ArtifactConfig[] }[]; collect: CollectHook[] },
  services: string[] | undefined,
): void {
  const c = new Checker(text, file, () => undefined);
  const named: [string[], string][] = [
    ...config.artifacts.map((
      a,
      i,
    ): [string[], string] => [["artifacts", String(i), "service"], a.service ?? MAIN_SERVICE]),
    ...(config.steps ?? []).flatMap((st, s) =>
      st.artifacts.map((a, i): [string[], string] => [
        ["steps", String(s), "artifacts", String(i), "service"],
        a.service ?? MAIN_SERVICE,
      ])
    ),
    ...config.collect.map((h, i): [string[], string] => [["verifier", "collect", String(i), "service"], h.service]),
  ];
  for (const [at, svc] of named) {
    if (svc === MAIN_SERVICE || services?.includes(svc)) continue;
    const field = at.slice(0, -1).map((p, i) => /^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p).join("") + ".service";
    const why = services
      ? `environment/docker-compose.yaml defines no service ${show(svc)}`
      : `the task has no environment/docker-compose.yaml, so it has no service ${show(svc)}`;
    c.raise(at, `${field} = ${show(svc)}: ${why}`);
  }
}
