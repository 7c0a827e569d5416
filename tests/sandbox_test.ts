/** Episode containers against a real engine: limits, labels, env, staging, setup, healthcheck, pids and images. */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import * as path from "node:path";
import { text } from "../lib/runtime/channel.ts";
import { Docker, type DockerCallOptions, type DockerResult } from "../lib/runtime/docker/mod.ts";
import { InfraError } from "../lib/base/errors.ts";
import { contextHash, ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import {
  BASE_IMAGE,
  containersWith,
  containersWithCommand,
  dockerTest,
  inspect,
  makeTask,
  removeTask,
  uniqueName,
} from "./docker_helpers.ts";

const FIX_WORD_COUNT = path.join(import.meta.dirname!, "..", "examples", "tasks", "fix-word-count");

/** Loads a temporary task from `files`, runs `fn`, then removes the task directory. */
async function withTask(
  files: Record<string, string>,
  fn: (task: Awaited<ReturnType<typeof loadTask>>) => Promise<void>,
): Promise<void> {
  const dir = await makeTask(files);
  try {
    await fn(await loadTask(dir));
  } finally {
    await removeTask(dir);
  }
}

/** Starts a sandbox, runs `fn`, and always removes the sandbox. */
async function withBox(
  task: Awaited<ReturnType<typeof loadTask>>,
  store: ImageStore,
  fn: (box: Sandbox) => Promise<void>,
): Promise<void> {
  const box = await Sandbox.start(task, store);
  try {
    await fn(box);
  } finally {
    await box.remove();
  }
}

/** Asserts `p` rejects with an InfraError of `stage`. */
async function rejectsStage(p: Promise<unknown>, stage: string, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof InfraError, `expected InfraError, got ${e}`);
    assert.equal(e.stage, stage, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

/** Copies a directory tree (files and directories only). */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    const [a, b] = [path.join(from, e.name), path.join(to, e.name)];
    if (e.isDirectory) await copyTree(a, b);
    else if (e.isFile) {
      await Deno.copyFile(a, b);
      await Deno.chmod(b, (await Deno.stat(a)).mode! & 0o777);
    }
  }
}

/** A Docker client that records the `docker build` calls it makes. */
class CountingDocker extends Docker {
  builds: string[][] = [];
  override call(args: string[], opts?: DockerCallOptions): Promise<DockerResult> {
    if (args[0] === "build") this.builds.push(args);
    return super.call(args, opts);
  }
}

dockerTest("sandbox: limits, init, network none and the pgs labels are applied", async (docker) => {
  const name = uniqueName("limits");
  const toml = `[task]\nname = "${name}"\n[environment]\ndocker_image = "${BASE_IMAGE}"\n` +
    `cpus = 0.5\nmemory_mb = 300\npids_limit = 77\nworkdir = "/work/dir"\n`;
  await withTask({ "task.toml": toml }, async (task) => {
    await withBox(task, new ImageStore(docker), async (box) => {
      const info = await inspect(docker, box.id);
      assert.equal(info.HostConfig.NanoCpus, 500_000_000);
      assert.equal(info.HostConfig.Memory, 300 * 1024 * 1024);
      assert.equal(info.HostConfig.MemorySwap, 300 * 1024 * 1024);
      assert.equal(info.HostConfig.PidsLimit, 77);
      assert.equal(info.HostConfig.NetworkMode, "none");
      assert.equal(info.HostConfig.Init, true);
      assert.equal(info.Config.WorkingDir, "/work/dir");
      // The task image plus one layer holding Harbor's /logs folders (and a workdir, when the task has one).
      assert.match(info.Config.Image, /^pgs-work:[0-9a-f]{16}$/);
      const labels = info.Config.Labels;
      assert.equal(labels["pgs"], "1");
      assert.equal(labels["pgs.host"], hostname());
      assert.equal(labels["pgs.pid"], String(Deno.pid));
      assert.match(labels["pgs.pid-start"], /^\d+$/);
      assert.match(labels["pgs.run"], /^[0-9a-f]{8}$/);
      assert.equal(labels["pgs.role"], "episode");
      assert.equal(labels["pgs.task"], name);
      assert.equal(await box.running(), true);
      // The limits hold inside too: no interface but loopback, tini as PID 1, the working directory.
      const r = await box.exec("ls /sys/class/net; cat /proc/1/comm; pwd");
      assert.equal(text(r.stdout), "lo\ndocker-init\n/work/dir\n");
    });
    assert.deepEqual(await containersWith(docker, `pgs.task=${name}`), []);
  });
});

