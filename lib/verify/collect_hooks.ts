/**
 * Harbor's `[[verifier.collect]]` hooks: commands run in the pod's services after the agent's turns, so that a
 * service can write its live state (a database, a counter) into files that `artifacts` entries then carry into a
 * separate verifier. As Harbor runs them (harbor@39b85872:src/harbor/trial/trial.py `_collect_artifacts_phased`,
 * `_run_collect_hooks`; environments/docker/docker.py `_compose_exec`):
 * - in two passes: the hooks of `main` (in task.toml order), then `main`'s artifacts are copied; then the sidecars'
 *   hooks, then the sidecars' artifacts. Harbor stops `main` between the passes in separate mode on the agent's
 *   environment's last use; pgs keeps it running (it holds the pod's namespaces until the pod is removed).
 * - in `main` through `bash -c`, in the box's working directory, with its environment; in a sidecar through `sh -c`
 *   (a third-party image may lack bash), in the service's own working directory, without `main`'s environment.
 * - as the hook's `user`, else the service container's own user (Harbor passes None: not the agent's user).
 * - each bounded by its `timeout_sec` (default 60).
 * - best-effort: a hook that exits non-zero, times out or cannot run is a warning and collection goes on; it never
 *   fails the trial nor changes the reward. pgs counts them in the metric `collect_hooks_failed`.
 */
import { warnOnce } from "../base/warn.ts";
import type { Sandbox } from "../runtime/sandbox.ts";
import type { Box } from "../runtime/runtime.ts";
import { MAIN_SERVICE } from "../task/harbor_fields.ts";
import type { CollectHook } from "../task/task_config_types.ts";

/** One of Harbor's two collection passes: `main`'s, then the sidecars'. */
export type CollectPass = "main" | "sidecars";

/** True when `service` is collected in `pass`. */
export function inPass(service: string | undefined, pass: CollectPass): boolean {
  return ((service ?? MAIN_SERVICE) === MAIN_SERVICE) === (pass === "main");
}

/** The box that runs `service` in `box`'s episode: the agent's for `main`, else the pod's member (if it has one). */
export function serviceBox(box: Sandbox, service: string | undefined): Box | undefined {
  return (service ?? MAIN_SERVICE) === MAIN_SERVICE ? box.box : box.pod?.members.get(service!);
}

/**
 * Runs the task's hooks of `pass` in order, best-effort: each failure is warned (once per task and hook) and
 * counted. Returns how many failed.
 */
export async function runCollectHooks(box: Sandbox, pass: CollectPass): Promise<number> {
  const hooks = box.task.config.verifier.collect ?? [];
  let failed = 0;
  for (const [i, hook] of hooks.entries()) {
    if (!inPass(hook.service, pass)) continue;
    const why = await runHook(box, hook);
    if (why === undefined) continue;
    failed++;
    warnOnce(
      `${box.task.name}: [[verifier.collect]] ${i} in service ${hook.service} ${why}; collection goes on, as in Harbor`,
      `collect-hook:${box.task.name}:${i}`,
    );
  }
  return failed;
}

/** Runs one hook; undefined when it exited 0, else why it failed. */
async function runHook(box: Sandbox, hook: CollectHook): Promise<string | undefined> {
  const target = serviceBox(box, hook.service);
  if (!target) return "has no container in the pod";
  const shell = hook.service === MAIN_SERVICE ? "bash" : "sh";
  try {
    const r = await target.exec([shell, "-c", hook.command], {
      ...(hook.user !== undefined ? { user: hook.user } : {}),
      timeoutMs: hook.timeoutSec * 1000,
    });
    if (r.timedOut) return `timed out after ${hook.timeoutSec} s`;
    if (r.code !== 0) return `exited ${r.code}${r.stderr ? `: ${r.stderr.split("\n").pop()}` : ""}`;
  } catch (e) {
    return `could not run: ${(e as Error).message}`;
  }
}

/**
 * Both passes for a verifier with no artifacts to copy (Harbor runs the hooks in shared mode too, after the agent's
 * turns and before the tests: harbor@39b85872:src/harbor/trial/single_step.py `_run`); counts the failures in `extra`.
 */
export async function runAllCollectHooks(box: Sandbox, extra: Record<string, number>): Promise<void> {
  const failed = await runCollectHooks(box, "main") + await runCollectHooks(box, "sidecars");
  if (failed) extra.collect_hooks_failed = (extra.collect_hooks_failed ?? 0) + failed;
}
