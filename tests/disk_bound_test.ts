/**
 * Disk bounds (`storage_mb`) against real engines. On an engine that can bound a box (the btrfs one `.ci/run` starts
 * as PGS_DOCKER_HOST_2): an agent writing well past its bound gets EDQUOT/ENOSPC and its episode is still scored,
 * nothing is left and the engine's disk is back afterwards, and a bound below the image's own size is an
 * infrastructure error naming the task. On every runtime's default engine (overlay on ext4 here, which cannot bound a
 * box): the verifier's copy stops at the bound (`disk_limit`), and the run says once that the bound is not enforced.
 * Under CI the bounded engine must be there and must bound boxes: these tests fail instead of being skipped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { scriptPolicy } from "../lib/policies/policy.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import type { Turn } from "../lib/script/script.ts";
import { Docker } from "../lib/runtime/docker/mod.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { BASE_IMAGE, containersWith, engineTest, makeTask, removeTask } from "./docker_helpers.ts";
import { pgsEval } from "./eval_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { TIER } from "./tier.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const ANSWER_TEST = `#!/bin/bash
if [ "$(cat /workdir/answer.txt 2>/dev/null)" = 42 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;
const bash = (command: string, timeout?: number): Turn => ({
  tool_calls: [{ name: "bash", arguments: timeout ? { command, timeout } : { command } }],
});
const SUBMIT: Turn = { tool_calls: [{ name: "submit", arguments: {} }] };
const ANSWER = bash("echo 42 > /workdir/answer.txt");

/** A task in pgs's own layout (isolated verifier) scoring answer.txt, with `storage_mb` when given. */
function answerTask(storageMb?: number, extra: Record<string, string> = {}): Promise<string> {
  const storage = storageMb === undefined ? "" : `storage_mb = ${storageMb}\n`;
  return makeTask({
    "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\nmemory_mb = 512\n${storage}`,
    "tests/test.sh": ANSWER_TEST,
    "environment/workdir/README": "the working directory\n",
    ...extra,
  });
}

/** One episode of `dir` under `turns` on `runtime`. */
async function run(runtime: Runtime, dir: string, turns: Turn[]): Promise<Trajectory> {
  const [[t]] = await runEpisodes(scriptPolicy(turns, "script:disk"), [{ task_dir: dir }], {}, {
    k: 1,
    maxConcurrent: 1,
    hosts: [{ runtime }],
  });
  return t;
}

const inCI = Deno.env.get("CI") === "true";
const boundedHost = Deno.env.get("PGS_DOCKER_HOST_2");
/** Why the bounded engine's tests cannot run here (undefined: they run); probed once, in the `ci` tier only. */
const boundedAbsent = TIER !== "ci"
  ? "not the ci tier"
  : !boundedHost
  ? "PGS_DOCKER_HOST_2 is not set (.ci/run starts a btrfs engine there)"
  : !await new Docker(boundedHost).ping()
  ? `no engine answers at ${boundedHost}`
  : await new Docker(boundedHost).diskBoundProblem();
if (boundedAbsent && !inCI && TIER === "ci") console.error(`note: bounded-disk tests ignored: ${boundedAbsent}`);

/** The engine that bounds boxes; fails the test (under CI) when there is none. */
async function boundedEngine(): Promise<Docker> {
  assert.ok(boundedHost, "CI needs PGS_DOCKER_HOST_2: an engine that can bound a box's disk (btrfs, see .ci/run)");
  const d = new Docker(boundedHost);
  assert.equal(await d.diskBoundProblem(), undefined, `the engine at ${boundedHost} must bound a box's disk`);
  return d;
}

