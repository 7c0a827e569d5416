/** A task's `[environment]` resources as the `BoxLimits` a runtime starts a box with. */
import type { EnvironmentConfig } from "../task/task_config.ts";
import type { BoxLimits } from "./runtime.ts";

/** CPUs, memory, PIDs and GPUs from `env`; the network only when `internet`. */
export function boxLimits(env: EnvironmentConfig, internet: boolean): BoxLimits {
  return {
    cpus: env.cpus,
    memoryMb: env.memoryMb,
    pidsLimit: env.pidsLimit,
    ...(env.gpus ? { gpus: env.gpus } : {}),
    network: internet,
  };
}
