/**
 * The `Runtime` contract (lib/runtime/runtime.ts), one suite run against every registered runtime whose engine
 * answers here (`runtime_helpers.ts`): images, a box started with limits, env, user and working directory, execs
 * and long-lived processes, tar copies in and out, state and restart, snapshot, removal, the sweep of orphans and the
 * health ping. The verifier modes on every runtime: runtime_verifiers_test.ts; `ExecEnv` on it: exec_env_test.ts.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { readTar } from "../lib/base/tar_read.ts";
import { tarArchive } from "../lib/base/tar.ts";
import { text } from "../lib/runtime/channel.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import type { Box, BoxSpec, Runtime } from "../lib/runtime/runtime.ts";
import { BASE_IMAGE, uniqueName, waitFor } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";

const enc = new TextEncoder();

/** An idle box of the base image: half a CPU, 256 MB, 64 processes, no network. */
function spec(over: Partial<BoxSpec> = {}): BoxSpec {
  return {
    image: BASE_IMAGE,
    limits: { cpus: 0.5, memoryMb: 256, pidsLimit: 64 },
    role: "test",
    task: uniqueName("contract"),
    workdir: "/",
    command: ["sh", "-c", "sleep infinity"],
    ...over,
  };
}

/** Starts a box, runs `fn` on it and removes it whatever happened. */
async function withBox(runtime: Runtime, over: Partial<BoxSpec>, fn: (box: Box) => Promise<void>): Promise<void> {
  const box = await runtime.start(spec(over));
  try {
    await fn(box);
  } finally {
    await box.remove();
  }
}

/** Runs `script` with /bin/sh in `box`; its stdout, failing the test on a non-zero exit. */
async function sh(box: Box, script: string, user?: string): Promise<string> {
  const r = await box.exec(["/bin/sh", "-c", script], { user });
  assert.equal(r.code, 0, `${script}: ${r.stderr}`);
  return text(r.stdout);
}

runtimeTest("ping answers; an engine that is not there does not (and the call returns)", async (runtime) => {
  assert.equal(await runtime.ping(), true);
  const nowhere = createRuntime(runtime.kind, { host: "unix:///nonexistent/pgs-contract.sock" });
  assert.equal(await nowhere.ping(), false);
  assert.equal(nowhere.host, "unix:///nonexistent/pgs-contract.sock");
});

runtimeTest("images: inspect tells id, arch, user, workdir and volumes; an unknown image is undefined", async (rt) => {
  const facts = await rt.inspectImage(BASE_IMAGE);
  assert.ok(facts, "the base image is there");
  assert.ok(facts.id.length > 0 && facts.arch.length > 0, JSON.stringify(facts));
  assert.equal(typeof facts.user, "string");
  assert.equal(typeof facts.workdir, "string");
  assert.ok(Array.isArray(facts.volumes));
  assert.equal(await rt.inspectImage(`pgs-contract-missing:${crypto.randomUUID().slice(0, 8)}`), undefined);
});

runtimeTest("images: a build is bounded and leaves its image; a failed build says why", async (rt) => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_contract_build_" });
  const tag = `pgs-contract:${crypto.randomUUID().slice(0, 12)}`;
  try {
    await Deno.writeTextFile(
      path.join(dir, "Dockerfile"),
      `FROM ${BASE_IMAGE}\nRUN echo built > /built.txt\nUSER 1234\nWORKDIR /srv/w\nVOLUME /data\n`,
    );
    assert.deepEqual(await rt.buildImage(dir, tag, 120_000), { ok: true });
    const facts = await rt.inspectImage(tag);
    assert.deepEqual([facts?.user, facts?.workdir, facts?.volumes], ["1234", "/srv/w", ["/data"]]);
    await withBox(rt, { image: tag }, async (box) => assert.equal(await sh(box, "cat /built.txt"), "built\n"));
    await Deno.writeTextFile(path.join(dir, "Dockerfile"), `FROM ${BASE_IMAGE}\nRUN echo pgs-broke >&2; exit 3\n`);
    const bad = await rt.buildImage(dir, `${tag}-bad`, 120_000);
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.timedOut, false);
    assert.equal(await rt.inspectImage(`${tag}-bad`), undefined);
  } finally {
    await rt.removeImage(tag);
    await Deno.remove(dir, { recursive: true });
  }
});