/** Bytes used on the filesystem holding `docker`'s data root (the engine is on this machine). */
async function usedBytes(d: Docker): Promise<number> {
  const root = new TextDecoder().decode((await d.call(["info", "--format", "{{.DockerRootDir}}"])).stdout).trim();
  await new Deno.Command("sync", { args: ["-f", root] }).output();
  const out = await new Deno.Command("df", { args: ["-B1", "--output=used", root], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(out.stdout).trim().split("\n").pop());
}

/** Waits (up to 60 s: btrfs frees a removed subvolume in the background) for the used bytes to fall to `limit`. */
async function usedFallsTo(d: Docker, limit: number): Promise<number> {
  const until = Date.now() + 60_000;
  for (;;) {
    const used = await usedBytes(d);
    if (used <= limit || Date.now() > until) return used;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const MB = 1024 * 1024;

engineTest({
  name:
    "disk bound [bounded engine]: 3 GB under storage_mb = 1024 fails with EDQUOT, the episode is scored, the disk is back",
  ignore: !inCI && boundedAbsent !== undefined,
  async fn() {
    const d = await boundedEngine();
    const dir = await answerTask(1024);
    try {
      const before = await usedBytes(d);
      // The agent fills its box (what dd says past the bound cannot be kept: the channel's output file is on that
      // disk), then sees what its next command says (the channel's output falls back to a tmpfs while the box's own
      // disk takes no new file), frees the room and answers: scored as usual.
      const t = await run(d, dir, [
        bash("dd if=/dev/zero of=/workdir/big bs=1M count=3000", 600),
        bash("echo still here; s=$(stat -c %s /workdir/big); rm -f /workdir/big; echo size=$s"),
        ANSWER,
        SUBMIT,
      ]);
      const [dd, next] = t.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
      assert.match(dd, /^\[exit code 1\]/, dd);
      assert.match(next, /^\[exit code 0\]\nstill here\n/, next);
      const written = Number(next.match(/size=(\d+)/)?.[1]);
      assert.ok(written > 0 && written <= 1024 * MB, `the box held ${written} bytes of the file`);
      assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 1], t.error);
      assert.equal(t.metrics["metric/disk_limit"], undefined);
      // Left full, the box ends disk_limit: its working directory is not copied into a second bounded box.
      const full = await run(d, dir, [bash("dd if=/dev/zero of=/workdir/big bs=1M count=3000", 600), ANSWER, SUBMIT]);
      assert.equal(full.exit_status, "stop_rule", full.error);
      assert.equal(full.reward, 0, full.error);
      assert.equal(full.metrics["metric/disk_limit"], 1);
      assert.match(full.error ?? "", /at its disk bound \(storage_mb = 1024\)/);
      for (const x of [t, full]) assert.deepEqual(await containersOf(d, x.task), []);
      const after = await usedFallsTo(d, before + 64 * MB);
      assert.ok(after <= before + 64 * MB, `the engine's disk grew by ${((after - before) / MB).toFixed(0)} MB`);
    } finally {
      await removeTask(dir);
    }
  },
});

engineTest({
  name: "disk bound [bounded engine]: storage_mb below the image's own size is an infrastructure error naming the task",
  ignore: !inCI && boundedAbsent !== undefined,
  async fn() {
    const d = await boundedEngine();
    const dir = await answerTask(64);
    try {
      const t = await run(d, dir, [ANSWER, SUBMIT]);
      assert.equal(t.exit_status, "infra_error");
      assert.equal(t.reward, null);
      assert.match(t.error ?? "", /^start: pgs-test\/\S+: storage_mb = 64 is below what the image \S+ itself takes/);
      assert.deepEqual(await containersWith(d, "pgs=1", `pgs.task=${t.task}`), []);
    } finally {
      await removeTask(dir);
    }
  },
});

runtimeTest(
  "disk bound: the verifier's copy stops at storage_mb (disk_limit), through the pipe and the copy",
  async (rt) => {
    // This engine does not bound the agent's box (overlay on ext4): only the copy's cap stands between the two.
    assert.ok(await rt.diskBoundProblem(), `the default ${rt.kind} engine here bounds boxes: use one that cannot`);
    // 8 MB is read into memory for the verifier's pipe; 100 MB goes the copy's way (past the pipe's 16 MiB).
    for (const [mb, write] of [[8, 12], [100, 150]]) {
      const dir = await answerTask(mb);
      try {
        const t = await run(rt, dir, [bash(`head -c ${write}M /dev/zero > /workdir/fill`), ANSWER, SUBMIT]);
        assert.equal(t.exit_status, "stop_rule", t.error);
        assert.equal(t.reward, 0, `${mb} MB: ${JSON.stringify(t.metrics)}`);
        assert.equal(t.metrics["metric/disk_limit"] ?? t.metrics.disk_limit, 1, JSON.stringify(t.metrics));
        assert.match(t.error ?? "", new RegExp(`exceeded storage_mb = ${mb}`), t.error);
        assert.deepEqual(await containersOf(rt, t.task), []);
      } finally {
        await removeTask(dir);
      }
    }
    // Within the bound, the same task scores as usual.
    const dir = await answerTask(100);
    try {
      const t = await run(rt, dir, [bash("head -c 10M /dev/zero > /workdir/fill"), ANSWER, SUBMIT]);
      assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 1], t.error);
    } finally {
      await removeTask(dir);
    }
  },
);

runtimeTest(
  "disk bound: an engine that cannot bound a box says so once per run, naming it and its driver",
  async (rt) => {
    const problem = await rt.diskBoundProblem();
    assert.ok(problem, `the default ${rt.kind} engine here bounds boxes: use one that cannot`);
    const dir = await answerTask(undefined, { "solution/solve.sh": "#!/bin/bash\necho 42 > /workdir/answer.txt\n" });
    const out = await Deno.makeTempDir({ prefix: "pgs_disk_once_" });
    try {
      const base = ["--tasks", dir, "--policy", "oracle", "-k", "2", "--runtime", rt.kind];
      const r = await pgsEval([...base, "--out", join(out, "a")]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stderr.split("\n").filter((l) => l.includes("cannot bound a box's disk"));
      assert.equal(lines.length, 1, r.stderr);
      assert.match(
        lines[0],
        new RegExp(`^pgs: warning: ${rt.kind} engine \\S.* \\(storage driver \\S+ on \\S+\\) cannot`),
      );
      assert.match(lines[0], /storage_mb is not enforced in this run/);
      // No bound asked for, nothing to say.
      const none = await pgsEval([...base, "--storage-mb", "0", "--out", join(out, "b")]);
      assert.equal(none.code, 0, none.stderr);
      assert.doesNotMatch(none.stderr, /cannot bound a box's disk/);
    } finally {
      await removeTask(dir);
      await Deno.remove(out, { recursive: true });
    }
  },
);

/** Boxes of task `task` on `rt`'s engine (podman's runtime is Docker's driver with podman's CLI). */
function containersOf(rt: Runtime, task: string): Promise<string[]> {
  return containersWith(rt as Docker, "pgs=1", `pgs.task=${task}`);
}
