/** Per-episode state a profile keeps under a key of `Session.state`, created on first use. */
import type { Session } from "./types.ts";

/** The value under `key` in the episode's state, made by `init` the first time it is asked for. */
export function episodeState<T>(s: Session, key: string, init: () => T): T {
  if (!s.state.has(key)) s.state.set(key, init());
  return s.state.get(key) as T;
}