runtimeTest("images: commitArchive bakes a tar into a new image with its owners and modes", async (rt) => {
  const tag = `pgs-contract-baked:${crypto.randomUUID().slice(0, 12)}`;
  const archive = tarArchive([
    { name: "srv", type: "dir", mode: 0o755, uid: 0, gid: 0 },
    { name: "srv/baked", type: "dir", mode: 0o750, uid: 1234, gid: 1234 },
    { name: "srv/baked/f.txt", type: "file", mode: 0o640, uid: 1234, gid: 1234, data: enc.encode("baked\n") },
  ]);
  try {
    assert.deepEqual(await rt.commitArchive(BASE_IMAGE, archive, tag, uniqueName("bake")), { ok: true });
    await withBox(rt, { image: tag }, async (box) => {
      assert.equal(
        await sh(box, "stat -c '%u:%g %a' /srv/baked /srv/baked/f.txt; cat /srv/baked/f.txt"),
        [
          "1234:1234 750",
          "1234:1234 640",
          "baked",
          "",
        ].join("\n"),
      );
    });
  } finally {
    await rt.removeImage(tag);
  }
});

runtimeTest("start: limits, init, no network, env, user and a working directory the image lacks", async (rt) => {
  const over = { env: { PGS_A: "x y" }, user: "1234", workdir: "/srv/made-by-start" };
  await withBox(rt, over, async (box) => {
    assert.match(box.id, /^\S+$/);
    assert.ok(rt.tracked().includes(box.id), "tracked until removed");
    // cgroup v2 files, else v1's: memory in bytes, the pids limit, the CPU quota per 100 ms period.
    const limits = await sh(
      box,
      "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes; " +
        "cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max; " +
        "cut -d' ' -f1 /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us",
    );
    assert.deepEqual(limits.trim().split("\n"), [String(256 * 1024 * 1024), "64", "50000"]);
    assert.equal(await sh(box, "ls /sys/class/net"), "lo\n", "no network but loopback");
    const init = (await sh(box, "cat /proc/1/comm")).trim();
    assert.ok(!["sh", "sleep"].includes(init), `pid 1 is an init, not the main process (${init})`);
    assert.equal(await sh(box, 'echo "$PGS_A|$(id -u)|$(pwd)"'), "x y|1234|/srv/made-by-start\n");
    assert.equal(await sh(box, "id -u", "0"), "0\n", "an exec may name its user");
  });
});

runtimeTest("start: with the network allowed; a failed start is a BoxStartError and leaves nothing", async (rt) => {
  // Which network a box gets when allowed one is the engine's default (this dev engine runs without a bridge).
  await withBox(rt, { limits: { cpus: 1, memoryMb: 256, pidsLimit: 64, network: true } }, async (box) => {
    assert.equal(await sh(box, "echo up"), "up\n");
  });
  const before = rt.tracked().length;
  await assert.rejects(
    rt.start(spec({ image: `pgs-contract-missing:${crypto.randomUUID().slice(0, 8)}`, stage: "verify" })),
    (e: Error & { stage?: string; detail?: string }) => {
      assert.equal(e.name, "InfraError");
      assert.equal(e.stage, "verify");
      assert.ok(e.detail && e.detail.length > 0, "the engine's own words are kept");
      return true;
    },
  );
  assert.equal(rt.tracked().length, before);
});

