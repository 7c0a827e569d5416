/**
 * Tests run against every registered runtime (`lib/runtime/registry.ts`): each runtime's engine is probed once when
 * this module loads (one `image inspect` of pgs-base:1), and `runtimeTest` registers one test per runtime, named
 * `runtime [NAME]: ...`. A runtime whose engine does not answer, or answers without pgs-base:1 (which `deno task test`
 * makes first where it can: `tests/base_image.ts`), is registered as an ignored test with the reason in its name
 * (never a pass), unless it is required: the default runtime under CI (`CI=true`), as `dockerTest` does, and any named
 * in `PGS_REQUIRE_RUNTIMES` (comma-separated), whose tests then fail loudly with the reason. Engine tests: `ci` tier
 * only (docs/testing.md).
 */
import { createRuntime, runtimeNames } from "../lib/runtime/registry.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { engineProblem, REQUIRED_RUNTIMES } from "./base_image.ts";
import { ciTest, TIER } from "./tier.ts";

/** A registered runtime as this machine has it. */
export interface RuntimeUnderTest {
  /** Its registry name. */
  name: string;
  /** A client of its default engine. */
  runtime: Runtime;
  /** Why its tests are skipped (no engine answers, or it lacks pgs-base:1); undefined when they run. */
  absent?: string;
  /** The same reason for a required runtime, whose tests then fail with it. */
  problem?: string;
}

async function probe(name: string): Promise<RuntimeUnderTest> {
  const runtime = createRuntime(name);
  const why = await engineProblem(runtime);
  if (why === undefined) return { name, runtime };
  const required = REQUIRED_RUNTIMES.get(name);
  return required ? { name, runtime, problem: `${why} (${required} requires it)` } : { name, runtime, absent: why };
}

/** Probes every registered runtime now (for a soak test, whose tier `RUNTIMES` leaves empty). */
export function probeRuntimes(): Promise<RuntimeUnderTest[]> {
  return Promise.all(runtimeNames().map(probe));
}

/** Every registered runtime, probed (none in the unit tier, which never touches an engine). */
export const RUNTIMES: RuntimeUnderTest[] = TIER === "ci" ? await probeRuntimes() : [];

/**
 * Registers `fn` once per registered runtime: run where its engine answers with pgs-base:1, ignored with the reason
 * elsewhere, failed with it where that runtime is required.
 */
export function runtimeTest(
  name: string,
  fn: (runtime: Runtime, t: Deno.TestContext) => Promise<void>,
  opts: Omit<Deno.TestDefinition, "name" | "fn" | "ignore"> = {},
): void {
  for (const r of RUNTIMES) {
    if (r.absent) {
      ciTest({ ...opts, name: `runtime [${r.name}] (skipped: ${r.absent}): ${name}`, ignore: true, fn: () => {} });
    } else if (r.problem) {
      const problem = r.problem;
      ciTest({ ...opts, name: `runtime [${r.name}]: ${name}`, fn: () => Promise.reject(new Error(problem)) });
    } else {
      ciTest({ ...opts, name: `runtime [${r.name}]: ${name}`, fn: (t) => fn(r.runtime, t) });
    }
  }
}
