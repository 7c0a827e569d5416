/**
 * `deno task bench:rss`: the peak resident memory (VmHWM) of one `pgs eval` process whose one episode leaves N empty
 * files in the working directory (its diff recorded, isolated verifier, pi's bash tool), for N in RSS_N (default
 * 0,200000,1000000; RSS_ARGS adds flags). Prints the figures; asserts nothing but the episode's reward; leaves nothing
 * behind.
 */
import { makeBenchTask } from "./bench_task.ts";
import { docker } from "./naive_loop.ts";

const image = Deno.env.get("PGS_BASE_IMAGE") ?? "pgs-base:1";
const COUNTS = (Deno.env.get("RSS_N") ?? "0,200000,1000000").split(",").map(Number);
/** More `pgs eval` flags (RSS_ARGS, split on spaces), e.g. `--no-diff` to see the copies alone. */
const EXTRA = (Deno.env.get("RSS_ARGS") ?? "").split(" ").filter(Boolean);
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const mb = (kb: number) => (kb / 1024).toFixed(0);

/** VmHWM of process `pid` in kB, or undefined once it is gone. */
async function peakKb(pid: number): Promise<number | undefined> {
  try {
    const s = await Deno.readTextFile(`/proc/${pid}/status`);
    const m = s.match(/^VmHWM:\s+(\d+) kB/m);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** One `pgs eval` process of the task under `turnsFile`: its peak RSS in kB (read until it exits) and the record. */
async function measured(dir: string, turnsFile: string, out: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "eval",
      "--tasks",
      dir,
      "--policy",
      `script:${turnsFile}`,
      "--profile",
      "pi",
      "--out",
      out,
      ...EXTRA,
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let peak = 0, running = true;
  const status = child.status.finally(() => running = false);
  // VmHWM only grows: the last reading before the process ends is its peak, to within one interval's growth.
  while (running) {
    peak = Math.max(peak, (await peakKb(child.pid)) ?? 0);
    await Promise.race([status, new Promise((ok) => setTimeout(ok, 50))]);
  }
  const s = await status;
  if (!s.success) throw new Error(`bench: pgs eval failed: ${await stderr}`);
  const traj = JSON.parse((await Deno.readTextFile(`${out}/trajectories.jsonl`)).trim());
  return { peak, traj, pid: child.pid };
}

const dir = await makeBenchTask(image, "notes\n", "pgs-rss-");
await Deno.writeTextFile(`${dir}/task.toml`, `\n[agent]\ntimeout_sec = 1800\n`, { append: true });
const tmp = await Deno.makeTempDir({ prefix: "pgs-rss-" });
const pids: number[] = [];
try {
  console.log(`peak RSS of one pgs eval process (VmHWM), N empty files left in the working directory:`);
  // A first run makes what every later run reuses (the work image, Deno's caches): measured, not reported.
  for (const n of [-1, ...COUNTS]) {
    // xargs cuts the names into command lines of its own size; `touch` makes each chunk's files.
    const make = n > 0 ? `mkdir -p d && seq 1 ${n} | (cd d && xargs touch) && ` : "";
    const turns = [
      { tool_calls: [{ name: "bash", arguments: { command: `${make}echo ok > out.txt && ls | wc -l` } }] },
      { content: "Done." },
    ];
    const turnsFile = `${tmp}/turns-${n}.json`;
    await Deno.writeTextFile(turnsFile, JSON.stringify(turns));
    const t = performance.now();
    const { peak, traj, pid } = await measured(dir, turnsFile, `${tmp}/out-${n}`);
    pids.push(pid);
    await Deno.remove(`${tmp}/out-${n}`, { recursive: true });
    if (traj.reward !== 1) throw new Error(`bench: the episode at N=${n} scored ${traj.reward}: ${traj.exit_status}`);
    if (n < 0) continue;
    const s = ((performance.now() - t) / 1000).toFixed(0);
    const d = traj.workdir_diff ?? {};
    const diff = `${d.files?.length ?? 0} files listed${d.cut ? `, cut (${JSON.stringify(d.cut)})` : ""}`;
    const note = d.note ? `; ${d.note}` : "";
    console.log(`  N=${String(n).padStart(7)}: peak ${mb(peak).padStart(4)} MB | ${s} s | diff: ${diff}${note}`);
  }
} finally {
  // pgs removes its own boxes; any it left (labelled with its pid) are removed here and counted.
  let left = 0;
  for (const pid of pids) {
    const ids = (await docker(["ps", "-aq", "--filter", `label=pgs.pid=${pid}`]).catch(() => "")).split("\n");
    for (const id of ids.filter(Boolean)) left++, await docker(["rm", "-f", "-v", id]).catch(() => {});
  }
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(tmp, { recursive: true });
  console.log(`boxes left behind by the pgs processes: ${left} (removed now)`);
}
