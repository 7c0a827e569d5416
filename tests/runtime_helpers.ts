/**
 * Tests run against every registered runtime (`lib/runtime/registry.ts`): each runtime's engine is probed once when
 * this module loads, and `runtimeTest` registers one test per runtime, named `runtime [NAME]: ...`. A runtime whose
 * engine does not answer is registered as an ignored test with the reason in its name (never a pass), unless it is
 * required: the default runtime under CI (`CI=true`), as `dockerTest` does, and any named in `PGS_REQUIRE_RUNTIMES`
 * (comma-separated), whose tests then run and fail loudly. Engine tests: `ci` tier only (docs/testing.md).
 */
import { createRuntime, DEFAULT_RUNTIME, runtimeNames } from "../lib/runtime/registry.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { ciTest, TIER } from "./tier.ts";

/** A registered runtime as this machine has it. */
export interface RuntimeUnderTest {
  /** Its registry name. */
  name: string;
  /** A client of its default engine. */
  runtime: Runtime;
  /** Why its tests are skipped (its engine does not answer); undefined when they run. */
  absent?: string;
}

const required = new Set([
  ...(Deno.env.get("CI") === "true" ? [DEFAULT_RUNTIME] : []),
  ...(Deno.env.get("PGS_REQUIRE_RUNTIMES") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
]);

async function probe(name: string): Promise<RuntimeUnderTest> {
  const runtime = createRuntime(name);
  if (await runtime.ping() || required.has(name)) return { name, runtime };
  return { name, runtime, absent: `no ${name} engine answers at ${runtime.engine}` };
}

/** Probes every registered runtime now (for a soak test, whose tier `RUNTIMES` leaves empty). */
export function probeRuntimes(): Promise<RuntimeUnderTest[]> {
  return Promise.all(runtimeNames().map(probe));
}

/** Every registered runtime, probed (none in the unit tier, which never touches an engine). */
export const RUNTIMES: RuntimeUnderTest[] = TIER === "ci" ? await probeRuntimes() : [];

/** Registers `fn` once per registered runtime: run where its engine answers, ignored with the reason elsewhere. */
export function runtimeTest(
  name: string,
  fn: (runtime: Runtime, t: Deno.TestContext) => Promise<void>,
  opts: Omit<Deno.TestDefinition, "name" | "fn" | "ignore"> = {},
): void {
  for (const r of RUNTIMES) {
    if (r.absent) {
      ciTest({ ...opts, name: `runtime [${r.name}] (skipped: ${r.absent}): ${name}`, ignore: true, fn: () => {} });
    } else {
      ciTest({ ...opts, name: `runtime [${r.name}]: ${name}`, fn: (t) => fn(r.runtime, t) });
    }
  }
}
