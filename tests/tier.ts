/**
 * The test tier this process runs, from `PGS_TEST_TIER` (docs/testing.md):
 * - `unit` (`deno task test:unit`): only plain `Deno.test`s; engine tests are not registered, and the task points
 *   `DOCKER_HOST` at nothing so that a plain test that touches Docker fails there;
 * - `ci` (unset; `deno task test`, the README's test command): plain and engine tests (`dockerTest`);
 * - `soak` (`deno task test:soak`): only the repetitions and long fault runs (`soakTest`, named `soak: ...`).
 */

/** The tiers, from the fastest. */
export type Tier = "unit" | "ci" | "soak";

function readTier(): Tier {
  const v = Deno.env.get("PGS_TEST_TIER") || "ci";
  if (v !== "unit" && v !== "ci" && v !== "soak") throw new Error(`PGS_TEST_TIER must be unit, ci or soak, got "${v}"`);
  return v;
}

/** This process's tier. */
export const TIER: Tier = readTier();

/** The prefix of every soak test's name: `deno task test:soak` selects them with `--filter`. */
export const SOAK_PREFIX = "soak: ";

/**
 * `Deno.test` for a test that needs something from outside the repository (a harness install, a recording, the
 * engine: see `engineTest`), given whole, its body in `def.fn` or after it: registered in the `ci` tier only.
 */
export function ciTest(
  def: Omit<Deno.TestDefinition, "fn"> & { fn?: Deno.TestDefinition["fn"] },
  fn?: Deno.TestDefinition["fn"],
): void {
  const body = fn ?? def.fn;
  if (!body) throw new Error(`test "${def.name}": no test function`);
  if (TIER === "ci") Deno.test({ ...def, fn: body });
}
