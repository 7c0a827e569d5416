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

/** The placeholder host folder of each of Harbor's log mounts (never a path on the host: the pod maps them). */
export const HARBOR_LOG_PLACEHOLDERS = {
  AGENT_LOGS: "/pgs-harbor-logs/agent",
  VERIFIER_LOGS: "/pgs-harbor-logs/verifier",
  ARTIFACTS: "/pgs-harbor-logs/artifacts",
} as const;

/** Reads the compose file of the task at `dir` (absolute) as Harbor would; a bad file is a TaskError naming it. */
export function readTaskCompose(dir: string, config: TaskConfig): Promise<ComposeModel> {
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
