/**
 * `deno run -A bench/pod_start.ts [--n N]`: what a pod costs at start and removal (issue #41). On every registered
 * runtime whose engine answers, N episodes one at a time (default 10) of a single-box task and of a two-service pod
 * task (the same box plus a sidecar `web` serving HTTP that `main` waits for, `service_healthy`, interval 1s), each
 * started with `Sandbox.start` and removed with `sandbox.remove()`, after one untimed episode of each to warm the
 * images. Prints p50 and p90 of start and of removal, the pod's extra start cost (the p50s' difference) and the mean of
 * `timings.services`. Asserts nothing; leaves nothing behind.
 */
import { parseArgs } from "node:util";
import { createRuntime, runtimeNames } from "../lib/runtime/registry.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask, type Task } from "../lib/task/task.ts";
import { median } from "./pgs_runs.ts";

const { values } = parseArgs({ options: { n: { type: "string" } } });
const N = Number(values.n ?? 10);
const IMAGE = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";

const f0 = (x: number) => x.toFixed(0);
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const HEALTHCHECK =
  `["CMD", "python3", "-c", "import urllib.request;urllib.request.urlopen('http://localhost:8000/')"]`;
const COMPOSE = `services:
  main:
    depends_on:
      web:
        condition: service_healthy
  web:
    image: ${IMAGE}
    command: ["python3", "-m", "http.server", "8000"]
    healthcheck:
      test: ${HEALTHCHECK}
      interval: 1s
`;

/** A temp task folder on `IMAGE`; with `compose`, the two-service pod task. */
async function makeTask(compose: boolean): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "pgs-bench-pod-" });
  await Deno.mkdir(`${dir}/environment`, { recursive: true });
  await Deno.mkdir(`${dir}/tests`);
  await Deno.writeTextFile(`${dir}/task.toml`, `[environment]\ndocker_image = "${IMAGE}"\n`);
  await Deno.writeTextFile(`${dir}/instruction.md`, "Do nothing.\n");
  await Deno.writeTextFile(`${dir}/tests/test.sh`, "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n");
  if (compose) await Deno.writeTextFile(`${dir}/environment/docker-compose.yaml`, COMPOSE);
  return dir;
}

interface Figures {
  start: number[];
  remove: number[];
  services: number[];
}

/** `n` episodes of `task`, one at a time: start, then removal. */
async function episodes(task: Task, store: ImageStore, n: number): Promise<Figures> {
  const out: Figures = { start: [], remove: [], services: [] };
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const box = await Sandbox.start(task, store);
    const t1 = performance.now();
    await box.remove();
    out.start.push(t1 - t0);
    out.remove.push(performance.now() - t1);
    out.services.push(box.timings.services);
  }
  return out;
}

const line = (label: string, f: Figures) =>
  `    ${label.padEnd(10)} start p50 ${f0(median(f.start))} ms (p90 ${f0(p90(f.start))}) | remove p50 ${
    f0(median(f.remove))
  } ms (p90 ${f0(p90(f.remove))})`;

const dirs = [await makeTask(false), await makeTask(true)];
try {
  const [single, pod] = await Promise.all(dirs.map(loadTask));
  console.log(
    `pod start (Sandbox.start + remove, one at a time, ${N} each, image ${IMAGE}), load ${
      Deno.loadavg()[0].toFixed(1)
    }, ${navigator.hardwareConcurrency} cores:`,
  );
  for (const name of runtimeNames()) {
    const runtime = createRuntime(name);
    if (!await runtime.ping()) {
      console.log(`  ${name}: skipped, no engine answers at ${runtime.engine}`);
      continue;
    }
    const store = new ImageStore(runtime);
    try {
      await episodes(single, store, 1); // the images resolved and cached once, untimed
      await episodes(pod, store, 1);
      const a = await episodes(single, store, N);
      const b = await episodes(pod, store, N);
      console.log(`  ${name}:`);
      console.log(line("single box", a));
      console.log(line("pod of 2", b));
      console.log(
        `    pod extra start p50 ${f0(median(b.start) - median(a.start))} ms; timings.services mean ${
          f0(mean(b.services))
        } ms`,
      );
    } finally {
      await runtime.removeOwn();
    }
    console.log(`  ${name}: left behind ${runtime.tracked().length}`);
  }
} finally {
  for (const d of dirs) await Deno.remove(d, { recursive: true });
}
