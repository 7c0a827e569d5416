/** GPUs for tasks that ask for them (`[environment] gpus`), where the runtime can give them. */
import { InfraError } from "../base/errors.ts";
import type { Runtime } from "./runtime.ts";

/** Throws a one-line start error when a task asks for `n` GPUs and the runtime cannot give any. */
export async function requireGpus(runtime: Runtime, task: string, n: number): Promise<void> {
  const problem = await runtime.gpuProblem();
  if (problem) throw new InfraError(`${task}: environment.gpus = ${n}, but ${problem}`, "start");
}