runtimeTest("start: replaceEntrypoint runs the command instead of the image's ENTRYPOINT", async (rt) => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_contract_entry_" });
  const tag = `pgs-contract-entry:${crypto.randomUUID().slice(0, 12)}`;
  try {
    await Deno.writeTextFile(
      path.join(dir, "Dockerfile"),
      `FROM ${BASE_IMAGE}\nRUN printf '#!/bin/sh\\necho ran > /tmp/entry\\nexec "$@"\\n' > /e.sh && chmod +x /e.sh\n` +
        `ENTRYPOINT ["/e.sh"]\n`,
    );
    assert.deepEqual(await rt.buildImage(dir, tag, 120_000), { ok: true });
    const idle = ["/bin/sh", "-c", "sleep infinity"];
    await withBox(rt, { image: tag, command: idle }, async (box) => {
      assert.equal(await sh(box, "cat /tmp/entry"), "ran\n", "kept: the ENTRYPOINT ran first");
    });
    await withBox(rt, { image: tag, command: idle, replaceEntrypoint: true }, async (box) => {
      assert.equal(await sh(box, "cat /tmp/entry 2>/dev/null || echo none"), "none\n");
    });
  } finally {
    await rt.removeImage(tag);
    await Deno.remove(dir, { recursive: true });
  }
});

runtimeTest("exec: exit codes, stdout and stderr apart, stdin, env, the bound; spawn pipes both ways", async (rt) => {
  await withBox(rt, {}, async (box) => {
    const r = await box.exec(["/bin/sh", "-c", "echo out; echo err >&2; exit 3"]);
    assert.deepEqual([r.code, text(r.stdout), r.stderr, text(r.stderrRaw), r.timedOut], [
      3,
      "out\n",
      "err",
      "err\n",
      false,
    ]);
    const fed = await box.exec(["cat"], { stdin: enc.encode("fed\n") });
    assert.equal(text(fed.stdout), "fed\n");
    const env = await box.exec(["/bin/sh", "-c", 'echo "$PGS_B"; pwd'], { env: { PGS_B: "b" }, workdir: "/tmp" });
    assert.equal(text(env.stdout), "b\n/tmp\n");
    const slow = await box.exec(["sleep", "30"], { timeoutMs: 1000 });
    assert.equal(slow.timedOut, true);
    const p = box.spawn(["/bin/sh", "-c", "read -r l; echo got $l; echo e >&2"], { stdin: true });
    const w = p.stdin.getWriter();
    await w.write(enc.encode("line\n"));
    await w.close();
    const [out, err, status] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.status,
    ]);
    assert.deepEqual([out, err, status.success], ["got line\n", "e\n", true]);
  });
});

runtimeTest(
  "copies: a tar in keeps owners and modes; a tree out is a tar of it; a missing path says so",
  async (rt) => {
    await withBox(rt, {}, async (box) => {
      const archive = tarArchive([
        { name: "d", type: "dir", mode: 0o750, uid: 1234, gid: 1234 },
        { name: "d/f.txt", type: "file", mode: 0o640, uid: 1234, gid: 1234, data: enc.encode("in\n") },
        { name: "d/l", type: "symlink", mode: 0o777, uid: 0, gid: 0, linkname: "f.txt" },
      ]);
      assert.deepEqual(await box.putArchive("/tmp", archive), { ok: true });
      assert.equal(await sh(box, "stat -c '%u:%g %a' /tmp/d/f.txt; cat /tmp/d/l"), "1234:1234 640\nin\n");
      await sh(box, "echo more > /tmp/d/g.txt");
      const read = box.getArchive("/tmp/d");
      const seen: string[] = [];
      await readTar(read.stream, (m) => {
        seen.push(`${m.type} ${m.name} ${(m.mode & 0o777).toString(8)}`);
        return m.type === "file" ? "keep" : "skip";
      }, (m, data) => seen.push(`${m.name}=${text(data).trim()}`));
      assert.deepEqual(await read.done, { ok: true });
      assert.deepEqual(seen.sort(), [
        "d/f.txt=in",
        "d/g.txt=more",
        "dir d 750",
        "file d/f.txt 640",
        "file d/g.txt 644",
        "symlink d/l 777",
      ]);
      const missing = box.getArchive("/tmp/no-such-dir");
      await new Response(missing.stream).arrayBuffer();
      const done = await missing.done;
      assert.equal(done.ok, false);
      assert.equal(!done.ok && done.missing, true);
      const refused = await box.putArchive("/no/such/parent", archive);
      assert.equal(refused.ok, false);
    });
  },
);

