/**
 * Box hygiene, the part every runtime shares: every box pgs starts carries labels naming the owning host, process and
 * run, so that boxes left by a dead process can be found and removed (each runtime's `sweepOrphans`), and a live
 * process removes its own at exit (each runtime's `removeOwn`, over every runtime it used).
 *
 * A library owns no signals: this module installs no SIGINT/SIGTERM handler (the `pgs` CLI does, in
 * `cli/signals.ts`). A host that embeds pgs closes what it opened (`HarborEnv.close()`, `await using`), and
 * `removeOwnContainers()` sweeps whatever this process still has; at a normal exit an `unload` listener removes
 * what is still tracked.
 */
import { hostname } from "node:os";
import type { Runtime } from "./runtime.ts";

/** Label keys pgs puts on its containers. */
export const LABELS = {
  marker: "pgs",
  host: "pgs.host",
  pid: "pgs.pid",
  start: "pgs.pid-start",
  run: "pgs.run",
  role: "pgs.role",
  task: "pgs.task",
} as const;

/** The start time of process `pid` (`/proc/<pid>/stat` field 22), as the labels carry it; "" when it is gone. */
export function processStart(pid: number): string {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

/** The identity labels carry: host name, pid, its start time (so a reused pid is told apart) and a run id. */
export interface Owner {
  host: string;
  pid: number;
  start: string;
  run: string;
}

let ownerMemo: Owner | undefined;

/** This process's identity, computed on first use (importing this module reads nothing). */
export function owner(): Owner {
  return ownerMemo ??= {
    host: hostname(),
    pid: Deno.pid,
    start: processStart(Deno.pid),
    run: crypto.randomUUID().slice(0, 8),
  };
}

/** The labels marking a box as this process's, for `role` and `task`. */
export function boxLabels(role: string, task: string): Record<string, string> {
  return {
    [LABELS.marker]: "1",
    [LABELS.host]: owner().host,
    [LABELS.pid]: String(owner().pid),
    [LABELS.start]: owner().start,
    [LABELS.run]: owner().run,
    [LABELS.role]: role,
    [LABELS.task]: task,
  };
}

/** True when the process that owned a container is still alive on this host. */
export function ownerAlive(pid: number, start: string): boolean {
  if (pid === owner().pid) return true;
  try {
    Deno.statSync(`/proc/${pid}`);
  } catch {
    return false;
  }
  return start === "" || processStart(pid) === start;
}

/** Every runtime this process started a box on: swept at exit and on a stop. */
const runtimes = new Set<Runtime>();
let unloadInstalled = false;
let creating = 0;
let refusing = false;

/** Records that `runtime` has (or is about to have) boxes of this process, so that the exit sweep covers it. */
export function enlist(runtime: Runtime): void {
  runtimes.add(runtime);
  if (unloadInstalled) return;
  unloadInstalled = true;
  globalThis.addEventListener("unload", removeAllSync);
}

/** Ids of boxes this process still owns, on every runtime. */
export function trackedContainers(): string[] {
  return [...runtimes].flatMap((r) => r.tracked());
}

/** Removes every tracked box synchronously, on every runtime not found down; used at exit. */
export function removeAllSync(): void {
  for (const r of runtimes) r.removeOwnSync();
}

/**
 * Wraps the creation of a box on `runtime`: a stop arriving meanwhile waits for it to settle (`creationsSettled`),
 * so the box it makes is removed too instead of outliving the process.
 */
export async function creatingContainer<T>(runtime: Runtime, create: () => Promise<T>): Promise<T> {
  enlist(runtime);
  // Once the process is stopping nothing new is created: it could outlive the last sweep.
  if (refusing) throw new Error("pgs is stopping: no new container");
  creating++;
  try {
    return await create();
  } finally {
    creating--;
  }
}

/** Refuses every later container creation (a stopping process must not make what its last sweep would miss). */
export function refuseNewContainers(): void {
  refusing = true;
}

/** How many container creations of this process are in flight. */
export function creationsInFlight(): number {
  return creating;
}

/** Resolves once no container creation of ours is in flight, or after `maxMs`. */
export async function creationsSettled(maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (creating > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

/**
 * Removes every box of this process, asynchronously, on every runtime it used that still answers: the tracked ones,
 * then any labelled with this run (one a start made but had not reported yet). Async on purpose: the event loop keeps
 * pumping the pipes of calls in flight (a copy between two boxes may hold a lock in the engine until its stream is
 * drained), where a synchronous removal would wait on that lock forever.
 */
export async function removeOwnContainers(): Promise<void> {
  await Promise.all([...runtimes].filter((r) => !r.down).map((r) => r.removeOwn()));
}
