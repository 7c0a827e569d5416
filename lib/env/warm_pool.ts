/**
 * Episode boxes started ahead for resets that are about to come (`HarborEnv.warm`, `POST /v1/warm`): each is a whole
 * `startBoxes` (fresh from the task's image, setup.sh run, healthcheck passed, its verifier box made) with its
 * exec channel up, used by one episode only. Fills run one at a time, so a pool never takes more than one start's
 * worth of the engine away from the episodes that run; a box idle past `idleMs` is removed.
 */
import type { ImageStore } from "../runtime/images.ts";
import type { Sandbox, SandboxOptions } from "../runtime/sandbox.ts";
import type { Task } from "../task/task.ts";
import { type EpisodeVerifier, startBoxes, type VerifierOptions } from "../verify/episode_verifier.ts";

/** How an episode's boxes start: the agent's box's options and its verifier's. */
export type StartOptions = SandboxOptions & VerifierOptions;

/** An episode's boxes: the agent's and its verifier's plan (`startBoxes`). */
export interface Boxes {
  /** The agent's box. */
  box: Sandbox;
  /** Its verifier, with the box it made ahead. */
  verifier: EpisodeVerifier;
}

/** How a pool is bounded. */
export interface WarmPoolOptions {
  /** Boxes held at most, over every task (default 64). */
  max?: number;
  /** Milliseconds a box may wait before it is removed unused (default 600 000). */
  idleMs?: number;
}

interface Held {
  boxes: Boxes;
  at: number;
}

/** Boxes started ahead, per task and start options. */
export class WarmPool {
  #held = new Map<string, Held[]>();
  #filling: Promise<unknown> = Promise.resolve();
  #pending = 0;
  /** Per key, fills queued and not begun (a reset may take one back and start its own box instead). */
  #queued = new Map<string, number>();
  /** The fill under way: its key, and when it ends. */
  #starting?: { key: string; done: Promise<void> };
  #closed = false;
  readonly #max: number;
  readonly #idleMs: number;

  /** A pool starting its boxes from `store`. */
  constructor(readonly store: ImageStore, opts: WarmPoolOptions = {}) {
    this.#max = opts.max ?? 64;
    this.#idleMs = opts.idleMs ?? 600_000;
  }

  /** Boxes ready now, over every task. */
  get size(): number {
    let n = 0;
    for (const list of this.#held.values()) n += list.length;
    return n;
  }

  /** Boxes asked for and not started yet. */
  get pending(): number {
    return this.#pending;
  }

  #key(task: Task, opts: StartOptions): string {
    return JSON.stringify([task.paths.dir, opts.workdir ?? null, opts.verifierMode ?? null]);
  }

  /** Boxes of `task` (started with `opts`) ready now, and asked for but not ready yet. */
  countFor(task: Task, opts: StartOptions = {}): { ready: number; pending: number } {
    const key = this.#key(task, opts);
    const ready = this.#held.get(key)?.length ?? 0;
    return { ready, pending: (this.#queued.get(key) ?? 0) + (this.#starting?.key === key ? 1 : 0) };
  }

  /**
   * A box of `task` for a reset: a ready one; else the one being started now, waited for; else undefined, and one
   * fill of it still queued is taken back (the reset starts its own box, so a group's containers never double).
   */
  async acquire(task: Task, opts: StartOptions = {}): Promise<Boxes | undefined> {
    const ready = this.take(task, opts);
    if (ready) return ready;
    const key = this.#key(task, opts);
    const starting = this.#starting;
    if (starting?.key === key) {
      await starting.done;
      const box = this.take(task, opts);
      if (box) return box;
    }
    const queued = this.#queued.get(key) ?? 0;
    if (queued > 0) {
      this.#setQueued(key, queued - 1);
      this.#pending--;
    }
    return undefined;
  }

  #setQueued(key: string, n: number): void {
    if (n > 0) this.#queued.set(key, n);
    else this.#queued.delete(key);
  }

  /** A ready box of `task` started with `opts`, taken out of the pool; undefined when none is ready. */
  take(task: Task, opts: StartOptions = {}): Boxes | undefined {
    const list = this.#held.get(this.#key(task, opts));
    const held = list?.shift();
    if (list && !list.length) this.#held.delete(this.#key(task, opts));
    return held?.boxes;
  }

  /**
   * Asks for `n` boxes of `task` (queued behind earlier fills, started one at a time); resolves with how many were
   * queued (fewer when the pool would pass its bound). A start that fails is dropped (the reset then starts its own).
   */
  fill(task: Task, opts: StartOptions, n: number): number {
    const room = Math.max(0, this.#max - this.size - this.#pending);
    const count = this.#closed ? 0 : Math.min(n, room);
    const key = this.#key(task, opts);
    for (let i = 0; i < count; i++) {
      this.#pending++;
      this.#setQueued(key, (this.#queued.get(key) ?? 0) + 1);
      this.#filling = this.#filling.then(() => this.#begin(key, task, opts)).catch(() => {});
    }
    return count;
  }

  /** Runs one queued fill of `key`, unless a reset took it back meanwhile. */
  async #begin(key: string, task: Task, opts: StartOptions): Promise<void> {
    const queued = this.#queued.get(key) ?? 0;
    if (queued === 0) return;
    this.#setQueued(key, queued - 1);
    const done = this.#startOne(task, opts);
    this.#starting = { key, done: done.catch(() => {}) };
    try {
      await done;
    } finally {
      this.#starting = undefined;
    }
  }

  async #startOne(task: Task, opts: StartOptions): Promise<void> {
    try {
      if (this.#closed) return;
      const boxes = await startBoxes(task, this.store, opts);
      // The channel's process starts now rather than on the episode's first command.
      await boxes.box.exec(":", { shell: "sh", timeoutSec: 30 }).catch(() => {});
      if (this.#closed) return void await boxes.box.remove();
      const key = this.#key(task, opts);
      const list = this.#held.get(key) ?? [];
      list.push({ boxes, at: Date.now() });
      this.#held.set(key, list);
    } finally {
      this.#pending--;
    }
  }

  /** Resolves once every fill asked for so far has settled. */
  async settled(): Promise<void> {
    let seen: Promise<unknown> | undefined;
    while (seen !== this.#filling) {
      seen = this.#filling;
      await seen;
    }
  }

  /** Removes boxes idle past the bound; returns how many. */
  async sweep(now: number = Date.now()): Promise<number> {
    const old: Sandbox[] = [];
    for (const [key, list] of this.#held) {
      const keep = list.filter((h) => now - h.at <= this.#idleMs);
      old.push(...list.filter((h) => now - h.at > this.#idleMs).map((h) => h.boxes.box));
      if (keep.length) this.#held.set(key, keep);
      else this.#held.delete(key);
    }
    await Promise.all(old.map((b) => b.remove()));
    return old.length;
  }

  /** Removes every box held and refuses later fills; a fill in flight removes its box when it is done. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#held.values()].flat().map((h) => h.boxes.box);
    this.#held.clear();
    await Promise.all(all.map((b) => b.remove()));
    await this.settled();
  }
}
