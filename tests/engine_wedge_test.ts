/**
 * A Docker engine that stops answering mid-run: the test starts a dockerd of its own, runs `pgs eval` on it, freezes
 * it (`kill -STOP`) once an episode has finished, and checks that the run stops with one line naming the engine and
 * the stage, keeps the finished episode whole and exits non-zero; then, with the engine thawed, that the next run
 * sweeps the leftovers and resumes. Needs root and dockerd (CI has both); ignored outside CI without them. A long
 * fault run (the watchdog's probes take most of a minute), so it belongs to the soak tier (`deno task test:soak`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { readTrajectories } from "../lib/eval/records/trajectory.ts";
import { BASE_IMAGE, dockerAvailable, makeTask, removeTask, soakTest } from "./docker_helpers.ts";
import { spawnEval } from "./eval_helpers.ts";
import { TIER } from "./tier.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const inCI = Deno.env.get("CI") === "true";
const canStart = (() => {
  try {
    return Deno.uid() === 0 && new Deno.Command("dockerd", { args: ["--version"] }).outputSync().success;
  } catch {
    return false;
  }
})();
if (!canStart && !inCI && TIER === "soak") console.error("note: engine wedge test ignored: it needs root and dockerd");

async function sh(args: string[], env: Record<string, string> = {}): Promise<Deno.CommandOutput> {
  return await new Deno.Command(args[0], { args: args.slice(1), env, stdout: "piped", stderr: "piped" }).output();
}

soakTest(
  "engine wedge: a frozen dockerd stops the run cleanly, keeps what finished, and the next run resumes",
  async () => {
    const state = await Deno.makeTempDir({ prefix: "pgs_wedge_" });
    const host = `unix://${state}/docker.sock`;
    const dockerd = new Deno.Command("dockerd", {
      args: [
        "--bridge=none",
        "--iptables=false",
        "--ip6tables=false",
        "--data-root",
        join(state, "data"),
        "--exec-root",
        join(state, "exec"),
        "-H",
        host,
        "--pidfile",
        join(state, "docker.pid"),
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    const engine = new Docker(host);
    const dir = await makeTask({
      "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\n`,
      "environment/workdir/README": "x\n",
    });
    const out = join(state, "out");
    const turns = join(state, "turns.json");
    try {
      let up = false;
      for (let i = 0; i < 60 && !up; i++) {
        up = await engine.ping();
        if (!up) await new Promise((r) => setTimeout(r, 500));
      }
      assert.ok(up, "the test's dockerd did not start");
      const save = new Deno.Command("docker", { args: ["save", BASE_IMAGE], stdout: "piped" }).spawn();
      const load = await engine.call(["load", "-q"], { stdin: save.stdout, timeoutMs: 300_000 });
      assert.equal(load.code, 0, load.stderr);
      await save.status;

      // Each episode takes a few seconds in a tool call, so the freeze lands in the middle of one.
      const script = [
        { tool_calls: [{ name: "bash", arguments: { command: "sleep 4; echo done" } }] },
        { tool_calls: [{ name: "submit", arguments: {} }] },
      ];
      await Deno.writeTextFile(turns, JSON.stringify(script));
      const args = ["--tasks", dir, "--policy", `script:${turns}`, "-k", "6", "--max-concurrent", "1"];
      const child = spawnEval([...args, "--docker-host", host, "--out", out]);
      const stderr = new Response(child.stderr).text();
      const traj = join(out, "trajectories.jsonl");
      let finished = 0;
      for (let i = 0; i < 240 && finished === 0; i++) {
        await new Promise((r) => setTimeout(r, 500));
        finished = readTrajectories(traj).length;
      }
      assert.ok(finished >= 1, "no episode finished before the freeze");
      const pid = (await Deno.readTextFile(join(state, "docker.pid"))).trim();
      assert.equal((await sh(["kill", "-STOP", pid])).code, 0);
      const frozenAt = performance.now();
      let status: Deno.CommandStatus;
      try {
        // Bounded: the watchdog probes every 15 s and gives up after two 10 s probes; a hang fails the test here.
        const timer = new Promise<null>((r) => setTimeout(() => r(null), 180_000));
        const got = await Promise.race([child.status, timer]);
        if (!got) {
          child.kill("SIGKILL");
          assert.fail("pgs eval did not stop within 180 s of the freeze");
        }
        status = got;
      } finally {
        await sh(["kill", "-CONT", pid]);
      }
      const err = await stderr;
      console.log(`frozen engine: the run stopped ${((performance.now() - frozenAt) / 1000).toFixed(1)} s after it`);
      assert.equal(status.code, 1, err);
      const lines = err.trim().split("\n").filter((l) => l.startsWith("pgs:") && !l.startsWith("pgs: warning"));
      assert.equal(lines.length, 1, err);
      assert.match(
        lines[0],
        new RegExp(`the Docker engine at ${host.replaceAll("/", "\\/")} stopped answering during`),
      );
      assert.match(lines[0], /re-run to resume/);
      // What finished is whole and kept; nothing half-written.
      const kept = readTrajectories(traj);
      assert.ok(kept.length >= finished);
      for (const t of kept) assert.equal(t.exit_status, "stop_rule");
      const text = await Deno.readTextFile(traj);
      assert.ok(text.endsWith("\n"), "a torn last line");
      const summary = JSON.parse(await Deno.readTextFile(join(out, "summary.json")));
      assert.equal(summary.overall.episodes, kept.length);

      // Thawed: the next run sweeps what the stopped one left and finishes the rest.
      const again = spawnEval([...args, "--docker-host", host, "--out", out]);
      const againErr = new Response(again.stderr).text();
      assert.equal((await again.status).code, 0, await againErr);
      assert.equal(readTrajectories(traj).length, 6);
      const left = await engine.call(["ps", "-aq", "--filter", "label=pgs=1"]);
      assert.equal(new TextDecoder().decode(left.stdout).trim(), "", "containers were left behind");
    } finally {
      await sh(["kill", "-CONT", (await Deno.readTextFile(join(state, "docker.pid")).catch(() => "0")).trim()]);
      try {
        dockerd.kill("SIGTERM");
      } catch { /* gone */ }
      await dockerd.status;
      await removeTask(dir);
      await sh(["rm", "-rf", state]);
    }
  },
  { ignore: !inCI && (!canStart || !dockerAvailable) },
);
