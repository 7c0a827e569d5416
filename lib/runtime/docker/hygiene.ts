/**
 * One engine's share of box hygiene, as the Docker runtime's own state: the boxes this process started there and
 * has not removed, the queue removals go through, and the sweep of what dead pgs processes left (by label).
 */
import { enlist, LABELS, owner, ownerAlive } from "../hygiene.ts";
import type { BoxPipe, Runtime } from "../runtime.ts";
import { cliCwd, type DockerCli } from "./cli.ts";
import { hasRemovalDeadlock } from "./removal_deadlock.ts";

/**
 * A name for a volume of this process: its pid and that pid's start time are in the name, so that a sweep tells
 * whose it is without a label lookup per volume (`volume ls --format` reads labels differently across engines).
 */
export function volumeName(): string {
  const me = owner();
  return `pgs-${me.pid}-${me.start || "0"}-${crypto.randomUUID().slice(0, 12)}`;
}

/** The owner a `volumeName` names, or undefined for a name of another form. */
function volumeOwner(name: string): { pid: number; start: string } | undefined {
  const m = name.match(/^pgs-(\d+)-(\d+)-[0-9a-f-]+$/);
  return m ? { pid: Number(m[1]), start: m[2] === "0" ? "" : m[2] } : undefined;
}

/** Tracked boxes, removals and sweeps on one engine. */
export class DockerHygiene {
  #live = new Set<string>();
  #volumes = new Set<string>();
  #swept = false;
  #queue: [string, (gone: boolean) => void, BoxPipe?][] = [];
  #draining = false;
  #serial?: Promise<boolean>;

  /** The hygiene of `cli`'s engine; `runtime` is enlisted for the exit sweep on the first tracked box. */
  constructor(readonly cli: DockerCli, readonly runtime: Runtime) {}

  /** Records a box this process must remove before it exits. */
  track(id: string): void {
    this.#live.add(id);
    enlist(this.runtime);
    // Asked now, so that the first removal does not wait for the engine's version.
    void this.serialRemovals();
  }

  /** Forgets a box once it has been removed. */
  untrack(id: string): void {
    this.#live.delete(id);
  }

  /** Ids of boxes this process still owns here. */
  tracked(): string[] {
    return [...this.#live];
  }

  /** Records a volume this process must remove before it exits. */
  trackVolume(name: string): void {
    this.#volumes.add(name);
    enlist(this.runtime);
  }

  /** `volume rm -f` of `names` (their boxes gone first); true when each is gone. Never throws. */
  async removeVolumes(names: string[]): Promise<boolean> {
    if (!names.length) return true;
    const r = await this.cli.call(["volume", "rm", "-f", ...names], { timeoutMs: 60_000 }).catch(() => null);
    if (!r || r.timedOut) return false;
    let all = true;
    for (const n of names) {
      if (r.code === 0 || !r.stderr.includes(n) || /no such volume/i.test(r.stderr)) this.#volumes.delete(n);
      else all = false;
    }
    return all;
  }

  #label(key: string): string {
    return this.cli.cli.labelField?.(key) ?? `{{.Label "${key}"}}`;
  }