dockerTest("sandbox: allow_internet = true gives a network", async (docker) => {
  const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\nallow_internet = true\n`;
  await withTask({ "task.toml": toml }, async (task) => {
    await withBox(task, new ImageStore(docker), async (box) => {
      const mode = (await inspect(docker, box.id)).HostConfig.NetworkMode;
      assert.notEqual(mode, "none");
      assert.ok(mode, "no network mode");
    });
  });
});

dockerTest("sandbox: the env table reaches the container", async (docker) => {
  const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\n` +
    `env = { PGS_A = "hello world", PGS_B = 3, PGS_C = "quote ' and $$dollar", PGS_D = "${"${PGS_TEST_HOST_VAR}"}" }\n`;
  Deno.env.set("PGS_TEST_HOST_VAR", "from-host");
  await withTask({ "task.toml": toml }, async (task) => {
    await withBox(task, new ImageStore(docker), async (box) => {
      const r = await box.exec(`printf '%s|' "$PGS_A" "$PGS_B" "$PGS_C" "$PGS_D"`, { shell: "sh" });
      // Only a whole `${VAR}` is a template, as in Harbor: `$$` stays as written.
      assert.equal(text(r.stdout), "hello world|3|quote ' and $$dollar|from-host|");
      // Per-call env from Sandbox.exec adds to it, for that call only.
      const r2 = await box.exec(`printf '%s|' "$PGS_A" "$X"`, { env: { X: "a'b", PGS_A: "over" } });
      assert.equal(text(r2.stdout), "over|a'b|");
      assert.equal(text((await box.exec(`printf '%s' "\${X:-unset}"`)).stdout), "unset");
    });
  });
});

