/**
 * The limits of a pod's sidecars: each service's own (`cpus`, `mem_limit`, `pids_limit`, `deploy.resources.limits`),
 * else the task's, as `main` has them. A run may bound the whole pod (`PodBudget`): `main` keeps the task's limits,
 * which are what the agent is promised, and the sidecars share what is left, each scaled down in proportion to what it
 * would have had, so that the members' limits add up to at most the total.
 */
import { InfraError } from "../base/errors.ts";
import type { ComposeService } from "../task/compose_types.ts";
import type { BoxLimits } from "./runtime.ts";

/** The most a whole pod may use (default: no total; each member has its own limits only). */
export interface PodBudget {
  /** CPUs of every member together (default: no total). */
  cpus?: number;
  /** Memory in MB of every member together (default: no total). */
  memoryMb?: number;
}

/** A sidecar's limits. */
export type MemberLimits = Pick<BoxLimits, "cpus" | "memoryMb" | "pidsLimit">;

/** The least memory a box is given, in MB (Docker refuses less than 6 MB). */
const MIN_MEMORY_MB = 6;
/** The least CPU share a box is given. */
const MIN_CPUS = 0.01;

/** Each sidecar's limits, by name, under `main`'s and the run's `budget`; InfraError when the budget leaves none. */
export function sidecarLimits(
  task: string,
  sidecars: ComposeService[],
  main: MemberLimits,
  budget: PodBudget = {},
): Map<string, MemberLimits> {
  const cpus = share(task, "cpus", sidecars.map((s) => s.cpus ?? main.cpus), main.cpus, budget.cpus, MIN_CPUS);
  const memory = share(
    task,
    "memory_mb",
    sidecars.map((s) => s.memoryBytes ? Math.max(MIN_MEMORY_MB, Math.ceil(s.memoryBytes / 2 ** 20)) : main.memoryMb),
    main.memoryMb,
    budget.memoryMb,
    MIN_MEMORY_MB,
  );
  return new Map(sidecars.map((s, i) => [s.name, {
    cpus: cpus[i],
    memoryMb: Math.floor(memory[i]),
    pidsLimit: s.pids ?? main.pidsLimit,
  }]));
}

/** `wants` scaled so that they add up to at most `total - mine` (unchanged without a total). */
function share(task: string, what: string, wants: number[], mine: number, total: number | undefined, least: number) {
  if (total === undefined || !wants.length) return wants;
  const rest = total - mine;
  const sum = wants.reduce((a, b) => a + b, 0);
  if (rest < least * wants.length) {
    throw new InfraError(
      `${task}: the pod's total ${what} = ${total} leaves ${Math.max(0, rest)} beyond main's ${mine} for ` +
        `${wants.length} sidecar(s), under the ${least} each needs`,
      "services",
    );
  }
  const scale = Math.min(1, rest / sum);
  return wants.map((w) => Math.max(least, Math.floor(w * scale * 100) / 100));
}
