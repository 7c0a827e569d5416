/**
 * Disk bounds without an engine: the run argv, what an engine's `info` says of its storage driver and what its start
 * errors mean, the bound a box gets (the task's, else the run's), the verifier copy's cap, and the run-wide setting
 * (`--storage-mb` on every command that starts boxes, `storage_mb:` in the eval YAML, `HarborEnvOptions.storageMb`)
 * with its bad values.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { limitArgs } from "../lib/runtime/docker/args.ts";
import { DOCKER_ENGINE } from "../lib/runtime/docker/engine.ts";
import { PODMAN_ENGINE } from "../lib/runtime/podman/engine.ts";
import { belowImageSize, parseStorageInfo, refusesDiskBound, storageVerdict } from "../lib/runtime/docker/storage.ts";
import { boxLimits, DEFAULT_STORAGE_MB, withStorage } from "../lib/runtime/limits.ts";
import { copyArchive, readFromAgent } from "../lib/verify/container_copy.ts";
import type { ArchiveRead, Box, Done } from "../lib/runtime/runtime.ts";
import type { EnvironmentConfig } from "../lib/task/task_config.ts";
import { buildConfig, readConfigFile } from "../lib/eval/config.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { COUNT, NO_ENGINE, oneLine } from "./cli_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const ENV: EnvironmentConfig = {
  cpus: 1,
  memoryMb: 512,
  pidsLimit: 64,
  allowInternet: false,
  buildTimeoutSec: 600,
  env: {},
  network: { mode: "no-network", allowedHosts: [] },
  networkUnset: false,
};

Deno.test("a box's disk bound: the task's storage_mb, else the run's, else 10240; 0 is none", () => {
  assert.equal(boxLimits(ENV, false).storageMb, DEFAULT_STORAGE_MB);
  assert.equal(DEFAULT_STORAGE_MB, 10240);
  assert.equal(boxLimits({ ...ENV, storageMb: 1024 }, false).storageMb, 1024);
  assert.equal(boxLimits(withStorage(ENV, 2048), false).storageMb, 2048);
  assert.equal(boxLimits(withStorage({ ...ENV, storageMb: 512 }, 2048), false).storageMb, 512);
  assert.equal("storageMb" in boxLimits(withStorage(ENV, 0), false), false);
});

Deno.test("run argv: --storage-opt size=NM only for a bounded box, for docker and podman alike", () => {
  const limits = { cpus: 1, memoryMb: 512, pidsLimit: 64 };
  for (const cli of [DOCKER_ENGINE, PODMAN_ENGINE]) {
    const bounded = limitArgs(cli, { ...limits, storageMb: 1024 });
    const at = bounded.indexOf("--storage-opt");
    assert.deepEqual(bounded.slice(at, at + 2), ["--storage-opt", "size=1024M"]);
    assert.ok(!limitArgs(cli, limits).includes("--storage-opt"));
  }
});

Deno.test("an engine's storage from its info: Docker's DriverStatus pairs and podman's GraphStatus object", () => {
  const docker = parseStorageInfo(
    'overlay2\t[["Backing Filesystem","extfs"],["Supports d_type","true"],["Native Overlay Diff","true"]]\n',
  );
  assert.deepEqual(docker, { driver: "overlay2", backing: "extfs" });
  const podman = parseStorageInfo('overlay\t{"Backing Filesystem":"extfs","Native Overlay Diff":"true"}');
  assert.deepEqual(podman, { driver: "overlay", backing: "extfs" });
  assert.deepEqual(parseStorageInfo('btrfs\t[["Build Version","Btrfs v6.2"]]'), { driver: "btrfs", backing: "" });
  assert.deepEqual(parseStorageInfo("weird"), { driver: "weird", backing: "" });

  const line = storageVerdict("docker", "unix:///d.sock", docker);
  assert.match(line ?? "", /^docker engine unix:\/\/\/d\.sock \(storage driver overlay2 on extfs\) cannot bound/);
  assert.match(line ?? "", /storage_mb is not enforced in this run/);
  assert.equal(storageVerdict("docker", "x", { driver: "btrfs", backing: "" }), undefined);
  assert.equal(storageVerdict("docker", "x", { driver: "zfs", backing: "" }), undefined);
  assert.equal(storageVerdict("docker", "x", { driver: "overlay2", backing: "xfs" }), undefined);
  assert.ok(storageVerdict("podman", "local podman", podman));
  assert.ok(storageVerdict("docker", "x", { driver: "fuse-overlayfs", backing: "" }));
});

Deno.test("start errors: a driver refusing the size, and a size below the image's own (the engines' words)", () => {
  const refused = [
    "docker: Error response from daemon: --storage-opt is supported only for overlay over xfs with 'pquota' mount option",
    "Error: storage option overlay.size and overlay.inodes only supported for backingFS XFS. Found extfs",
    "Error: unknown option size",
  ];
  for (const e of refused) assert.ok(refusesDiskBound(e), e), assert.ok(!belowImageSize(e), e);
  const below = "docker: Error response from daemon: Failed to limit qgroup for &{}: disk quota exceeded";
  assert.ok(belowImageSize(below));
  assert.ok(!refusesDiskBound(below));
  assert.ok(!refusesDiskBound("docker: Error response from daemon: No such image: x"));
});

/** A verifier box whose `putArchive` reads the stream whole (or fails with `fail` once it read `failAfter` bytes). */
function sink(fail?: { after: number; error: string }): Box & { got: number } {
  const box = {
    got: 0,
    async putArchive(_parent: string, archive: Uint8Array | ReadableStream<Uint8Array>): Promise<Done> {
      if (archive instanceof Uint8Array) return { ok: true };
      try {
        for await (const chunk of archive) {
          box.got += chunk.length;
          if (fail && box.got > fail.after) return { ok: false, error: fail.error };
        }
        return { ok: true };
      } catch (e) {
        return { ok: false, error: `the copy broke: ${(e as Error).message}` };
      }
    },
  };
  return box as unknown as Box & { got: number };
}

