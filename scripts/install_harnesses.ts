/**
 * Installs the npm harnesses `pgs harness capture --local` supports, each at the version its recipe records
 * (its profile's `capture.local`), under PREFIX (`PREFIX/<agent>/node_modules/.bin/<bin>`), for the tests that record real
 * harnesses (tests/overlay_real_test.ts: PGS_HARNESS_PREFIX). An install already in place is kept.
 *
 *   deno run -A scripts/install_harnesses.ts PREFIX AGENT...
 */
import { join } from "node:path";
import type { LocalRecipe } from "../lib/harness/capture_recipe.ts";
import { getProfile } from "../lib/harness/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

/** The local capture recipe of the profile `agent`, if it has one. */
function recipeOf(agent: string): LocalRecipe | undefined {
  try {
    return getProfile(agent).capture?.local;
  } catch {
    return undefined;
  }
}

/** Where `agent`'s binary lands under `prefix`. */
export function harnessBin(prefix: string, agent: string): string {
  return join(prefix, agent, "node_modules", ".bin", recipeOf(agent)!.bin);
}

if (import.meta.main) {
  const [prefix, ...agents] = Deno.args;
  if (!prefix || !agents.length) {
    console.error("usage: deno run -A scripts/install_harnesses.ts PREFIX AGENT...");
    Deno.exit(2);
  }
  for (const agent of agents) {
    const recipe = recipeOf(agent);
    if (!recipe) {
      console.error(`install_harnesses: ${agent} is no profile with a local capture recipe`);
      Deno.exit(2);
    }
    const spec = `${recipe.pkg}@${recipe.version}`;
    try {
      const pkg = JSON.parse(
        await Deno.readTextFile(join(prefix, agent, "node_modules", ...recipe.pkg.split("/"), "package.json")),
      );
      if (pkg.version === recipe.version) {
        console.error(`${spec}: already installed`);
        continue;
      }
    } catch { /* not installed yet */ }
    const t0 = performance.now();
    const r = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", join(prefix, agent), spec],
      stdout: "inherit",
      stderr: "inherit",
      signal: AbortSignal.timeout(900_000),
    }).output();
    if (!r.success) {
      console.error(`install_harnesses: npm install ${spec} failed`);
      Deno.exit(1);
    }
    console.error(`${spec}: installed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
}
