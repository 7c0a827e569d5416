/**
 * Pods on every runtime (issue #41): the compose fixtures of `tests/fixtures/compose/` run as a pod per episode, the
 * task's own test reads what the sidecars serve or wrote, a sidecar that fails its healthcheck is an infrastructure
 * error naming it, the pod is loopback-only without the network, and nothing outlives the episode (containers and
 * volumes, checked by the pod's labels), nor a dead process's volume the next sweep.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { InfraError } from "../lib/base/errors.ts";
import { shQuote } from "../lib/runtime/channel.ts";
import { LABELS, owner } from "../lib/runtime/hygiene.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { POD_LABELS } from "../lib/runtime/pod.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { latestById, readTrajectories } from "../lib/eval/records/trajectory.ts";
import { dockerTest } from "./docker_helpers.ts";
import { stubEval } from "./eval_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";

const FIXTURES = path.join(import.meta.dirname!, "fixtures", "compose");
const text = (b: Uint8Array) => new TextDecoder().decode(b).trim();

/**
 * The CLI's listing of what carries `label` on the runtime's engine: containers (`ps -a`) or volumes; with `and`, a
 * container must carry that label too.
 */
async function listed(rt: Runtime, what: "ps" | "volume", label: string, and?: string): Promise<string[]> {
  const cli = rt as unknown as { call(a: string[]): Promise<{ code: number; stdout: Uint8Array; stderr: string }> };
  const argv = what === "ps"
    ? ["ps", "-aq", "--filter", `label=${label}`, ...(and ? ["--filter", `label=${and}`] : [])]
    : ["volume", "ls", "-q", "--filter", `label=${label}`];
  const r = await cli.call(argv);
  assert.equal(r.code, 0, r.stderr);
  return text(r.stdout).split("\n").filter(Boolean);
}

/** Runs the fixture's tests/test.sh in `main` and returns the reward it wrote. */
async function reward(box: Sandbox): Promise<string> {
  const script = await Deno.readTextFile(path.join(box.task.dir, "tests", "test.sh"));
  const r = await box.exec(
    `mkdir -p /logs/verifier && bash -c ${shQuote(script)} && cat /logs/verifier/reward.txt`,
    {
      timeoutSec: 60,
    },
  );
  assert.equal(r.exitCode, 0, text(r.stderr));
  return text(r.stdout);
}

for (const fixture of ["http-sidecar", "shared-volume", "completed-init"]) {
  runtimeTest(`pod: ${fixture} runs as a pod and its test scores 1; nothing of the pod is left`, async (rt) => {
    const task = await loadTask(path.join(FIXTURES, fixture));
    assert.ok(task.compose, "the loader reads the compose file");
    const box = await Sandbox.start(task, new ImageStore(rt));
    const pod = box.pod!;
    let removed = false;
    try {
      assert.ok(box.timings.services > 0, "the sidecars' start is timed");
      const members = await listed(rt, "ps", `${POD_LABELS.pod}=${pod.id}`);
      // main and every sidecar (a finished one too: it stays until the pod is removed).
      assert.equal(members.length, 1 + Object.keys(task.compose!.services).filter((n) => n !== "main").length);
      assert.equal(await reward(box), "1");
      await box.remove();
      removed = true;
      assert.deepEqual(await listed(rt, "ps", `${POD_LABELS.pod}=${pod.id}`), []);
      for (const v of pod.volumes.values()) {
        assert.ok(!(await listed(rt, "volume", `${LABELS.marker}=1`)).includes(v), `volume ${v} is left`);
      }
    } finally {
      if (!removed) await box.remove();
    }
  });
}

runtimeTest(
  "pod: a sidecar failing its healthcheck is an infrastructure error naming it, and nothing is left",
  async (rt) => {
    const task = await loadTask(path.join(FIXTURES, "unhealthy-sidecar"));
    const before = await listed(rt, "volume", `${LABELS.run}=${owner().run}`);
    const err = await Sandbox.start(task, new ImageStore(rt)).then(() => undefined, (e) => e);
    assert.ok(err instanceof InfraError, String(err));
    assert.equal(err.stage, "services");
    assert.match(err.message, /service web is unhealthy/);
    assert.deepEqual(await listed(rt, "ps", `${LABELS.task}=${task.name}`), []);
    assert.deepEqual(await listed(rt, "volume", `${LABELS.run}=${owner().run}`), before);
  },
);

