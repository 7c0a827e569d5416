/**
 * Load figure for `pgs harness serve`: requests per second, non-streaming and streaming, sent from this process to
 * the stub running as a second process on loopback. Prints; asserts nothing.
 */
import { join } from "node:path";
import { spawnStub } from "./spawn_stub.ts";

const SECONDS = Number(Deno.env.get("BENCH_STUB_SECONDS") ?? 5);
const CONCURRENCY = Number(Deno.env.get("BENCH_STUB_CONCURRENCY") ?? 64);

const dir = await Deno.makeTempDir({ prefix: "pgs-stub-bench-" });
const script = join(dir, "turns.json");
await Deno.writeTextFile(script, JSON.stringify([{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }] }]));
const stub = await spawnStub(script, join(dir, "r.jsonl"));
const base = stub.base.replace(/\/v1$/, "");

async function load(stream: boolean): Promise<{ rps: number; p50: number }> {
  let n = 0;
  const lat: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < end; i++) {
      const body = JSON.stringify({
        model: "stub-model",
        stream,
        messages: [{ role: "system", content: "s" }, { role: "user", content: `conversation ${w}-${i}` }],
        tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
      });
      const t = performance.now();
      const r = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
      await r.arrayBuffer();
      lat.push(performance.now() - t);
      n++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  lat.sort((a, b) => a - b);
  return { rps: n / ((performance.now() - t0) / 1000), p50: lat[Math.floor(lat.length / 2)] };
}

try {
  await load(false); // warm-up
  const plain = await load(false);
  const sse = await load(true);
  console.log(`stub load (${CONCURRENCY} concurrent clients, ${SECONDS} s each, second process on loopback)`);
  console.log(
    `  non-streaming  ${plain.rps.toFixed(0).padStart(6)} req/s   p50 ${plain.p50.toFixed(1)} ms   (goal >= 3000)`,
  );
  console.log(`  streaming      ${sse.rps.toFixed(0).padStart(6)} req/s   p50 ${sse.p50.toFixed(1)} ms`);
} finally {
  await stub.stop();
  await Deno.remove(dir, { recursive: true });
}
