import assert from "node:assert/strict";
import { runArgs } from "../docker/mod.ts";
import type { BoxSpec } from "../runtime.ts";
import { cdiGpuProblem } from "./gpus.ts";
import { PODMAN_ENGINE, podmanRunArgs, qualifiedRef } from "./engine.ts";

const spec: BoxSpec = {
  image: "img:1",
  limits: { cpus: 1, memoryMb: 512, pidsLimit: 64, gpus: 2 },
  role: "episode",
  task: "t",
  env: { A: "-w" },
  workdir: "/workdir",
  command: ["idle", "-w", "/x"],
};

Deno.test("podman run argv: a name, no -w when the image's WORKDIR is the folder, GPUs as CDI devices", () => {
  const docker = runArgs(PODMAN_ENGINE, spec);
  const argv = podmanRunArgs(docker, "pgs-x", false);
  assert.deepEqual(argv.slice(0, 4), ["run", "--name", "pgs-x", "-d"]);
  assert.equal(argv.indexOf("-w"), argv.lastIndexOf("-w")); // only the command's own -w is left
  assert.ok(argv.indexOf("-w") > argv.indexOf("img:1"));
  assert.ok(!argv.some((a) => a.startsWith("--gpus")));
  assert.deepEqual(argv.filter((a) => a.startsWith("nvidia.com/gpu=")), ["nvidia.com/gpu=0", "nvidia.com/gpu=1"]);
  assert.ok(argv.includes("--stop-timeout=0") && argv.includes("--init"));
  assert.deepEqual(argv.slice(-4), ["img:1", "idle", "-w", "/x"]);
  const kept = podmanRunArgs(docker, "pgs-x", true);
  assert.deepEqual(kept.slice(kept.indexOf("-w"), kept.indexOf("-w") + 2), ["-w", "/workdir"]);
});

Deno.test("podman pulls short names from Docker Hub, as Docker resolves them", () => {
  assert.equal(qualifiedRef("python:3.11"), "docker.io/library/python:3.11");
  assert.equal(qualifiedRef("ubuntu"), "docker.io/library/ubuntu");
  assert.equal(qualifiedRef("org/tool:1"), "docker.io/org/tool:1");
  assert.equal(qualifiedRef("ghcr.io/org/tool:1"), "ghcr.io/org/tool:1");
  assert.equal(qualifiedRef("localhost:5000/x"), "localhost:5000/x");
  assert.equal(qualifiedRef("localhost/pgs-base:1"), "localhost/pgs-base:1");
});

Deno.test("podman GPUs need a CDI spec naming nvidia.com/gpu, and a local engine", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.match((await cdiGpuProblem(undefined, [dir, "/nonexistent"]))!, /no CDI spec/);
    await Deno.writeTextFile(`${dir}/other.yaml`, "kind: vendor.com/fpga\n");
    assert.match((await cdiGpuProblem(undefined, [dir]))!, /no CDI spec/);
    await Deno.writeTextFile(`${dir}/nvidia.yaml`, "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n");
    assert.equal(await cdiGpuProblem(undefined, [dir]), undefined);
    assert.match((await cdiGpuProblem("unix:///run/podman.sock", [dir]))!, /remote podman/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
