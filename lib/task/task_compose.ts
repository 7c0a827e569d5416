/**
 * A task's `environment/docker-compose.yaml` read with the variables Harbor gives `docker compose`: the OS
 * environment, the task's `[environment] env`, then Harbor's own (`harborComposeVars`). Harbor's host log folders
 * (`HOST_AGENT_LOGS_PATH`, ...) have no host side in pgs: they name placeholders that the pod runs as volumes shared
 * with the agent's `/logs` folders (`lib/runtime/pod.ts`).
 */
import * as path from "node:path";
import { harborComposeVars, readCompose } from "./compose.ts";
import type { ComposeModel } from "./compose_types.ts";
import type { TaskConfig } from "./task_config.ts";
import { warnOnce } from "../base/warn.ts";

/** The placeholder host folder of each of Harbor's log mounts (never a path on the host: the pod maps them). */
export const HARBOR_LOG_PLACEHOLDERS = {
  AGENT_LOGS: "/pgs-harbor-logs/agent",
  VERIFIER_LOGS: "/pgs-harbor-logs/verifier",
  ARTIFACTS: "/pgs-harbor-logs/artifacts",
} as const;

/**
 * The fields of the compose file's `main` that pgs applies to the agent's box: its dependencies, mounts, environment
 * and aliases. The others (`image`, `build`, `command`, `healthcheck`, ...) would replace what pgs's box is made of
 * (the task's image, an idle process with pgs's exec channel, task.toml's limits): warned once per task.
 */
export const MAIN_FIELDS_APPLIED = new Set([
  "depends_on",
  "volumes",
  "environment",
  "env_file",
  "tmpfs",
  "networks",
  "expose",
  "labels",
]);

/** Reads the compose file of the task at `dir` (absolute) as Harbor would; a bad file is a TaskError naming it. */
export async function readTaskCompose(dir: string, config: TaskConfig): Promise<ComposeModel> {
  const model = await readModel(dir, config);
  const ignored = model.mainFields.filter((f) => !MAIN_FIELDS_APPLIED.has(f));
  if (ignored.length) {
    const note = `${model.file}: main's ${ignored.join(", ")} ${ignored.length > 1 ? "are" : "is"} not applied by ` +
      `pgs (main is pgs's box: the task's image, limits and an idle process)`;
    config.warnings.push(note);
    warnOnce(note);
  }
  return model;
}

function readModel(dir: string, config: TaskConfig): Promise<ComposeModel> {
  const env = config.environment;
  return readCompose(dir, {
    os: Deno.env.toObject(),
    task: env.env ?? {},
    harbor: harborComposeVars({
      contextDir: path.join(dir, "environment"),
      ...(env.dockerImage ? { prebuiltImageName: env.dockerImage } : {}),
      cpus: env.cpus,
      memoryMb: env.memoryMb,
      hostLogs: { ...HARBOR_LOG_PLACEHOLDERS },
    }),
  });
}
