/**
 * Container hygiene: every container pgs starts carries labels naming the owning host, process and run, so that
 * containers left by a dead process can be found and removed, and a live process removes its own at exit.
 */
import { hostname } from "node:os";
import type { Docker } from "./docker.ts";

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

function processStart(pid: number): string {
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

/** `docker run` flags labelling a container as this process's. */
export function labelArgs(role: string, task: string): string[] {
  const l: Record<string, string> = {
    [LABELS.marker]: "1",
    [LABELS.host]: owner().host,
    [LABELS.pid]: String(owner().pid),
    [LABELS.start]: owner().start,
    [LABELS.run]: owner().run,
    [LABELS.role]: role,
    [LABELS.task]: task,
  };
  return Object.entries(l).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
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

const live = new Map<string, Docker>();
const reaped = new WeakSet<Docker>();
let hooksInstalled = false;

/** Removes containers left on this host by pgs processes that are gone; once per engine per process. */
export async function reapOrphans(docker: Docker): Promise<string[]> {
  if (reaped.has(docker)) return [];
  reaped.add(docker);
  const r = await docker.call([
    "ps",
    "-a",
    "--filter",
    `label=${LABELS.marker}=1`,
    "--filter",
    `label=${LABELS.host}=${owner().host}`,
    "--format",
    `{{.ID}} {{.Label "${LABELS.pid}"}} {{.Label "${LABELS.start}"}}`,
  ]);
  if (r.code !== 0) return [];
  const dead = new TextDecoder().decode(r.stdout).split("\n").filter(Boolean).map((l) => l.split(" "))
    .filter(([, pid, start]) => !ownerAlive(Number(pid), start ?? "")).map(([id]) => id);
  if (dead.length) await docker.call(["rm", "-f", ...dead]);
  return dead;
}

/** Records a container this process must remove before it exits. */
export function track(docker: Docker, id: string): void {
  live.set(id, docker);
  engines.add(docker);
  installExitHooks();
}

/** Forgets a container once it has been removed. */
export function untrack(id: string): void {
  live.delete(id);
}

interface RemovalBatch {
  ids: Map<string, ((gone: boolean) => void)[]>;
}
const batches = new Map<Docker, RemovalBatch>();

/**
 * Removes a container now; on failure it stays tracked and is retried at exit. Removals asked for within the same
 * few milliseconds on one engine go out as one `docker rm` (an episode's container and its verifier's, or many
 * episodes ending together), so the CLI is spawned once, not per container.
 */
export function removeContainer(docker: Docker, id: string): Promise<boolean> {
  return new Promise((resolve) => {
    let batch = batches.get(docker);
    if (!batch) {
      const b: RemovalBatch = { ids: new Map() };
      batch = b;
      batches.set(docker, b);
      setTimeout(() => {
        batches.delete(docker);
        void flushRemovals(docker, b);
      }, 5);
    }
    batch.ids.set(id, [...batch.ids.get(id) ?? [], resolve]);
  });
}

async function flushRemovals(docker: Docker, batch: RemovalBatch): Promise<void> {
  const ids = [...batch.ids.keys()];
  const r = await docker.call(["rm", "-f", "-v", ...ids], { timeoutMs: 60_000 }).catch(() => null);
  const lines = r?.stderr.split("\n") ?? [];
  // A failure that names no container (the engine is unreachable) fails them all.
  const all = r === null || (r.code !== 0 && !ids.some((id) => r.stderr.includes(id)));
  for (const id of ids) {
    // The daemon names each container it could not remove; one it does not know is gone already.
    const failed = all || (r!.code !== 0 && lines.some((l) => l.includes(id) && !l.includes("No such container")));
    if (!failed) untrack(id);
    for (const done of batch.ids.get(id)!) done(!failed);
  }
}

/** Ids of containers this process still owns. */
export function trackedContainers(): string[] {
  return [...live.keys()];
}

/** Removes every tracked container synchronously, retrying once; used at exit and on signals. */
export function removeAllSync(): void {
  for (let attempt = 0; attempt < 2 && live.size; attempt++) {
    const byEngine = new Map<Docker, string[]>();
    for (const [id, d] of live) byEngine.set(d, [...byEngine.get(d) ?? [], id]);
    for (const [d, ids] of byEngine) {
      try {
        const out = new Deno.Command("docker", { args: ["rm", "-f", "-v", ...ids], env: d.env(), stderr: "piped" })
          .outputSync();
        const err = new TextDecoder().decode(out.stderr);
        for (const id of ids) if (out.code === 0 || !err.includes(id)) live.delete(id);
      } catch { /* retried below */ }
    }
  }
}

const signalHooks = { start: new Set<() => void>(), exit: new Set<() => void>() };
const engines = new Set<Docker>();

/**
 * Registers a synchronous function run on SIGINT/SIGTERM: `start` ones as the signal arrives (e.g. stop starting
 * work), `exit` ones after this process's containers are gone, just before it exits (e.g. write a summary of what
 * finished). Returns a function that unregisters it.
 */
export function onSignal(when: "start" | "exit", fn: () => void): () => void {
  signalHooks[when].add(fn);
  installExitHooks();
  return () => signalHooks[when].delete(fn);
}

function runHooks(hooks: Set<() => void>): void {
  for (const fn of hooks) {
    try {
      fn();
    } catch { /* cleanup still runs */ }
  }
}

let creating = 0;
let exiting = false;
let exited: Promise<never> | undefined;

/**
 * Resolves at once unless a signal is being handled; then never (the handler removes the containers and exits), so a
 * command that finishes meanwhile does not exit before the cleanup is done.
 */
export function afterSignalCleanup(): Promise<void> {
  return exited ?? Promise.resolve();
}

/**
 * Wraps a `docker run`/`docker create` of ours: a signal arriving meanwhile waits for it to settle, so the container
 * it makes is removed too instead of outliving the process.
 */
export async function creatingContainer<T>(docker: Docker, create: () => Promise<T>): Promise<T> {
  engines.add(docker);
  installExitHooks();
  // Once a signal is being handled nothing new is created: it could outlive the last sweep.
  if (exiting) throw new Error("pgs is stopping: no new container");
  creating++;
  try {
    return await create();
  } finally {
    creating--;
  }
}

/**
 * Removes every container of this process, asynchronously: the tracked ones, then any labelled with this run on the
 * engines it used (one a `docker run` made but had not reported yet). Async on purpose: the event loop keeps pumping
 * the pipes of in-flight docker calls (a `docker cp` between two containers holds a container lock in the daemon
 * until its stream is drained), where a synchronous `docker rm` would wait on that lock forever.
 */
async function removeAllAsync(): Promise<void> {
  const me = owner();
  await Promise.all([...engines].map(async (d) => {
    const mine = [...live].filter(([, e]) => e === d).map(([id]) => id);
    const ps = await d.call(
      ["ps", "-aq", "--filter", `label=${LABELS.pid}=${me.pid}`, "--filter", `label=${LABELS.run}=${me.run}`],
      { timeoutMs: 30_000 },
    ).catch(() => null);
    const labelled = ps ? new TextDecoder().decode(ps.stdout).split("\n").filter(Boolean) : [];
    const ids = [...new Set([...mine, ...labelled])];
    if (!ids.length) return;
    const r = await d.call(["rm", "-f", "-v", ...ids], { timeoutMs: 60_000 }).catch(() => null);
    if (r && r.code === 0) { for (const id of ids) live.delete(id); }
  }));
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  globalThis.addEventListener("unload", removeAllSync);
  for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    try {
      Deno.addSignalListener(sig, async () => {
        if (exiting) Deno.exit(code); // a second Ctrl-C does not wait
        exiting = true;
        exited = new Promise<never>(() => {});
        runHooks(signalHooks.start);
        await removeAllAsync();
        // Containers being created right now would outlive us: wait (bounded) for those calls, then sweep again.
        const end = Date.now() + 20_000;
        while (creating > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        await removeAllAsync();
        runHooks(signalHooks.exit);
        Deno.exit(code);
      });
    } catch { /* signals unsupported on this platform */ }
  }
}