dockerTest(
  "sandbox: workdir files belong to the image user; setup.sh runs as that user after staging",
  async (docker) => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_docker_test_" });
    try {
      await copyTree(FIX_WORD_COUNT, dir);
      await Deno.writeTextFile(
        path.join(dir, "environment", "setup.sh"),
        "set -e\nid -un > /tmp/setup-user\nls -A /workdir > /tmp/setup-ls\ntouch /workdir/made-by-setup\n",
      );
      const task = await loadTask(dir);
      await withBox(task, new ImageStore(docker), async (box) => {
        assert.equal(box.image.user, "agent");
        assert.ok(box.uid > 0 && box.gid > 0, `uid ${box.uid} gid ${box.gid}`);
        const r = await box.exec("stat -c '%U:%G %n' /workdir /workdir/*; id -un; cat /tmp/setup-user /tmp/setup-ls");
        assert.equal(r.exitCode, 0, text(r.stderr));
        const lines = text(r.stdout).trim().split("\n");
        const owners = lines.filter((l) => l.includes("/workdir"));
        assert.ok(owners.length >= 6, lines.join("\n"));
        for (const l of owners) assert.match(l, /^agent:agent /);
        assert.ok(owners.some((l) => l.endsWith("/workdir/made-by-setup")));
        const rest = lines.slice(owners.length);
        assert.equal(rest[0], "agent", "exec runs as the image user");
        assert.equal(rest[1], "agent", "setup.sh runs as the image user");
        // setup.sh saw the staged files (it ran after staging).
        for (const f of ["README.md", "sample.txt", "wc.py", "wordcount.py"]) assert.ok(rest.includes(f), f);
        // The agent can write its files.
        assert.equal((await box.exec("echo x >> wordcount.py && rm sample.txt")).exitCode, 0);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

dockerTest("sandbox: a failing setup.sh throws stage setup and leaves no container", async (docker) => {
  await withTask({
    "environment/setup.sh": "echo preparing\necho 'it broke' >&2\nexit 3\n",
    "environment/workdir/a.txt": "a\n",
  }, async (task) => {
    await rejectsStage(Sandbox.start(task, new ImageStore(docker)), "setup", /setup\.sh exited 3: it broke/);
    assert.deepEqual(await containersWith(docker, `pgs.task=${task.name}`), []);
  });
});

dockerTest(
  "sandbox: a healthcheck that never passes throws stage healthcheck and leaves no container",
  async (docker) => {
    const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\n[environment.healthcheck]\n` +
      `command = "test -f /tmp/never"\nretries = 2\ninterval_sec = 0.1\ntimeout_sec = 5\n`;
    await withTask({ "task.toml": toml }, async (task) => {
      await rejectsStage(Sandbox.start(task, new ImageStore(docker)), "healthcheck", /healthcheck failed 3 times/);
      assert.deepEqual(await containersWith(docker, `pgs.task=${task.name}`), []);
    });
  },
);

dockerTest("sandbox: a healthcheck that passes after setup starts the box", async (docker) => {
  const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\n[environment.healthcheck]\n` +
    `command = "test -f /tmp/ready"\nretries = 30\ninterval_sec = 0.1\ntimeout_sec = 5\n`;
  await withTask(
    { "task.toml": toml, "environment/setup.sh": "(sleep 0.5; touch /tmp/ready) >/dev/null 2>&1 &\n" },
    async (task) => {
      await withBox(task, new ImageStore(docker), async (box) => {
        assert.equal((await box.exec("test -f /tmp/ready")).exitCode, 0);
      });
    },
  );
});

dockerTest(
  "sandbox: gpus gets --gpus where the engine has the nvidia runtime, else a start error saying so",
  async (docker) => {
    const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\ngpus = 1\n`;
    const info = await docker.ok(["info", "--format", "{{json .Runtimes}}"], "info");
    await withTask({ "task.toml": toml }, async (task) => {
      if (info.includes('"nvidia"')) {
        await withBox(task, new ImageStore(docker), async (box) => {
          const req = (await inspect(docker, box.id)).HostConfig.DeviceRequests;
          assert.equal(req?.[0]?.Count, 1);
        });
      } else {
        await assert.rejects(
          Sandbox.start(task, new ImageStore(docker)),
          (e: Error) =>
            e instanceof InfraError &&
            /environment\.gpus = 1, but the Docker engine has no GPU runtime/.test(e.message),
        );
        assert.deepEqual(await containersWith(docker, `pgs.task=${task.name}`), []);
      }
    });
  },
);

dockerTest("sandbox: a fork bomb is held by pids_limit", async (docker) => {
  const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\npids_limit = 64\n`;
  await withTask({ "task.toml": toml }, async (task) => {
    await withBox(task, new ImageStore(docker), async (box) => {
      // The bomb forks in the background while the command waits (`exec`: its shell needs no fork to wait), so only
      // the timeout ends it, and every process it started is gone before the next command.
      const r = await box.exec(":(){ :|:& };:; exec sleep 100", { timeoutSec: 5 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 137);
      assert.equal(await box.running(), true);
      const after = await box.exec("echo alive; ps -e --no-headers | wc -l", { timeoutSec: 30 });
      assert.equal(after.exitCode, 0, text(after.stderr));
      const [alive, count] = text(after.stdout).trim().split("\n");
      assert.equal(alive, "alive");
      assert.ok(Number(count) < 16, `${count} processes are left`);
      assert.equal((await inspect(docker, box.id)).HostConfig.PidsLimit, 64);
    });
  });
});

dockerTest("sandbox: a Dockerfile image is built once per content hash", async (docker) => {
  const counting = new CountingDocker(docker.host);
  const stamp = crypto.randomUUID();
  const dockerfile = `FROM ${BASE_IMAGE}\nRUN echo ${stamp} > /stamp\n`;
  const dir = await makeTask({ "environment/Dockerfile": dockerfile, "task.toml": `[environment]\ncpus = 1\n` });
  const tags: string[] = [];
  try {
    const task = await loadTask(dir);
    const hash = await contextHash(task.paths.environmentDir);
    const tag = `pgs-env:${hash.slice(0, 16)}`;
    tags.push(tag);
    assert.equal(await docker.hasImage(tag), false);
    const store = new ImageStore(counting);
    const boxes = await Promise.allSettled([Sandbox.start(task, store), Sandbox.start(task, store)]);
    try {
      for (const b of boxes) assert.equal(b.status, "fulfilled", b.status === "rejected" ? String(b.reason) : "");
      const [a, b] = boxes.map((x) => (x as PromiseFulfilledResult<Sandbox>).value);
      assert.equal(counting.builds.length, 1, JSON.stringify(counting.builds));
      assert.equal(await docker.hasImage(tag), true);
      assert.equal(a.image.ref, tag);
      assert.equal(b.image.ref, tag);
      for (const box of [a, b]) assert.equal(text((await box.exec("cat /stamp")).stdout), `${stamp}\n`);
      assert.notEqual(a.id, b.id);
    } finally {
      for (const b of boxes) if (b.status === "fulfilled") await b.value.remove();
    }
    // A later start of the same content builds nothing, even through a new store.
    const again = new ImageStore(counting);
    assert.equal((await again.resolve(task)).ref, tag);
    assert.equal(counting.builds.length, 1);

    // Changed content, a different hash and tag.
    await Deno.writeTextFile(path.join(dir, "environment", "Dockerfile"), dockerfile + "RUN true\n");
    const hash2 = await contextHash(task.paths.environmentDir);
    assert.notEqual(hash2, hash);
    const tag2 = `pgs-env:${hash2.slice(0, 16)}`;
    tags.push(tag2);
    assert.equal((await new ImageStore(counting).resolve(task)).ref, tag2);
    assert.equal(counting.builds.length, 2);
    assert.equal(await docker.hasImage(tag2), true);
  } finally {
    await removeTask(dir);
    for (const t of tags) await docker.call(["rmi", "-f", t]);
  }
});

dockerTest("sandbox: build_timeout_sec is honoured", async (docker) => {
  const marker = crypto.randomUUID();
  const dockerfile = `FROM ${BASE_IMAGE}\nRUN echo ${marker} && sleep 30\n`;
  await withTask({
    "environment/Dockerfile": dockerfile,
    "task.toml": `[environment]\nbuild_timeout_sec = 2\n`,
  }, async (task) => {
    // Stopped, not waited out: the error names the timeout, and neither the step's container nor an image is left.
    await rejectsStage(Sandbox.start(task, new ImageStore(docker)), "build", /timed out after 2 s/);
    assert.deepEqual(await containersWith(docker, `pgs.task=${task.name}`), []);
    assert.deepEqual(
      await containersWithCommand(docker, marker, 10_000),
      [],
      "the cancelled build leaves no container",
    );
    const tag = `pgs-env:${(await contextHash(task.paths.environmentDir)).slice(0, 16)}`;
    assert.equal(await docker.hasImage(tag), false);
  });
});
