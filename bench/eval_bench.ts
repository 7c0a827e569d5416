/**
 * `deno task bench` (eval part): episodes per minute of the runner with a scripted policy at 1, 8 and 64 episodes
 * alive at once, the runner's peak RSS at 64, and the runner's per-episode overhead against the raw docker floor
 * (the same container steps issued directly with the docker CLI, one after another). Prints; asserts nothing.
 */
import { Docker } from "../lib/runtime/docker/mod.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { type Policy, scriptPolicy } from "../lib/policies/policy.ts";
import { makeBenchTask } from "./bench_task.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import { registerBuiltins } from "../profiles/mod.ts";

// The profiles are registered by main.ts in the CLI; a bench that runs episodes registers them itself.
registerBuiltins();

const docker = new Docker();
const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const LEVELS = (Deno.env.get("BENCH_CONCURRENCY") ?? "1,8,64").split(",").map(Number);
const PER_SLOT = Number(Deno.env.get("BENCH_EPISODES_PER_SLOT") ?? 2);

if (!await docker.ping()) {
  console.error("bench: no Docker engine answers (start dockerd or set DOCKER_HOST)");
  Deno.exit(1);
}

const dir = await makeBenchTask(image, "hello\n".repeat(100), "pgs-eval-bench-");

// pi's dialect: one shell call, then a reply (the stop rule).
const policy = scriptPolicy([
  { tool_calls: [{ name: "bash", arguments: { command: "echo ok > out.txt && cat notes.txt | wc -l" } }] },
  { content: "Done: out.txt written." },
]);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let single = 0;
console.log("eval runner, scripted policy (pi, 2 turns: one bash call, one reply), verifier in a clean container:");
for (const c of LEVELS) {
  const n = Math.max(4, c * PER_SLOT);
  const rows = Array.from({ length: n }, (_, i) => ({ task_dir: dir, max_turns: 4 + (i % 1) }));
  let peak = Deno.memoryUsage().rss;
  const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 100);
  const t0 = performance.now();
  const groups = await runEpisodes(
    policy,
    rows.map((r, i) => ({ ...r, messages: [{ role: "user", content: `#${i}` }] })),
    {
      profile: "pi",
    },
    { k: 1, maxConcurrent: c, maxStarting: Math.min(c, 8) },
  );
  const secs = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const ts: Trajectory[] = groups.flat();
  const ok = ts.filter((t) => t.reward === 1).length;
  const errors = ts.filter((t) => t.reward === null).length;
  const ep = median(ts.map((t) => t.timings.total_ms));
  if (c === 1) single = ep;
  console.log(
    `  ${String(c).padStart(2)} at once: ${n} episodes in ${secs.toFixed(1)} s = ${
      (n / secs * 60).toFixed(0)
    } episodes/min` +
      `  (median episode ${ep} ms: start ${median(ts.map((t) => t.timings.start_ms))}, verify ${
        median(ts.map((t) => t.timings.verify_ms))
      }; ${ok}/${n} rewarded, ${errors} infra errors)  peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`,
  );
}

