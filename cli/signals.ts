/**
 * The CLI's SIGINT/SIGTERM handling (the library installs none): stop starting work, remove every container of this
 * process, run the exit hooks (e.g. write a summary of what finished), then exit 130 or 143. A second signal exits at
 * once.
 */
import {
  creationsInFlight,
  creationsSettled,
  refuseNewContainers,
  removeOwnContainers,
} from "../lib/runtime/hygiene.ts";

/** How long a stop waits for container creations in flight (a `run` has 120 s; a loaded engine can take a while). */
const CREATIONS_MS = 60_000;

const hooks = { start: new Set<() => void>(), exit: new Set<() => void>() };
let installed = false;
let exiting = false;
let exited: Promise<never> | undefined;

function runHooks(set: Set<() => void>): void {
  for (const fn of set) {
    try {
      fn();
    } catch { /* cleanup still runs */ }
  }
}

/** Installs the handlers (once); `main.ts` calls it before running a command. */
export function installSignalCleanup(): void {
  if (installed) return;
  installed = true;
  for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    try {
      Deno.addSignalListener(sig, async () => {
        if (exiting) Deno.exit(code); // a second Ctrl-C does not wait
        exiting = true;
        exited = new Promise<never>(() => {});
        runHooks(hooks.start);
        refuseNewContainers();
        await removeOwnContainers();
        // Containers being created right now would outlive us: wait (bounded) for those calls, then sweep again.
        await creationsSettled(2_000);
        if (creationsInFlight()) {
          console.error(
            `pgs: waiting for ${creationsInFlight()} container start(s) in flight, to remove them (Ctrl-C again leaves them)`,
          );
          await creationsSettled(CREATIONS_MS);
        }
        await removeOwnContainers();
        runHooks(hooks.exit);
        Deno.exit(code);
      });
    } catch { /* signals unsupported on this platform */ }
  }
}

/**
 * Registers a synchronous function run on SIGINT/SIGTERM: `start` ones as the signal arrives (e.g. stop starting
 * work), `exit` ones after this process's containers are gone, just before it exits. Returns its unregistration.
 */
export function onSignal(when: "start" | "exit", fn: () => void): () => void {
  hooks[when].add(fn);
  return () => hooks[when].delete(fn);
}

/**
 * Resolves at once unless a signal is being handled; then never (the handler removes the containers and exits), so a
 * command that finishes meanwhile does not exit before the cleanup is done.
 */
export function afterSignalCleanup(): Promise<void> {
  return exited ?? Promise.resolve();
}
