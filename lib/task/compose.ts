/**
 * A task's `environment/docker-compose.yaml` read as Harbor reads it, as a pure library: the YAML parsed with `yaml`,
 * interpolated with Harbor's compose variables (`compose_interpolate.ts`), checked against the Compose
 * specification's JSON schema (`compose_schema.ts`), then read into a typed model of what pgs will run
 * (`compose_types.ts`), refusing what a pod cannot hold in one line naming the file, the service and the field.
 *
 * Refused at load: host `ports:`, any `network_mode`, `privileged: true`, `devices`, `container_name`, host
 * namespaces (`pid`, `ipc`, `uts`, `userns_mode` set to `host`), a port in `expose` of two services (in a pod they
 * share one loopback), top-level `networks:` with a `driver` or `external`, top-level `volumes:` with a `driver`,
 * `driver_opts` or `external`, a bind mount outside `environment/` (Harbor's `HOST_*_PATH` log folders excepted), a
 * `build.context`, `dockerfile` or `env_file` outside the task folder, `extends` and `include`, a service with neither
 * `image` nor `build` (except `main`), `depends_on` naming an unknown or inactive service or closing a cycle, and an
 * undeclared named volume.
 *
 * The task loader reads it with Harbor's variables (`task_compose.ts`); `lib/runtime/pod.ts` runs the model as a pod
 * per episode.
 */
import { dirname, join, resolve } from "node:path";
import { LineCounter, parseDocument } from "npm:yaml@2.9.1";
import { TaskError } from "../base/errors.ts";
import {
  type ComposeEnv,
  composeVariables,
  HARBOR_LOG_TARGETS,
  harborComposeVars,
  type HarborLogMount,
  interpolateTree,
} from "./compose_interpolate.ts";
import { checkComposeSchema } from "./compose_schema.ts";
import { readService } from "./compose_service.ts";
import type { ComposeModel, ComposeService } from "./compose_types.ts";

export type * from "./compose_types.ts";
export {
  type ComposeEnv,
  harborComposeVars,
  type HarborLogMount,
  type HarborVarsInput,
} from "./compose_interpolate.ts";

/** Where the compose file is and which variables it sees. */
export interface ComposeOptions {
  /** The task folder, absolute or relative to the working directory. Default: the parent of the file's folder. */
  taskDir?: string;
  /**
   * The compose variables. Default: none from the OS or the task, and Harbor's own from `harborComposeVars` with
   * `CONTEXT_DIR` the file's folder (pass `os: Deno.env.toObject()` for Harbor's full precedence).
   */
  env?: ComposeEnv;
}

/** The name Harbor looks for in a task's `environment/` (`docker.py`, `_environment_docker_compose_path`). */
export const COMPOSE_FILE = "docker-compose.yaml";

/** Reads and parses `<taskDir>/environment/docker-compose.yaml` (see `parseCompose`). */
export async function readCompose(taskDir: string, env?: ComposeEnv): Promise<ComposeModel> {
  const file = join(taskDir, "environment", COMPOSE_FILE);
  return parseCompose(await Deno.readTextFile(file), file, { taskDir, env });
}

type Path = (string | number)[];
type Raw = Record<string, unknown>;

/**
 * Parses the Compose file `text`, read from `file` (named in every error, and the base of its relative paths).
 * Throws a TaskError naming the file, the line where known, the service and the field.
 */
export function parseCompose(text: string, file: string, options: ComposeOptions = {}): ComposeModel {
  const envDir = resolve(dirname(file));
  const taskDir = resolve(options.taskDir ?? dirname(envDir));
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = lines.linePos(yamlError.pos[0]).line;
    throw new TaskError(file, `not valid YAML: ${yamlError.message.split("\n")[0]}`, line);
  }
  const lineOf = (path: Path): number | undefined => {
    for (let p = path; p.length > 0; p = p.slice(0, -1)) {
      const node = doc.getIn(p, true) as { range?: [number, number] } | undefined;
      if (node?.range) return lines.linePos(node.range[0]).line;
    }
  };
  const fail = (path: Path, message: string): never => {
    throw new TaskError(file, path.length > 0 ? `${path.join(".")}: ${message}` : message, lineOf(path));
  };
  const harbor = options.env?.harbor ?? harborComposeVars({ contextDir: envDir });
  const vars = composeVariables({ ...options.env, harbor });
  const unset = new Set<string>();
  const data = interpolateTree(doc.toJS({ maxAliasCount: 1000 }) ?? {}, vars, unset, (p, e) => fail(p, e.message));
  if (data === null || typeof data !== "object" || Array.isArray(data)) fail([], "must be a mapping");
  const problem = checkComposeSchema(data);
  if (problem) fail(problem.path, problem.message);
  const top = data as Raw;
  refuseTopLevel(top, fail);

  const harborHostPaths = new Map<string, HarborLogMount>();
  for (const key of Object.keys(HARBOR_LOG_TARGETS) as HarborLogMount[]) {
    const host = harbor[`HOST_${key}_PATH`];
    if (host) harborHostPaths.set(resolve(envDir, host), key);
  }
  const rawServices = (top.services ?? {}) as Record<string, Raw>;
  const volumes = Object.keys((top.volumes ?? {}) as Raw);
  const services: Record<string, ComposeService> = {};
  const inactive: string[] = [];
  const exposedBy = new Map<string, string>();
  for (const [name, raw] of Object.entries(rawServices)) {
    const at = (...p: Path) => ["services", name, ...p];
    refuseService(name, raw, (p, m) => fail(at(...p), m), exposedBy);
    if (raw.profiles !== undefined && (raw.profiles as string[]).length > 0) {
      inactive.push(name);
      continue;
    }
    const svc = readService(name, raw, {
      envDir,
      taskDir,
      vars,
      harborHostPaths,
      fail: (p, m) => fail(at(...p), m),
    });
    svc.volumes.forEach((m, i) => {
      if (m.type === "volume" && m.source && !volumes.includes(m.source)) {
        fail(at("volumes", i), `names volume "${m.source}", which the top-level volumes: does not declare`);
      }
    });
    services[name] = svc;
  }
  return {
    file,
    services,
    mainFields: Object.keys(rawServices.main ?? {}).filter((k) => !k.startsWith("x-")).sort(),
    volumes,
    startOrder: startOrder(services, inactive, fail),
    inactive,
    unsetVariables: [...unset].sort(),
  };
}

