/**
 * `deno task bench`: figures for the container runtime, as medians over repeated runs and as ratios to the raw docker
 * CLI doing the same steps. Prints; asserts nothing.
 */
import { ExecChannel } from "../lib/runtime/channel.ts";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { verify } from "../lib/verify/verifier.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";

const docker = new Docker();
const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const N_EXEC = Number(Deno.env.get("BENCH_EXEC") ?? 300);
const N_EPISODES = Number(Deno.env.get("BENCH_EPISODES") ?? 8);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function makeTask(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "pgs-bench-" });
  await Deno.mkdir(`${dir}/environment/workdir`, { recursive: true });
  await Deno.mkdir(`${dir}/tests`);
  await Deno.writeTextFile(`${dir}/task.toml`, `[environment]\ndocker_image = "${image}"\n`);
  await Deno.writeTextFile(`${dir}/instruction.md`, "Write ok into /workdir/out.txt.\n");
  await Deno.writeTextFile(`${dir}/environment/workdir/notes.txt`, "hello\n".repeat(100));
  await Deno.writeTextFile(`${dir}/tests/test.sh`, "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n");
  return dir;
}

if (!await docker.ping()) {
  console.error("bench: no Docker engine answers (start dockerd or set DOCKER_HOST)");
  Deno.exit(1);
}
const taskDir = await makeTask();
const task = await loadTask(taskDir);
const store = new ImageStore(docker);
console.log(
  `pgs bench: ${N_EXEC} execs, ${N_EPISODES} episodes, image ${image}, ${navigator.hardwareConcurrency} cores\n`,
);

// 1. Exec latency: the channel vs one `docker exec` per call.
{
  const box = await Sandbox.start(task, store);
  try {
    const ch = box.channel;
    for (let i = 0; i < 20; i++) await ch.exec("true", { shell: "sh" });
    const rows: [string, number[]][] = [];
    for (
      const [label, script, shell] of [
        ["sh: cat a file", "cat notes.txt", "sh"],
        ["sh: echo", "echo hi", "sh"],
        ["bash -l: echo", "echo hi", "bash"],
      ] as const
    ) {
      const xs: number[] = [];
      for (let i = 0; i < N_EXEC; i++) xs.push((await box.exec(script, { shell })).durationMs);
      rows.push([label, xs]);
    }
    // The same echo on the image's own setsid and head (what images of other architectures get).
    const plain = await Sandbox.start(task, store, { noHelper: true });
    try {
      for (let i = 0; i < 20; i++) await plain.exec("true", { shell: "sh" });
      const xs: number[] = [];
      for (let i = 0; i < N_EXEC; i++) xs.push((await plain.exec("echo hi", { shell: "sh" })).durationMs);
      rows.push(["sh: echo, no helper", xs]);
    } finally {
      await plain.remove();
    }
    const raw: number[] = [];
    for (let i = 0; i < Math.min(50, N_EXEC); i++) {
      raw.push(await timed(() => docker.call(["exec", "-w", "/workdir", box.id, "/bin/sh", "-c", "cat notes.txt"])));
    }
    const fb = new ExecChannel(docker.box(box.id), { workdir: "/workdir", forceFallback: true });
    console.log(
      `exec latency (helper ${
        ch.helperRunning ? "running" : "not running"
      })  p50        p99    vs raw docker exec (p50)`,
    );
    for (const [label, xs] of rows) {
      console.log(
        `  channel ${label.padEnd(22)} ${ms(pct(xs, 0.5)).padStart(9)} ${ms(pct(xs, 0.99)).padStart(10)}    ${
          (pct(raw, 0.5) / pct(xs, 0.5)).toFixed(1)
        }x faster`,
      );
    }
    console.log(`  raw docker exec (sh -c cat)  ${ms(pct(raw, 0.5)).padStart(9)} ${ms(pct(raw, 0.99)).padStart(10)}`);
    const fbx: number[] = [];
    for (let i = 0; i < 20; i++) fbx.push((await fb.exec("cat notes.txt", { shell: "sh" })).durationMs);
    console.log(`  fallback (docker exec/call)  ${ms(pct(fbx, 0.5)).padStart(9)} ${ms(pct(fbx, 0.99)).padStart(10)}`);
  } finally {
    await box.remove();
  }
}