runtimeTest(
  "pod: a sidecar that exited before the agent starts is an infrastructure error with its last lines",
  async (rt) => {
    const task = await loadTask(path.join(FIXTURES, "exits-early"));
    const err = await Sandbox.start(task, new ImageStore(rt)).then(() => undefined, (e) => e);
    assert.ok(err instanceof InfraError, String(err));
    assert.equal(err.stage, "services");
    assert.match(
      err.message,
      /service flaky exited 3 before the agent started; its last lines: .*cannot bind port 5432/,
    );
    assert.deepEqual(await listed(rt, "ps", `${LABELS.task}=${task.name}`), []);
  },
);

runtimeTest("pod: a run's pod total bounds the sidecars' limits; main keeps the task's", async (rt) => {
  const task = await loadTask(path.join(FIXTURES, "http-sidecar"));
  const env = task.config.environment;
  const box = await Sandbox.start(task, new ImageStore(rt), { podBudget: { memoryMb: env.memoryMb + 100 } });
  try {
    const cli = rt as unknown as { call(a: string[]): Promise<{ code: number; stdout: Uint8Array }> };
    const memory = async (id: string) =>
      Number(text((await cli.call(["inspect", "--format", "{{.HostConfig.Memory}}", id])).stdout));
    assert.equal(await memory(box.id), env.memoryMb * 2 ** 20);
    assert.equal(await memory(box.pod!.members.get("web")!.id), 100 * 2 ** 20);
  } finally {
    await box.remove();
  }
});