runtimeTest(
  "state and restart: a box whose processes all died is stopped; restarted, its files are kept",
  async (rt) => {
    await withBox(rt, {}, async (box) => {
      assert.equal((await box.state()).status, "running");
      await sh(box, "echo kept > /tmp/kept");
      await box.exec(["/bin/sh", "-c", "kill -9 -1"], { user: "0" });
      assert.ok(await waitFor(async () => (await box.state()).status === "stopped", 30_000), "it stopped");
      assert.deepEqual(await box.restart(), { ok: true });
      assert.equal((await box.state()).status, "running");
      assert.equal(await sh(box, "cat /tmp/kept"), "kept\n");
    });
  },
);

runtimeTest("snapshot: a new image of the box's files, which a new box runs; removeImage drops it", async (rt) => {
  const tag = `pgs-snapshot:contract-${crypto.randomUUID().slice(0, 12)}`;
  try {
    await withBox(rt, {}, async (box) => {
      await sh(box, "echo snap > /tmp/snap.txt");
      assert.deepEqual(await box.snapshot(tag), { ok: true });
    });
    await withBox(rt, { image: tag }, async (box) => assert.equal(await sh(box, "cat /tmp/snap.txt"), "snap\n"));
  } finally {
    await rt.removeImage(tag);
  }
  assert.equal(await rt.inspectImage(tag), undefined);
  await rt.removeImage(tag); // never throws, even when it is gone
});

runtimeTest("remove: the box is gone and untracked; removing it again is harmless", async (rt) => {
  const box = await rt.start(spec());
  assert.equal(await box.remove(), true);
  assert.equal((await box.state()).status, "unknown");
  assert.ok(!rt.tracked().includes(box.id));
  assert.equal(await box.remove(), true);
});

runtimeTest("removeOwn: every box this process started on the engine goes; removeOwnSync too", async (rt) => {
  const fresh = createRuntime(rt.kind, { host: rt.host });
  const a = await fresh.start(spec());
  const b = await fresh.start(spec());
  await fresh.removeOwn();
  for (const box of [a, b]) assert.equal((await box.state()).status, "unknown", `${box.id} removed`);
  assert.deepEqual(fresh.tracked(), []);
  const c = await fresh.start(spec());
  fresh.removeOwnSync();
  assert.equal((await c.state()).status, "unknown");
  assert.deepEqual(fresh.tracked(), []);
});

runtimeTest("sweepOrphans: a box whose owning process died is removed by the next client's sweep", async (rt) => {
  const fixture = path.join(import.meta.dirname!, "fixtures", "hold_box.ts");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", fixture, rt.kind, uniqueName("orphan")],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const id = out.match(/^READY (\S+)/)?.[1];
  child.kill("SIGKILL"); // no exit hook runs: the box is an orphan now
  await child.status;
  await reader.cancel().catch(() => {});
  assert.ok(id, `the fixture started a box: ${out}`);
  const fresh = createRuntime(rt.kind, { host: rt.host });
  const swept = await fresh.sweepOrphans();
  assert.deepEqual(await fresh.sweepOrphans(), [], "once per client");
  // Another test process's sweep may get there first: either way it is gone.
  const gone = await waitFor(async () => (await fresh.box(id).state()).status === "unknown", 15_000);
  assert.ok(gone, `the orphan ${id} is gone (swept here: ${swept.join(" ") || "none"})`);
});