// 2. Episode fixed cost: start, verify, remove; and the raw CLI doing the same steps.
{
  const start: number[] = [], ver: number[] = [], rm: number[] = [], total: number[] = [];
  const run: number[] = [], stage: number[] = [];
  for (let i = 0; i < N_EPISODES; i++) {
    const t0 = performance.now();
    const box = await Sandbox.start(task, store);
    const t1 = performance.now();
    run.push(box.timings.run), stage.push(box.timings.stage);
    const v = await verify(box, "");
    if (v.reward !== 1) throw new Error(`bench: verifier gave ${v.reward}: ${v.error}`);
    const t2 = performance.now();
    await box.remove();
    const t3 = performance.now();
    start.push(t1 - t0), ver.push(t2 - t1), rm.push(t3 - t2), total.push(t3 - t0);
  }
  const rawStart: number[] = [], rawVerify: number[] = [];
  for (let i = 0; i < Math.min(N_EPISODES, 5); i++) {
    let id = "";
    rawStart.push(
      await timed(async () => {
        id = (await docker.ok(
          ["run", "-d", "--init", "--network", "none", "-w", "/workdir", image, "sleep", "infinity"],
          "b",
        ))
          .trim();
        await docker.ok(["cp", `${taskDir}/environment/workdir/.`, `${id}:/workdir`], "b");
        await docker.ok(["exec", id, "true"], "b");
      }),
    );
    rawVerify.push(
      await timed(async () => {
        const vid = (await docker.ok([
          "create",
          "--init",
          "--network",
          "none",
          image,
          "sh",
          "-c",
          "mkdir -p /logs/verifier && sh /tests/test.sh",
        ], "b"))
          .trim();
        await docker.ok(["cp", `${taskDir}/tests`, `${vid}:/tests`], "b");
        const out = docker.spawn(["cp", `${id}:/workdir`, "-"]);
        await docker.call(["cp", "-", `${vid}:/`], { stdin: out.stdout });
        await out.status;
        await docker.ok(["start", "-a", vid], "b");
        await docker.ok(["rm", "-f", vid], "b");
      }),
    );
    await docker.call(["rm", "-f", id]);
  }
  const med = (xs: number[]) => pct(xs, 0.5);
  console.log("\nepisode fixed cost (median)        pgs      raw docker CLI, same steps");
  console.log(`  start (run, stage, ids)    ${ms(med(start)).padStart(9)}   ${ms(med(rawStart)).padStart(9)}`);
  console.log(`  verify (clean container)   ${ms(med(ver)).padStart(9)}   ${ms(med(rawVerify)).padStart(9)}`);
  console.log(`    of which docker run      ${ms(med(run)).padStart(9)}`);
  console.log(`    of which staging files   ${ms(med(stage)).padStart(9)}`);
  console.log(`  remove                     ${ms(med(rm)).padStart(9)}`);
  console.log(`  start + verify (latency)   ${ms(med(start.map((x, i) => x + ver[i]))).padStart(9)}`);
  console.log(`  total per episode          ${ms(med(total)).padStart(9)}   (goal <= 1000 ms)`);
}

// 3. Verify cost per verifier mode, the same task and episode.
{
  console.log("\nverify per verifier mode (median)      verify  start+verify");
  for (const mode of ["isolated", "shared", "snapshot"] as const) {
    const ver: number[] = [], both: number[] = [];
    for (let i = 0; i < N_EPISODES; i++) {
      const t0 = performance.now();
      const { box, verifier } = await startBoxes(task, store, { verifierMode: mode });
      const t1 = performance.now();
      const v = await verify(box, "", { verifier });
      if (v.reward !== 1) throw new Error(`bench: ${mode} verifier gave ${v.reward}: ${v.error}`);
      const t2 = performance.now();
      await box.remove();
      ver.push(t2 - t1), both.push(t2 - t0);
    }
    console.log(`  ${mode.padEnd(32)} ${ms(pct(ver, 0.5)).padStart(9)} ${ms(pct(both, 0.5)).padStart(10)}`);
  }
}
await Deno.remove(taskDir, { recursive: true });