  /** Removes containers left on this host by pgs processes that are gone; once per engine per process. */
  async sweepOrphans(): Promise<string[]> {
    if (this.#swept) return [];
    this.#swept = true;
    const r = await this.cli.call([
      "ps",
      "-a",
      "--filter",
      `label=${LABELS.marker}=1`,
      "--filter",
      `label=${LABELS.host}=${owner().host}`,
      "--format",
      `{{.ID}} ${this.#label(LABELS.pid)} ${this.#label(LABELS.start)}`,
    ]);
    if (r.code !== 0) return [];
    const dead = new TextDecoder().decode(r.stdout).split("\n").filter(Boolean).map((l) => l.split(" "))
      .filter(([, pid, start]) => !ownerAlive(Number(pid), start ?? "")).map(([id]) => id);
    // Twice: podman refuses to remove a pod's first member while a member that joined it is still there.
    for (let i = 0; i < 2 && dead.length; i++) {
      if ((await this.cli.call(["rm", "-f", "-v", ...dead])).code === 0) break;
    }
    await this.#sweepVolumes();
    return dead;
  }

  /** Removes the volumes of this host's dead pgs processes (their boxes are gone by now). */
  async #sweepVolumes(): Promise<void> {
    const r = await this.cli.call([
      "volume",
      "ls",
      "-q",
      "--filter",
      `label=${LABELS.marker}=1`,
      "--filter",
      `label=${LABELS.host}=${owner().host}`,
    ]);
    if (r.code !== 0) return;
    const dead = new TextDecoder().decode(r.stdout).split("\n").map((l) => l.trim()).filter((name) => {
      const who = volumeOwner(name);
      return who !== undefined && !ownerAlive(who.pid, who.start);
    });
    if (dead.length) await this.cli.call(["volume", "rm", "-f", ...dead]);
  }

  /**
   * Removes a container (`rm -f -v`); on failure it stays tracked and is retried at exit. With `serialRemovals` the
   * removals on one engine go one at a time, each its own call: dockerd 20.10 (before 20.10.27) can deadlock when two
   * containers' network teardowns overlap (moby/moby#46661, fixed by moby/libnetwork#2679), and one `docker rm` of
   * many ids fans out into parallel teardowns.
   */
  async remove(id: string, pipe?: BoxPipe): Promise<boolean> {
    if (!await this.serialRemovals()) return await this.#removeOne(id, pipe);
    return await new Promise((resolve) => {
      this.#queue.push([id, resolve, pipe]);
      if (!this.#draining) void this.#drain();
    });
  }

  /**
   * Whether removals go one at a time on this engine: as its `CliEngine` says, or by the engine's version (asked once,
   * bounded; an engine that does not say is assumed to have the deadlock).
   */
  serialRemovals(): Promise<boolean> {
    const rule = this.cli.cli.serialRemovals;
    if (rule !== "by-version") return Promise.resolve(rule);
    return this.#serial ??= this.cli.call(["version", "--format", "{{.Server.Version}}"], { timeoutMs: 10_000 })
      .then((r) => r.code !== 0 || hasRemovalDeadlock(new TextDecoder().decode(r.stdout)), () => true);
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        const [id, done, pipe] = next;
        done(await this.#removeOne(id, pipe));
      }
    } finally {
      this.#draining = false;
    }
  }

