/**
 * The built-in harness profiles: one folder per harness (`<name>/mod.ts` and its pieces, its tests beside them),
 * listed in `builtins.ts`. `registerBuiltins` puts them into a registry (the process's by default); nothing registers on import.
 */
import { type ProfileRegistry, profiles } from "../lib/harness/registry.ts";
import { BUILTIN_PROFILES } from "./builtins.ts";

export { BUILTIN_PROFILES } from "./builtins.ts";
export { DEFAULT_SYSTEM_PROMPT, defaultSystemPrompt } from "./palingenesis_default/mod.ts";

/** Registers every built-in profile in `registry` (default: the process's); a version already there is kept. */
export function registerBuiltins(registry: ProfileRegistry = profiles): void {
  for (const [name, version, factory, isDefault] of BUILTIN_PROFILES) {
    if (!registry.has(name, version)) registry.register(name, version, factory, isDefault);
  }
}