/** An archive read of `mb` MB in 1 MiB chunks; `cancelled` tells whether the reader was cancelled. */
function source(mb: number): ArchiveRead & { cancelled: () => boolean } {
  let sent = 0, cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ >= mb) return c.close();
      c.enqueue(new Uint8Array(1 << 20));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, done: Promise.resolve({ ok: true }), cancel: () => cancelled = true, cancelled: () => cancelled };
}

Deno.test("the verifier's copy stops past its cap, as the policy's doing; within it the copy is whole", async () => {
  const over = source(50), to = sink();
  const f = await copyArchive(over, "/workdir", to, "/stage", undefined, 8);
  assert.equal(f?.diskLimit, true);
  assert.equal(f?.side, "agent");
  assert.match(f?.error ?? "", /the working directory \/workdir exceeded storage_mb = 8/);
  assert.ok(to.got <= 8 << 20, `the verifier got ${to.got} bytes`);
  assert.ok(over.cancelled(), "the read out of the agent's box is stopped");

  const within = sink();
  assert.equal(await copyArchive(source(5), "/workdir", within, "/stage", undefined, 8), undefined);
  assert.equal(within.got, 5 << 20);
  // The tests' archive ahead of the agent's does not count.
  const head = new Uint8Array(4 << 20);
  assert.equal(await copyArchive(source(6), "/workdir", sink(), "/stage", head, 8), undefined);
  // A verifier's box that runs out of its own bound (the agent's) while taking the copy: the same.
  const full = sink({ after: 1 << 20, error: "write /stage/x: disk quota exceeded" });
  assert.equal((await copyArchive(source(5), "/workdir", full, "/stage", undefined, 8))?.diskLimit, true);
  // Without a bound, such a failure stays the machinery's.
  const infra = await copyArchive(
    source(5),
    "/workdir",
    sink({ after: 1 << 20, error: "no space left on device" }),
    "/s",
  );
  assert.deepEqual([infra?.side, infra?.diskLimit], ["verifier", undefined]);
});

Deno.test("the tied verifier's in-memory read stops past the cap too", async () => {
  const src = source(30);
  const from = { getArchive: () => src } as unknown as Box;
  const read = await readFromAgent(from, "/workdir", new Uint8Array(1024), 64 << 20, 10);
  assert.ok("error" in read && read.diskLimit, JSON.stringify(read));
  assert.ok(src.cancelled());
  const small = await readFromAgent(
    { getArchive: () => source(3) } as unknown as Box,
    "/w",
    new Uint8Array(0),
    64 << 20,
    10,
  );
  assert.ok("bytes" in small && small.bytes.length === 3 << 20);
});

Deno.test("eval: storage_mb from the YAML or --storage-mb (flags win), default 10240, 0 for none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "c.yaml");
    await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\nstorage_mb: 0\n");
    assert.equal(buildConfig(await readConfigFile(file), {}, file).storageMb, 0);
    assert.equal(buildConfig(await readConfigFile(file), { storageMb: "2048" }, file).storageMb, 2048);
    assert.equal(buildConfig({ tasks: "x", policy: "oracle" }, {}, file).storageMb, 10240);
    await Deno.writeTextFile(file, "tasks: x\npolicy: oracle\nstorage-mb: -5\n");
    const raw = await readConfigFile(file);
    assert.throws(() => buildConfig(raw, {}, file), /^UsageError: .*c\.yaml: storageMb must be ≥ 0, got -5$/);
    assert.throws(
      () => buildConfig({ tasks: "x", policy: "oracle" }, { storageMb: "1.5" }, file),
      /--storage-mb must be an integer/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HarborEnv: storageMb must be a non-negative integer", () => {
  for (const bad of [-1, 1.5, Number.NaN]) {
    assert.throws(() => new HarborEnv({ storageMb: bad }), /HarborEnv: storageMb must be a non-negative integer/);
  }
});

Deno.test("--storage-mb: a bad value is one line naming the flag, exit 2, on every command that takes it", async () => {
  const env = { DOCKER_HOST: NO_ENGINE };
  const re = (cmd: string, v: string) =>
    new RegExp(`^pgs: ${cmd}: --storage-mb must be a non-negative integer \\(0: no bound\\), got "${v}"$`);
  await oneLine(["harbor", "check", COUNT, "--storage-mb", "-1"], 2, re("harbor check", "-1"), env);
  await oneLine(["harbor", "audit", COUNT, "--storage-mb", "10G"], 2, re("harbor audit", "10G"), env);
  await oneLine(["env", "serve", "--storage-mb", "1.5"], 2, re("env serve", "1.5"), env);
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--storage-mb", "-3"],
    2,
    /^pgs: --storage-mb must be ≥ 0, got -3$/,
    env,
  );
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--storage-mb", "x"],
    2,
    /--storage-mb must be an integer, got "x"/,
    env,
  );
});
