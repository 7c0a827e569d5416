/**
 * Finding a harness's capture recipe among the registered profiles (each carries its own: `HarnessProfile.capture`,
 * `lib/harness/capture_recipe.ts`), and the hint for a missing binary.
 */
import type { LocalRecipe, StubWiring } from "../harness/capture_recipe.ts";
import type { HarnessProfile } from "../harness/types.ts";

/** The local recipe of the profile named `agent` (its default version, or `agent@version`) among `profiles`. */
export function localRecipe(
  agent: string,
  profiles: { spec: string; profile: HarnessProfile }[],
): { agent: string; recipe: LocalRecipe } | undefined {
  const hit = profiles.find((p) => p.spec === agent && p.profile.capture?.local);
  return hit && { agent: hit.profile.name, recipe: hit.profile.capture!.local! };
}

/** How the Harbor agent `agent` is pointed at the stub: its profile's wiring, else the OpenAI-style default. */
export function harborWiring(
  agent: string,
  profiles: HarnessProfile[],
): ((model: string, baseUrl: string, key: string) => StubWiring) | undefined {
  return profiles.find((p) => p.capture?.harbor?.agent === agent)?.capture?.harbor?.wiring;
}

/** The install hint for a missing harness binary. */
export function missingBinaryMessage(agent: string, recipe: LocalRecipe, tried: string): string {
  return `harness capture: ${agent} binary not found (${tried}); install it with ` +
    `\`npm install ${recipe.pkg}@${recipe.version}\` and pass --bin node_modules/.bin/${recipe.bin}, or put ${recipe.bin} on PATH`;
}
