/**
 * `deno task bench:soak`: 3 rounds of 256 episodes at 64 alive and 8 starting at once on one engine (Debian's dockerd
 * 20.10 here), a scripted policy under pi's dialect. It is the load that once deadlocked dockerd in its network
 * controller (moby/moby#46661) under concurrent starts and removals; pgs removes containers one at a time per engine
 * and bounds every call, so a wedge would end the round with an EngineDownError instead of a hang. Prints per round:
 * wall time, episodes per minute, rewards, infrastructure errors, the runner's peak RSS, and whether the engine
 * wedged. Asserts nothing: figures, not a timed test. ROUNDS, EPISODES, CONCURRENT, STARTING override the load.
 */
import { Docker } from "../lib/runtime/docker/mod.ts";
import { EngineDownError } from "../lib/base/errors.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { scriptPolicy } from "../lib/policies/policy.ts";
import { makeBenchTask } from "./bench_task.ts";

const num = (k: string, d: number) => Number(Deno.env.get(k) ?? d);
const ROUNDS = num("ROUNDS", 3), EPISODES = num("EPISODES", 256);
const CONCURRENT = num("CONCURRENT", 64), STARTING = num("STARTING", 8);
const docker = new Docker();
if (!await docker.ping()) {
  console.error("bench:soak: no Docker engine answers (start dockerd or set DOCKER_HOST)");
  Deno.exit(1);
}
const version = new TextDecoder().decode((await docker.call(["version", "--format", "{{.Server.Version}}"])).stdout);

const dir = await makeBenchTask("pgs-base:1", "hello\n", "pgs-soak-");
const policy = scriptPolicy([
  { tool_calls: [{ name: "bash", arguments: { command: "echo ok > out.txt" } }] },
  { content: "Done." },
]);
const hwm = () => Number(Deno.readTextFileSync("/proc/self/status").match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024;

console.log(
  `soak: ${ROUNDS} x ${EPISODES} episodes, ${CONCURRENT} alive, ${STARTING} starting, dockerd ${version.trim()}`,
);
let wedged = false;
for (let round = 1; round <= ROUNDS && !wedged; round++) {
  const t0 = performance.now();
  const rows = Array.from({ length: EPISODES }, () => ({ task_dir: dir }));
  try {
    const groups = await runEpisodes(policy, rows, { profile: "pi" }, {
      maxConcurrent: CONCURRENT,
      maxStarting: STARTING,
    });
    const ts = groups.flat();
    const s = (performance.now() - t0) / 1000;
    const infra = ts.filter((t) => t.reward === null).length;
    const passes = ts.filter((t) => t.reward === 1).length;
    console.log(
      `  round ${round}: ${ts.length} episodes in ${s.toFixed(1)} s (${(ts.length / s * 60).toFixed(0)}/min), ` +
        `${passes} rewards of 1, ${infra} infra errors, peak RSS ${hwm().toFixed(0)} MiB, no wedge`,
    );
  } catch (e) {
    if (!(e instanceof EngineDownError)) throw e;
    wedged = true;
    console.log(`  round ${round}: WEDGED after ${((performance.now() - t0) / 1000).toFixed(1)} s: ${e.message}`);
  }
}
await Deno.remove(dir, { recursive: true });
if (wedged) Deno.exit(1);
