/**
 * Runtimes registered as data: a name maps to a factory (as mini-swe-agent maps environment names to classes). The
 * built-in ones are listed in `runtimes.ts`; a library user may register another. The CLI and `HarborEnv` build
 * theirs from here, so nothing above `lib/runtime/` names a runtime's class.
 */
import type { Runtime, RuntimeEntry, RuntimeOptions } from "./runtime.ts";
import { BUILTIN_RUNTIMES } from "./runtimes.ts";

export type { RuntimeEntry } from "./runtime.ts";

/** The runtime used when none is named. */
export const DEFAULT_RUNTIME = "docker";

const entries = new Map<string, RuntimeEntry>(Object.entries(BUILTIN_RUNTIMES));

/** Registers (or replaces) runtime `name`. */
export function registerRuntime(name: string, entry: RuntimeEntry): void {
  entries.set(name, entry);
}

/** The registered runtimes' names, the default first. */
export function runtimeNames(): string[] {
  return [...entries.keys()].sort((a, b) => (b === DEFAULT_RUNTIME ? 1 : 0) - (a === DEFAULT_RUNTIME ? 1 : 0));
}

/** The entry of runtime `name`, or undefined. */
export function runtimeEntry(name: string): RuntimeEntry | undefined {
  return entries.get(name);
}

/** A new client of runtime `name` (default docker); throws a one-line Error naming the known ones otherwise. */
export function createRuntime(name: string = DEFAULT_RUNTIME, opts: RuntimeOptions = {}): Runtime {
  const entry = entries.get(name);
  if (!entry) throw new Error(`unknown runtime ${JSON.stringify(name)} (known: ${runtimeNames().join(", ")})`);
  return entry.create(opts);
}
