/**
 * `deno task bench:reset`: how long `env serve`'s reset takes (HarborEnv.reset of examples/tasks/fix-word-count under
 * pi: start the box, render the first prompt), cold and with a box started ahead (`warm`), one reset at a time, on
 * every registered runtime whose engine answers. Prints medians and p90s; asserts nothing; leaves nothing behind.
 * RESET_N (12 resets each).
 */
import { resolve } from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { createRuntime, runtimeNames } from "../lib/runtime/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { median } from "./pgs_runs.ts";

registerBuiltins();
const N = Number(Deno.env.get("RESET_N") ?? 12);
const TASK = resolve(import.meta.dirname!, "..", "examples", "tasks", "fix-word-count");
const f0 = (x: number) => x.toFixed(0);
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

async function resets(env: HarborEnv, warm: boolean): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    if (warm) {
      await env.warm({ task_dir: TASK }, 1);
      await env.pool.settled();
    }
    const t = performance.now();
    const ep = await env.reset({ task_dir: TASK });
    ms.push(performance.now() - t);
    await ep.close();
  }
  return ms;
}

console.log(`env serve reset (HarborEnv.reset, pi, one at a time, ${N} each), load ${Deno.loadavg()[0].toFixed(1)}:`);
for (const name of runtimeNames()) {
  const runtime = createRuntime(name);
  if (!await runtime.ping()) {
    console.log(`  ${name}: skipped, no engine answers at ${runtime.engine}`);
    continue;
  }
  const env = new HarborEnv({ runtime, profile: "pi" });
  try {
    await resets(env, false); // the image is built and cached once
    const cold = await resets(env, false);
    const warm = await resets(env, true);
    console.log(
      `  ${name.padEnd(7)} cold p50 ${f0(median(cold))} ms (p90 ${f0(p90(cold))}) | warm box ready p50 ${
        f0(median(warm))
      } ms (p90 ${f0(p90(warm))})`,
    );
  } finally {
    await env.close();
  }
  console.log(`  ${name}: left behind ${runtime.tracked().length}`);
}
