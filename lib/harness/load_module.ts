/** Loads a user's module of profiles (`--profiles-module ./my_profiles.ts`). */
import { dirname, resolve } from "node:path";
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
  let staged: string | undefined;
  try {
    staged = await withOwnSpecifiers(resolve(path));
    mod = await import(pathToFileURL(staged ?? resolve(path)).href);
  } catch (e) {
    throw new UsageError(`--profiles-module ${path}: ${(e as Error).message.split("\n")[0]}`);
  } finally {
    if (staged) await Deno.remove(dirname(staged), { recursive: true }).catch(() => {});
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

/** The global the shims read pgs's own modules from (set while a module loads). */
const OWN_KEY = Symbol.for("pgs.own-modules");
let ownModules: Record<string, Record<string, unknown>> | undefined;

/**
 * Gives the entry points a user's module may import by pgs's names (`@pgs/pgs`, `@pgs/pgs/harness`, ...): the
 * running program's own module objects, so that a bundled or compiled pgs, which has no import map and no source
 * files, serves them too, and `register` reaches this process's registry. Called once by the CLI.
 */
export function provideOwnModules(mods: Record<string, Record<string, unknown>>): void {
  ownModules = mods;
}

/** An import or export's specifier in quotes: pgs's own names, and relative paths (resolved against the module). */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(@pgs\/pgs(?:\/[a-z]+)?|\.\.?\/[^"'\n]*)\2/g;

/** A module that re-exports the named exports of the running program's module `spec`. */
function shim(spec: string, mod: Record<string, unknown>): string {
  const names = Object.keys(mod).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
  const body = `const m = globalThis[Symbol.for("pgs.own-modules")][${JSON.stringify(spec)}];\n` +
    `export const { ${names.join(", ")} } = m;\n`;
  return `data:application/javascript;base64,${btoa(body)}`;
}

/**
 * When the module imports pgs by name and the program provided its modules, a copy of it is staged in a temporary
 * folder with pgs's names pointing at shims of those modules and its relative imports as absolute URLs (a module it
 * imports relatively is loaded from its own place). Returns the copy's path, or undefined: the module is imported as
 * it is (from source, pgs's import map serves the names).
 */
async function withOwnSpecifiers(path: string): Promise<string | undefined> {
  const own = ownModules;
  if (!own) return undefined;
  // A file that cannot be read is left to the import, whose error names it as for any module.
  const text = await Deno.readTextFile(path).catch(() => "");
  if (!text.includes("@pgs/pgs")) return undefined;
  (globalThis as Record<symbol, unknown>)[OWN_KEY] = own;
  const base = pathToFileURL(path);
  const rewritten = text.replace(SPECIFIER, (all, lead: string, q: string, spec: string) => {
    const url = own[spec] ? shim(spec, own[spec]) : spec.startsWith(".") ? new URL(spec, base).href : undefined;
    return url ? `${lead}${q}${url}${q}` : all;
  });
  const dir = await Deno.makeTempDir({ prefix: "pgs_profiles_module_" });
  const copy = resolve(dir, path.split("/").pop()!);
  await Deno.writeTextFile(copy, rewritten);
  return copy;
}
