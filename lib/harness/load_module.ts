/** Loads a user's module of profiles (`--profiles-module ./my_profiles.ts`). */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "../base/errors.ts";
import { register } from "./registry.ts";
import type { HarnessProfile } from "./types.ts";

type Entry = [name: string, version: string, factory: () => HarnessProfile, isDefault?: boolean];

/**
 * Imports the module; it may call `register` itself (when it imports this library from the same place), export
 * `profiles` as a list of [name, version, factory] entries, or export a default function that receives `register`.
 * Returns the number of profiles it handed over through the exports.
 */
export async function loadProfilesModule(path: string): Promise<number> {
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(resolve(path)).href);
  } catch (e) {
    throw new UsageError(`--profiles-module ${path}: ${(e as Error).message.split("\n")[0]}`);
  }
  let n = 0;
  if (Array.isArray(mod.profiles)) {
    for (const [name, version, factory, isDefault] of mod.profiles as Entry[]) {
      register(name, version, factory, isDefault);
      n++;
    }
  }
  if (typeof mod.default === "function") {
    (mod.default as (r: typeof register) => void)((name, version, factory, isDefault) => {
      register(name, version, factory, isDefault);
      n++;
    });
  }
  return n;
}
