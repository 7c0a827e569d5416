/**
 * The env server's open episodes by id: each with its token-mode state, whether a step of it runs, and when it was
 * last used; how the last ended ones ended (a late call on one is a 409 that says how, not an unknown id's 404); the
 * bound on open episodes; one step at a time per episode; and the idle ones a sweeper closes.
 */
import type { HarborEpisode } from "./harbor_env.ts";
import type { TokenEpisode } from "./token_episode.ts";
import { HttpError } from "./server_requests.ts";

/** Ended episodes remembered, so that a late call on one says how it ended. */
const ENDED_KEPT = 10_000;

/** One open episode. */
export interface Live {
  /** Its id. */
  id: string;
  /** The episode. */
  ep: HarborEpisode;
  /** True while a step of it runs. */
  busy: boolean;
  /** When it was last asked for (ms since the epoch). */
  lastUsed: number;
  /** Token mode's state. */
  tok?: TokenEpisode;
  /** Per sampled token, its logprob (null where the trainer sent none), in order. */
  logprobs?: (number | null)[];
}

/** The open episodes of one server. */
export class EpisodeTable {
  readonly #live = new Map<string, Live>();
  readonly #endedHow = new Map<string, string>();
  /** Episodes being started now (they count against the bound). */
  starting = 0;

  /** A table of at most `maxEpisodes` open episodes. */
  constructor(readonly maxEpisodes: number) {}

  /** Open episodes. */
  get size(): number {
    return this.#live.size;
  }

  /** Every open episode. */
  all(): Live[] {
    return [...this.#live.values()];
  }

  /** Refuses a new episode past the bound (429). */
  admit(): void {
    if (this.#live.size + this.starting >= this.maxEpisodes) {
      throw new HttpError(
        429,
        "too_many_episodes",
        `${this.maxEpisodes} episodes are open; finish or close some first`,
      );
    }
  }

  /** Opens `ep` (with token mode's state) under a new id. */
  add(ep: HarborEpisode, tok?: TokenEpisode): Live {
    const e: Live = { id: crypto.randomUUID(), ep, busy: false, lastUsed: Date.now(), tok };
    if (tok) e.logprobs = [];
    this.#live.set(e.id, e);
    return e;
  }

  /** The open episode `id` (marked used now); a 409 saying how it ended, or a 404 for an id never seen. */
  get(id: string): Live {
    const e = this.#live.get(id);
    if (!e) {
      const how = this.#endedHow.get(id);
      if (how) throw new HttpError(409, "episode_ended", `episode ${JSON.stringify(id)} has ended: ${how}`);
      throw new HttpError(404, "not_found", `no episode ${JSON.stringify(id)}`);
    }
    e.lastUsed = Date.now();
    return e;
  }

  /** Takes `id` out of the table, remembering `how` it ended. */
  end(id: string, how: string): void {
    this.#live.delete(id);
    this.#endedHow.set(id, how);
    if (this.#endedHow.size > ENDED_KEPT) this.#endedHow.delete(this.#endedHow.keys().next().value!);
  }

  /** Ends `e` and closes it (its containers removed). */
  async drop(e: Live, how = "closed (DELETE)"): Promise<void> {
    this.end(e.id, how);
    await e.ep.close();
  }

  /** Runs one step of `e` alone: refused when the episode has ended or another step of it runs. */
  async stepping<T>(e: Live, fn: () => Promise<T>): Promise<T> {
    if (e.ep.done) throw new HttpError(409, "episode_done", "the episode has ended; POST .../finish for its reward");
    if (e.busy) throw new HttpError(409, "episode_busy", "a step of this episode is still running");
    e.busy = true;
    try {
      return await fn();
    } finally {
      e.busy = false;
      e.lastUsed = Date.now();
    }
  }

  /** Episodes no step runs in and no request asked for in `idleMs`. */
  idle(now: number, idleMs: number): Live[] {
    return this.all().filter((e) => !e.busy && now - e.lastUsed > idleMs);
  }
}