  async #removeOne(id: string, pipe?: BoxPipe): Promise<boolean> {
    if (pipe?.removedWithPipe && await closePipe(pipe)) {
      this.untrack(id);
      return true;
    }
    // A kept box's CLI ends with the box; what its main process still prints is dropped meanwhile.
    if (pipe) void pipe.reader.drain();
    const res = await this.cli.call(["rm", "-f", "-v", id], { timeoutMs: 60_000 }).catch(() => null);
    // One the daemon does not know is gone already; one another removal has in hand is gone once that ends.
    const gone = res !== null && !res.timedOut &&
      (res.code === 0 || /No such container/i.test(res.stderr) ||
        (/already in progress/i.test(res.stderr) && await this.#vanished(id, OTHER_REMOVAL_MS)));
    if (gone) this.untrack(id);
    return gone;
  }

  /** True once the engine no longer knows `id`, polled for up to `maxMs`. */
  async #vanished(id: string, maxMs: number): Promise<boolean> {
    const end = Date.now() + maxMs;
    for (;;) {
      const r = await this.cli.call(["inspect", "--format", "{{.Id}}", id], { timeoutMs: 30_000 }).catch(() => null);
      if (!r || r.timedOut) return false;
      if (r.code !== 0 && /No such/i.test(r.stderr)) return true;
      if (Date.now() >= end) return false;
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }

  /** Removes every tracked container synchronously, retrying once; skipped when the engine was found down. */
  removeOwnSync(): void {
    // An engine found down would hang a synchronous call: its containers are swept by the next run instead.
    // Twice: podman refuses to remove a pod's first member while a member that joined it is still there.
    for (let attempt = 0; attempt < 2 && this.#live.size && !this.cli.down; attempt++) {
      const ids = [...this.#live];
      try {
        const out = new Deno.Command(this.cli.cli.binary, {
          args: ["rm", "-f", "-v", ...ids],
          env: this.cli.env(),
          cwd: cliCwd(),
          stderr: "piped",
        }).outputSync();
        const err = new TextDecoder().decode(out.stderr);
        for (const id of ids) if (out.code === 0 || !err.includes(id)) this.#live.delete(id);
      } catch { /* retried below */ }
    }
    if (!this.#volumes.size || this.cli.down) return;
    try {
      new Deno.Command(this.cli.cli.binary, {
        args: ["volume", "rm", "-f", ...this.#volumes],
        env: this.cli.env(),
        cwd: cliCwd(),
        stderr: "null",
        stdout: "null",
      }).outputSync();
      this.#volumes.clear();
    } catch { /* the next run's sweep */ }
  }

  /**
   * Removes the tracked containers and any labelled with this process's run, asynchronously, and returns once the
   * engine lists none of them (or after `settleMs`): a box another removal has in hand ("removal ... already in
   * progress") still shows in `ps -a` until that removal ends, and a stop must not say its containers are gone before.
   */
  async removeOwn(settleMs = OTHER_REMOVAL_MS): Promise<void> {
    const end = Date.now() + settleMs;
    for (;;) {
      // When the engine cannot list them, the tracked ones are still removed, once (the next run sweeps the rest).
      const labelled = await this.#labelled();
      const ids = [...new Set([...this.#live, ...labelled ?? []])];
      if (!ids.length) {
        await this.removeVolumes([...this.#volumes]);
        return;
      }
      const r = await this.cli.call(["rm", "-f", "-v", ...ids], { timeoutMs: 60_000 }).catch(() => null);
      if (!r) return;
      // The CLI names each container it could not remove; the others are gone, as are those it does not know.
      for (const id of ids) {
        if (r.code === 0 || !r.stderr.includes(id) || new RegExp(`No such container:? ${id}`, "i").test(r.stderr)) {
          this.#live.delete(id);
        }
      }
      if (labelled === null || Date.now() >= end) {
        await this.removeVolumes([...this.#volumes]);
        return;
      }
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }

  /** Full ids of the containers labelled with this process and run, or null when the engine does not answer. */
  async #labelled(): Promise<string[] | null> {
    const me = owner();
    const ps = await this.cli.call(
      // Full ids, as tracked ones are: the same container must not be named twice (the second removal would fail).
      [
        "ps",
        "-aq",
        "--no-trunc",
        "--filter",
        `label=${LABELS.pid}=${me.pid}`,
        "--filter",
        `label=${LABELS.run}=${me.run}`,
      ],
      { timeoutMs: 30_000 },
    ).catch(() => null);
    if (!ps || ps.code !== 0) return null;
    return new TextDecoder().decode(ps.stdout).split("\n").filter(Boolean);
  }
}

/** How long a removal (or `removeOwn`) waits for another removal of the same box to end. */
const OTHER_REMOVAL_MS = 30_000;

/** How long a tied box's CLI may take to exit once its pipe is closed (the engine removes the box before it exits). */
const CLOSE_MS = 30_000;

/**
 * Ends a tied box by closing its main process's stdin (its stdout drained meanwhile); true once the CLI attached to
 * it exited, which with `--rm` is after the engine removed the box. False when it did not within its bound.
 */
async function closePipe(pipe: BoxPipe): Promise<boolean> {
  if (pipe.busy) return false; // its main process would not see the end of its input: `rm -f` ends it
  await pipe.writer.close().catch(() => {});
  void pipe.reader.drain();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    pipe.status.then(() => true, () => true),
    new Promise<boolean>((ok) => timer = setTimeout(() => ok(false), CLOSE_MS)),
  ]);
  clearTimeout(timer);
  return exited;
}