function refuseTopLevel(top: Raw, fail: (p: Path, m: string) => never): void {
  if (top.include !== undefined) fail(["include"], "is not supported: pgs reads one compose file per task");
  for (const [name, net] of Object.entries((top.networks ?? {}) as Record<string, Raw | null>)) {
    for (const k of ["driver", "external"]) {
      if (net?.[k] !== undefined && net[k] !== false) {
        fail(["networks", name, k], "custom networks are refused: the services of a task share one pod network");
      }
    }
  }
  for (const [name, vol] of Object.entries((top.volumes ?? {}) as Record<string, Raw | null>)) {
    for (const k of ["driver", "driver_opts", "external"]) {
      if (vol?.[k] !== undefined && vol[k] !== false) {
        fail(["volumes", name, k], "is refused: a task's volumes are plain ones that live and die with the episode");
      }
    }
  }
}

const HOST_NAMESPACES = ["pid", "ipc", "uts", "userns_mode"];

function refuseService(name: string, raw: Raw, fail: (p: Path, m: string) => never, exposedBy: Map<string, string>) {
  const refused = "is refused: a task's services run in one pod, without host access";
  if (Array.isArray(raw.ports) && raw.ports.length > 0) fail(["ports"], `${refused} (host ports)`);
  if (raw.network_mode !== undefined) fail(["network_mode"], `${refused} (the pod's network is pgs's)`);
  if (raw.privileged === true || raw.privileged === "true") fail(["privileged"], refused);
  if (Array.isArray(raw.devices) && raw.devices.length > 0) fail(["devices"], refused);
  if (raw.container_name !== undefined) fail(["container_name"], `${refused} (pgs names the containers)`);
  for (const k of HOST_NAMESPACES) if (raw[k] === "host") fail([k], `${refused} (a host namespace)`);
  if (raw.extends !== undefined) fail(["extends"], "is not supported: write the service out in full");
  if (raw.image === undefined && raw.build === undefined && name !== "main") {
    fail([], "has neither image nor build");
  }
  if (raw.profiles !== undefined && (raw.profiles as string[]).length > 0) return;
  ((raw.expose ?? []) as (string | number)[]).forEach((e, i) => {
    for (const port of exposedPorts(e)) {
      const other = exposedBy.get(port);
      if (other !== undefined && other !== name) {
        fail(
          ["expose", i],
          `port ${port} is exposed by service "${other}" too: in a pod the services share one port space`,
        );
      }
      exposedBy.set(port, name);
    }
  });
}

/** The `port/proto` keys of one `expose` entry (`80`, `"8080-8081/udp"`); none when it is not a port. */
export function exposedPorts(entry: string | number): string[] {
  const m = /^(\d+)(?:-(\d+))?(?:\/(\w+))?$/.exec(String(entry).trim());
  if (!m) return [];
  const [lo, hi] = [Number(m[1]), Number(m[2] ?? m[1])];
  const proto = (m[3] ?? "tcp").toLowerCase();
  return Array.from({ length: Math.max(0, Math.min(hi - lo + 1, 65536)) }, (_, k) => `${lo + k}/${proto}`);
}

/** Dependencies first, otherwise in the file's order; refuses unknown and inactive dependencies and cycles. */
function startOrder(
  services: Record<string, ComposeService>,
  inactive: string[],
  fail: (p: Path, m: string) => never,
): string[] {
  const order: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, trail: string[]) => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") {
      fail(["services", trail[trail.length - 1], "depends_on"], `a cycle: ${[...trail, name].join(" -> ")}`);
    }
    state.set(name, "visiting");
    for (const dep of Object.keys(services[name].dependsOn)) {
      if (inactive.includes(dep)) {
        fail(["services", name, "depends_on", dep], `service "${dep}" has profiles:, so it does not start`);
      }
      if (!services[dep]) fail(["services", name, "depends_on", dep], `no service "${dep}" in this file`);
      visit(dep, [...trail, name]);
    }
    state.set(name, "done");
    order.push(name);
  };
  for (const name of Object.keys(services)) visit(name, []);
  return order;
}
