/** A task's `[environment]` resources as the `BoxLimits` a runtime starts a box with. */
import type { EnvironmentConfig } from "../task/task_config.ts";
import type { BoxLimits } from "./runtime.ts";

/** The disk bound, in MB, of a box whose task sets no `storage_mb` and whose run gives no other (0: no bound). */
export const DEFAULT_STORAGE_MB = 10240;

/** CPUs, memory, PIDs, GPUs and the disk bound from `env` (its `storageMb`, else `DEFAULT_STORAGE_MB`; 0: none). */
export function boxLimits(env: EnvironmentConfig, internet: boolean): BoxLimits {
  const storageMb = env.storageMb ?? DEFAULT_STORAGE_MB;
  return {
    cpus: env.cpus,
    memoryMb: env.memoryMb,
    pidsLimit: env.pidsLimit,
    ...(env.gpus ? { gpus: env.gpus } : {}),
    ...(storageMb > 0 ? { storageMb } : {}),
    network: internet,
  };
}

/** `env` with its disk bound settled: its own `storage_mb`, else the run's `storageDefault` (0: no bound). */
export function withStorage(env: EnvironmentConfig, storageDefault = DEFAULT_STORAGE_MB): EnvironmentConfig {
  return { ...env, storageMb: env.storageMb ?? storageDefault };
}