// The working-directory diff (pgs eval records it unless --no-diff): the same episodes without and with it, in
// alternating rounds (the machine's load drifts). Its start copy runs while the policy answers the first turn (a
// scripted policy answers at once: the worst case), its end copy and the diff while the verifier runs.
if (Deno.env.get("BENCH_DIFF") !== "0") {
  console.log("workdir diff (a docker cp of the working directory at the start and at the end, then the diff):");
  // A model's latency hides the start copy: the same script, each turn answered after 500 ms.
  const slow: Policy = {
    name: "script, 500 ms a turn",
    turn: async (req) => (await new Promise((r) => setTimeout(r, 500)), await policy.turn(req)),
  };
  for (const [c, p] of [[1, policy], [8, policy], [1, slow]] as const) {
    const n = Math.max(6, c * PER_SLOT);
    const totals: Record<string, number[]> = { off: [], on: [] };
    const secs: Record<string, number> = { off: 0, on: 0 };
    let shown = 0;
    for (let round = 0; round < 2; round++) {
      for (const workdirDiff of [false, true]) {
        const rows = Array.from({ length: n }, (_, i) => ({
          task_dir: dir,
          messages: [{ role: "user" as const, content: `diff ${round} #${i}` }],
        }));
        const t0 = performance.now();
        const ts = (await runEpisodes(p, rows, { profile: "pi" }, {
          k: 1,
          maxConcurrent: c,
          maxStarting: Math.min(c, 8),
          workdirDiff,
        })).flat();
        const mode = workdirDiff ? "on" : "off";
        secs[mode] += (performance.now() - t0) / 1000;
        totals[mode].push(...ts.map((t) => t.timings.total_ms));
        if (workdirDiff) shown += ts.filter((t) => t.workdir_diff?.files.some((f) => f.path === "out.txt")).length;
      }
    }
    const [off, on] = [median(totals.off), median(totals.on)];
    const rate = (m: string) => (2 * n / secs[m] * 60).toFixed(0);
    console.log(
      `  ${
        p === slow ? "500 ms a turn, " : ""
      }${c} at once, 2×${n} episodes each: median episode ${off} ms without, ${on} ms with ` +
        `(${on - off >= 0 ? "+" : ""}${on - off} ms); ${rate("off")} vs ${rate("on")} episodes/min; ` +
        `${shown}/${2 * n} diffs show out.txt`,
    );
  }
}

// The floor: the same container work with the raw docker CLI, sequentially.
async function sh(args: string[], stdin?: string): Promise<string> {
  const p = new Deno.Command("docker", { args, stdin: stdin ? "piped" : "null", stdout: "piped", stderr: "piped" })
    .spawn();
  if (stdin) {
    const w = p.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await p.output();
  if (out.code !== 0) throw new Error(`docker ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).trim();
}
async function rawEpisode(): Promise<number> {
  const t = performance.now();
  const id = await sh([
    "run",
    "-d",
    "--init",
    "--network",
    "none",
    "--label",
    "pgs-bench=1",
    image,
    "sleep",
    "infinity",
  ]);
  await sh(["exec", id, "sh", "-c", "mkdir -p /workdir && echo ok > /workdir/out.txt && wc -l /etc/passwd"]);
  const tar = await new Deno.Command("docker", {
    args: ["exec", id, "tar", "-C", "/workdir", "-cf", "-", "."],
    stdout: "piped",
  }).output();
  const v = await sh([
    "create",
    "-i",
    "--network",
    "none",
    "--label",
    "pgs-bench=1",
    image,
    "sh",
    "-c",
    "mkdir -p /workdir && tar -C /workdir -xf - && cat /workdir/out.txt",
  ]);
  const p = new Deno.Command("docker", {
    args: ["start", "-a", "-i", v],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const w = p.stdin.getWriter();
  await w.write(tar.stdout);
  await w.close();
  await p.output();
  await sh(["rm", "-f", id, v]);
  return performance.now() - t;
}
const floors: number[] = [];
for (let i = 0; i < 5; i++) floors.push(await rawEpisode());
const floor = median(floors);
console.log(
  `  raw docker floor (run, exec, copy the workdir into a fresh verifier container, run it, rm): ${
    floor.toFixed(0)
  } ms` +
    (single ? `; runner overhead per episode at 1 at once: ${(single - floor).toFixed(0)} ms` : ""),
);
// The same raw steps, 8 at a time: what the engine itself sustains on this machine.
{
  const n = 16;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next++ < n) await rawEpisode();
  }));
  const secs = (performance.now() - t0) / 1000;
  console.log(`  raw docker, 8 at once: ${n} in ${secs.toFixed(1)} s = ${(n / secs * 60).toFixed(0)} episodes/min`);
}
await Deno.remove(dir, { recursive: true });