runtimeTest(
  "pod: a one-shot service that never ends fails the start at build_timeout_sec, nothing left",
  async (rt) => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_pod_hang_" });
    try {
      await Deno.mkdir(path.join(dir, "environment"));
      await Deno.mkdir(path.join(dir, "tests"));
      await Deno.writeTextFile(path.join(dir, "instruction.md"), "x\n");
      await Deno.writeTextFile(path.join(dir, "tests", "test.sh"), "echo 1 > /logs/verifier/reward.txt\n");
      await Deno.writeTextFile(
        path.join(dir, "task.toml"),
        `[task]\nname = "pgs/pod-hang"\n[environment]\ndocker_image = "pgs-base:1"\nbuild_timeout_sec = 3\n`,
      );
      await Deno.writeTextFile(
        path.join(dir, "environment", "docker-compose.yaml"),
        "services:\n  main:\n    depends_on:\n      seed:\n        condition: service_completed_successfully\n" +
          "  seed:\n    image: pgs-base:1\n    command: [sleep, infinity]\n",
      );
      const task = await loadTask(dir);
      const err = await Sandbox.start(task, new ImageStore(rt)).then(() => undefined, (e) => e);
      assert.ok(err instanceof InfraError, String(err));
      assert.match(err.message, /service seed did not finish within 3 s \(environment\.build_timeout_sec\)/);
      assert.deepEqual(await listed(rt, "ps", `${LABELS.task}=${task.name}`), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

runtimeTest("pod: without the network the pod has loopback only, and main reaches its sidecar by name", async (rt) => {
  const task = await loadTask(path.join(FIXTURES, "http-sidecar"));
  const box = await Sandbox.start(task, new ImageStore(rt));
  try {
    const probe = [
      "import socket, urllib.request",
      "print(urllib.request.urlopen('http://web:8000/').read().decode().strip())",
      "s = socket.socket(); s.settimeout(3)",
      "try:\n    s.connect(('192.0.2.1', 80)); print('outside: reached')\nexcept OSError as e:\n    print('outside:', e.errno)",
    ].join("\n");
    const r = await box.exec(`python3 -c ${shQuote(probe)}; cat /proc/net/dev | tail -n +3 | cut -d: -f1`, {
      timeoutSec: 30,
    });
    const out = text(r.stdout).split("\n").map((l) => l.trim());
    assert.equal(out[0], "hello-from-web");
    assert.match(out[1], /^outside: \d+$/, "a non-loopback address is unreachable");
    assert.deepEqual(out.slice(2), ["lo"], "the pod's only interface is loopback");
  } finally {
    await box.remove();
  }
});

runtimeTest("pod: the sweep removes a volume a dead pgs process left", async (rt) => {
  // A volume named and labelled as a process that is gone (pid 2^22 + 1 is above Linux's pid_max).
  const name = `pgs-${2 ** 22 + 1}-0-${crypto.randomUUID().slice(0, 12)}`;
  const cli = rt as unknown as { call(a: string[]): Promise<{ code: number; stderr: string }> };
  const made = await cli.call([
    "volume",
    "create",
    "--label",
    `${LABELS.marker}=1`,
    "--label",
    `${LABELS.host}=${owner().host}`,
    name,
  ]);
  assert.equal(made.code, 0, made.stderr);
  try {
    const fresh = createRuntime(rt.kind, rt.host ? { host: rt.host } : {});
    await fresh.sweepOrphans();
    assert.ok(!(await listed(rt, "volume", `${LABELS.marker}=1`)).includes(name), "the dead process's volume is gone");
  } finally {
    await cli.call(["volume", "rm", "-f", name]);
  }
});

for (const mode of ["shared", "isolated", "snapshot"]) {
  // In isolated and snapshot the tests run beside a fresh pod of the task's services (pristine images).
  dockerTest(
    `pod: pgs eval scores a compose task under a profile (${mode}); the sidecars' start is in the timings`,
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "pgs_pod_eval_" });
      try {
        // A copy under a name of its own: other test files run this fixture at once, and its boxes are found by name.
        const task = path.join(dir, `http-sidecar-${mode}-${crypto.randomUUID().slice(0, 8)}`);
        const cp = await new Deno.Command("cp", { args: ["-r", path.join(FIXTURES, "http-sidecar"), task] }).output();
        assert.equal(cp.code, 0);
        // The agent asks the sidecar by name through its tool, then submits; the task's tests ask it again.
        const turns = [
          {
            tool_calls: [{
              name: "bash",
              arguments: {
                command:
                  `python3 -c "import urllib.request as u; print(u.urlopen('http://web:8000/').read().decode())"`,
              },
            }],
          },
          {
            tool_calls: [{
              name: "bash",
              arguments: { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo done" },
            }],
          },
        ];
        const run = path.join(dir, "run");
        await stubEval(dir, turns, [
          "--tasks",
          task,
          "--profile",
          "mini-swe-agent",
          "--verifier-mode",
          mode,
          "--out",
          run,
        ]);
        const [t] = latestById(readTrajectories(path.join(run, "trajectories.jsonl")));
        assert.equal(t.exit_status, "stop_rule", t.error); // mini-swe-agent ends on its sentinel
        assert.equal(t.reward, 1, t.test_output);
        assert.equal(t.verifier_mode, mode);
        // Nothing of the agent's pod or the verifier's outlives the run.
        const docker = createRuntime("docker");
        assert.deepEqual(await listed(docker, "ps", `${LABELS.task}=${t.task}`), []);
        assert.deepEqual(await listed(docker, "volume", `${LABELS.task}=${t.task}`), []);
        assert.ok((t.timings.services_ms ?? 0) > 0, JSON.stringify(t.timings));
        assert.ok(t.timings.services_ms! <= t.timings.start_ms);
        const requests = await Deno.readTextFile(path.join(dir, "requests.jsonl"));
        assert.match(requests, /hello-from-web/, "the tool's output, the sidecar's page, reached the model");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
}

dockerTest("pod: in shared mode the task's collect hooks run after the agent's turns, before the tests", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_pod_hooks_" });
  try {
    const task = path.join(dir, "task");
    await Deno.mkdir(path.join(task, "environment"), { recursive: true });
    await Deno.mkdir(path.join(task, "tests"));
    await Deno.writeTextFile(path.join(task, "instruction.md"), "Do nothing.\n");
    // The hook in `db` leaves a file only `db` has; the one in `main` copies what `db` answers into main's /tmp.
    await Deno.writeTextFile(
      path.join(task, "task.toml"),
      `[task]\nname = "pgs/pod-hooks"\n[environment]\ndocker_image = "pgs-base:1"\n` +
        `[[verifier.collect]]\ncommand = "python3 -c \\"import urllib.request as u; ` +
        `open('/tmp/hooked', 'w').write(u.urlopen('http://db:7000/').read().decode())\\""\n`,
    );
    await Deno.writeTextFile(
      path.join(task, "environment", "docker-compose.yaml"),
      "services:\n  db:\n    image: pgs-base:1\n    command: [sh, -c, 'mkdir -p /s && echo live > /s/index.html && " +
        "exec python3 -m http.server 7000 --directory /s']\n",
    );
    await Deno.writeTextFile(
      path.join(task, "tests", "test.sh"),
      "#!/bin/bash\nif grep -q live /tmp/hooked; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n",
    );
    const turns = [{
      tool_calls: [{ name: "bash", arguments: { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" } }],
    }];
    const run = path.join(dir, "run");
    await stubEval(dir, turns, ["--tasks", task, "--profile", "mini-swe-agent", "--out", run]);
    const [t] = latestById(readTrajectories(path.join(run, "trajectories.jsonl")));
    assert.equal(t.verifier_mode, "shared");
    assert.equal(t.reward, 1, t.test_output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest(
  "pod: HarborEnv warms a whole pod, resets into it, the agent's tool reaches the sidecar, and close leaves nothing",
  async () => {
    const docker = createRuntime("docker");
    const env = new HarborEnv({ runtime: docker });
    const row = { task_dir: path.join(FIXTURES, "http-sidecar") };
    try {
      assert.equal(await env.warm(row, 1), 1);
      for (let i = 0; i < 600 && (await env.warmCount(row)).ready < 1; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal((await env.warmCount(row)).ready, 1);
      // The warm box is a pod: main and its sidecar, both up before any reset.
      // Other test files run pods of the same fixture at once: this process's only (by its run id: a pid may have
      // been another process's, whose leftovers the next sweep removes).
      const warm = await listed(docker, "ps", `${POD_LABELS.service}=web`, `${LABELS.run}=${owner().run}`);
      assert.equal(warm.length, 1);
      const ep = await env.reset(row);
      try {
        const fetch = `python3 -c "import urllib.request as u; print(u.urlopen('http://web:8000/').read().decode())"`;
        const r = await ep.step({
          tool_calls: [{
            id: "c1",
            type: "function",
            function: { name: "bash", arguments: JSON.stringify({ command: fetch }) },
          }],
        });
        assert.match(String(r.observations[0].content), /hello-from-web/);
        await ep.step({
          content: "done",
          tool_calls: [{ id: "c2", type: "function", function: { name: "submit", arguments: "{}" } }],
        });
        const score = await ep.finish();
        assert.equal(score.reward, 1, score.verifierError);
      } finally {
        await ep.close();
      }
    } finally {
      await env.close();
    }
    // A removal the engine still has in hand shows in `ps -a` until it ends: a leak is what is still there after a
    // while, said with its labels.
    const mine = `${LABELS.run}=${owner().run}`;
    for (let i = 0; i < 100 && (await listed(docker, "ps", mine)).length; i++) {
      await new Promise((r) => setTimeout(r, 300));
    }
    const left = await listed(docker, "ps", mine);
    const ps = left.length
      ? await new Deno.Command("docker", { args: ["ps", "-a", "--format", "{{.ID}} {{.Status}} {{.Labels}}"] }).output()
      : undefined;
    assert.deepEqual(left, [], ps && new TextDecoder().decode(ps.stdout));
    assert.deepEqual(await listed(docker, "volume", mine), []);
  },
);

runtimeTest("pod: a pgs killed outright leaves a pod that the next process's sweep removes whole", async (rt) => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_pod_kill_" });
  const root = path.join(import.meta.dirname!, "..");
  const child = path.join(dir, "hold_pod.ts");
  // Starts a pod with a shared volume, says so, then waits to be killed.
  await Deno.writeTextFile(
    child,
    `import { loadTask } from ${JSON.stringify(path.join(root, "lib/task/task.ts"))};\n` +
      `import { ImageStore } from ${JSON.stringify(path.join(root, "lib/runtime/images.ts"))};\n` +
      `import { createRuntime } from ${JSON.stringify(path.join(root, "lib/runtime/registry.ts"))};\n` +
      `import { Sandbox } from ${JSON.stringify(path.join(root, "lib/runtime/sandbox.ts"))};\n` +
      `import { owner } from ${JSON.stringify(path.join(root, "lib/runtime/hygiene.ts"))};\n` +
      `const task = await loadTask(${JSON.stringify(path.join(FIXTURES, "shared-volume"))});\n` +
      `await Sandbox.start(task, new ImageStore(createRuntime(${JSON.stringify(rt.kind)})));\n` +
      `console.log("READY", owner().run);\nawait new Promise(() => {});\n`,
  );
  const proc = new Deno.Command(Deno.execPath(), { args: ["run", "-A", child], stdout: "piped", stderr: "null" })
    .spawn();
  try {
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let said = "";
    while (!said.includes("READY")) {
      const { value, done } = await reader.read();
      if (done) break;
      said += value;
    }
    // By the child's run id, not its pid: a pid may have been a dead process's, whose leftovers its sweep removes.
    const run = said.match(/READY (\S+)/)?.[1];
    assert.ok(run, said);
    const pid = `${LABELS.run}=${run}`;
    assert.equal((await listed(rt, "ps", pid)).length, 2, "main and writer run");
    assert.equal((await listed(rt, "volume", pid)).length, 1, "the shared volume exists");
    proc.kill("SIGKILL");
    await proc.status;
    reader.releaseLock();
    await createRuntime(rt.kind, rt.host ? { host: rt.host } : {}).sweepOrphans();
    assert.deepEqual(await listed(rt, "ps", pid), []);
    assert.deepEqual(await listed(rt, "volume", pid), []);
  } finally {
    try {
      proc.kill("SIGKILL");
    } catch { /* gone */ }
    await proc.stdout.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
