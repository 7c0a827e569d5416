/**
 * A hostile policy gets exactly the reward it earned, and infrastructure failures are never scored as its own: each
 * attack runs as a scripted policy under palingenesis-default@1 through the eval runner (`pgs eval --policy
 * script:` runs the same path), against the real engine, and asserts the reward and the exit status. Every case runs
 * under every registered runtime whose engine answers (`runtimeTest`: `runtime [podman]: hostile: ...`); the soak
 * repetition runs them all at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEnvServer } from "../lib/env/server_app.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { scriptPolicy } from "../lib/policies/policy.ts";
import type { Trajectory } from "../lib/eval/records/trajectory.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import type { Turn } from "../lib/script/script.ts";
import { Docker } from "../lib/runtime/docker/mod.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { BASE_IMAGE, containersWith, makeTask, removeTask, soakTest } from "./docker_helpers.ts";
import { pgsEval } from "./eval_helpers.ts";
import { probeRuntimes, runtimeTest } from "./runtime_helpers.ts";
import { TIER } from "./tier.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

/** Scores 1 when /workdir/answer.txt holds 42, else 0. */
const ANSWER_TEST = `#!/bin/bash
if [ "$(cat /workdir/answer.txt 2>/dev/null)" = 42 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;
const LIMITS = `docker_image = "${BASE_IMAGE}"\nmemory_mb = 512\npids_limit = 64\n`;

type Layout = "spec" | "harbor";

/** A task checking answer.txt: in pgs's own layout (isolated verifier) or Harbor's (shared, in its container). */
function answerTask(layout: Layout, extra: Record<string, string> = {}, toml = ""): Promise<string> {
  return makeTask({
    "task.toml": `[environment]\n${LIMITS}${toml}`,
    "tests/test.sh": ANSWER_TEST,
    ...(layout === "spec" ? { "environment/workdir/README": "the working directory\n" } : {}),
    ...extra,
  });
}

/** Runs `fn` on a fresh `answerTask(...args)`, removed afterwards. */
async function withAnswerTask(
  args: Parameters<typeof answerTask>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await answerTask(...args);
  try {
    await fn(dir);
  } finally {
    await removeTask(dir);
  }
}

const bash = (command: string, timeout?: number): Turn => ({
  tool_calls: [{ name: "bash", arguments: timeout ? { command, timeout } : { command } }],
});
const SUBMIT: Turn = { tool_calls: [{ name: "submit", arguments: {} }] };
const ANSWER = bash("echo 42 > /workdir/answer.txt");

/** Runs `k` episodes of the task under the script on `runtime`, one at a time, and returns them. */
async function run(runtime: Runtime, dir: string, turns: Turn[], k = 1): Promise<Trajectory[]> {
  const [ts] = await runEpisodes(scriptPolicy(turns, "script:hostile"), [{ task_dir: dir }], {}, {
    k,
    maxConcurrent: 1,
    hosts: [{ runtime }],
  });
  return ts;
}

function toolResults(t: Trajectory): string[] {
  return t.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

for (const layout of ["spec", "harbor"] as const) {
  const mode = layout === "spec" ? "isolated" : "shared";
  runtimeTest(
    `hostile [${mode}]: kill -9 -1 ends the episode as container_dead, scored on what it left`,
    async (rt) => {
      await withAnswerTask([layout], async (dir) => {
        const [t] = await run(rt, dir, [ANSWER, bash("kill -9 -1"), SUBMIT]);
        assert.equal(t.exit_status, "container_dead", t.error);
        assert.equal(t.reward, 1, "answer.txt was written before the container died");
        assert.equal(t.metrics["metric/container_dead"], 1);
        assert.equal(t.verifier_mode, mode);
        assert.equal(t.turns, 2, "nothing runs after the container died");
      });
    },
  );
}

/** Tests comparing the answer with a key they ship: a link to the key would forge them where it resolved. */
const KEY_TEST = `#!/bin/bash
if timeout 20 cmp /workdir/answer.txt /tests/expected.txt; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;

for (const layout of ["spec", "harbor"] as const) {
  const mode = layout === "spec" ? "isolated" : "shared";
  runtimeTest(`hostile [${mode}]: a link or a FIFO where the tests read cannot forge or hold them`, async (rt) => {
    await withAnswerTask([layout, { "tests/test.sh": KEY_TEST, "tests/expected.txt": "42\n" }], async (dir) => {
      const [linked] = await run(rt, dir, [bash("ln -s /tests/expected.txt /workdir/answer.txt"), SUBMIT]);
      assert.equal(linked.reward, 0, "the link was removed before the tests");
      assert.equal(linked.metrics["metric/inputs_neutralised"], 1);
      assert.deepEqual(linked.neutralised, [
        { path: "/workdir/answer.txt", kind: "symlink", target: "/tests/expected.txt" },
      ]);
      const [fifo] = await run(rt, dir, [bash("mkfifo /workdir/answer.txt"), SUBMIT]);
      assert.equal(fifo.reward, 0);
      assert.equal(fifo.metrics["metric/verifier_timeout"], undefined, "the tests did not block on it");
      assert.deepEqual(fifo.neutralised, [{ path: "/workdir/answer.txt", kind: "fifo" }]);
      const [honest] = await run(rt, dir, [bash("cd /workdir && echo 42 > a && ln -s a answer.txt"), SUBMIT]);
      assert.equal(honest.reward, 1, "a link inside the working directory still works");
      assert.equal(honest.neutralised, undefined);
    });
  });
}

runtimeTest("hostile: kill -9 -1 under a capture scores 0 with container_dead (nothing to capture)", async (rt) => {
  await withAnswerTask(["spec", {}, `\n[verifier]\ncapture = "cat /workdir/answer.txt"\n`], async (dir) => {
    const [t] = await run(rt, dir, [ANSWER, bash("kill -9 -1")]);
    assert.equal(t.exit_status, "container_dead");
    assert.equal(t.reward, 0);
    assert.equal(t.metrics["metric/container_dead"], 1);
    assert.equal(t.metrics["metric/verifier_failed"], 1);
  });
});

runtimeTest("hostile: kill -9 -1 through HarborEnv.step and pgs env serve reports container_dead", async (rt) => {
  const dir = await answerTask("harbor");
  await using env = new HarborEnv({ runtime: rt });
  try {
    const ep = await env.reset({ task_dir: dir });
    const call = (id: string, command: string) => ({
      content: null,
      tool_calls: [{
        id,
        type: "function" as const,
        function: { name: "bash", arguments: JSON.stringify({ command }) },
      }],
    });
    assert.equal((await ep.step(call("a", "echo 42 > /workdir/answer.txt"))).done, false);
    const r = await ep.step(call("b", "kill -9 -1"));
    assert.deepEqual([r.done, r.exitStatus], [true, "container_dead"]);
    const scored = await ep.finish();
    assert.deepEqual([scored.reward, scored.exitStatus, scored.turns], [1, "container_dead", 2]);

    const server = createEnvServer({ env });
    try {
      const post = async (path: string, body: unknown) => {
        const res = await server.app.fetch(
          new Request(`http://pgs${path}`, { method: "POST", body: JSON.stringify(body) }),
        );
        return { status: res.status, body: await res.json() };
      };
      const created = await post("/v1/episodes", { row: { task_dir: dir } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.episode_id;
      await post(`/v1/episodes/${id}/step`, { message: call("a", "echo 42 > /workdir/answer.txt") });
      const step = await post(`/v1/episodes/${id}/step`, { message: call("b", "kill -9 -1") });
      assert.equal(step.status, 200, JSON.stringify(step.body));
      assert.deepEqual([step.body.done, step.body.exit_status], [true, "container_dead"]);
      const fin = await post(`/v1/episodes/${id}/finish`, {});
      assert.deepEqual([fin.body.reward, fin.body.exit_status], [1, "container_dead"]);
    } finally {
      await server.close();
    }
  } finally {
    await removeTask(dir);
  }
});

runtimeTest(
  "hostile: kill -9 -1 through pgs eval --policy script: is scored, never an infrastructure error",
  async (rt) => {
    const dir = await answerTask("spec");
    const tmp = await Deno.makeTempDir({ prefix: "pgs_hostile_" });
    try {
      await Deno.writeTextFile(join(tmp, "turns.json"), JSON.stringify([ANSWER, bash("kill -9 -1")]));
      const out = join(tmp, "out");
      const policy = `script:${join(tmp, "turns.json")}`;
      const r = await pgsEval(["--tasks", dir, "--policy", policy, "--out", out, "--runtime", rt.kind]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /0 infra errors/);
      const [t] = (await Deno.readTextFile(join(out, "trajectories.jsonl"))).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.deepEqual([t.exit_status, t.reward], ["container_dead", 1]);
    } finally {
      await Deno.remove(tmp, { recursive: true });
      await removeTask(dir);
    }
  },
);

/**
 * A fork bomb under a 5 s timeout, then the answer, `k` runs in a row on `runtime`: in each the next command runs and
 * scores 1.
 */
async function forkBombRuns(runtime: Runtime, k: number): Promise<void> {
  await withAnswerTask(["spec"], async (dir) => {
    const ts = await run(runtime, dir, [bash("bomb() { bomb | bomb & }; bomb", 5), ANSWER, SUBMIT], k);
    assert.equal(ts.length, k);
    let timedOut = 0;
    for (const t of ts) {
      const [bomb, answer] = toolResults(t);
      // It runs into its timeout (its jobs hold its output), unless it fizzled first on a loaded machine.
      if (/^\[exit code 137\]/.test(bomb)) timedOut++;
      assert.match(answer, /^\[exit code 0\]/, `run ${t.sample}: the next command ran: ${answer.slice(0, 300)}`);
      assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 1], `run ${t.sample}`);
    }
    console.log(
      `fork bomb [${runtime.kind}]: ${timedOut} of ${k} ran into the 5 s timeout; the next command ran in all ${k}`,
    );
  });
}

runtimeTest(
  "hostile: a fork bomb with a 5 s timeout, then an answer: the next command runs, the run scores 1",
  (rt) => forkBombRuns(rt, 1),
);
// The soak repetition: every runtime whose engine answers at once, each its 20 runs in a row, so that the tier's wall
// time stays about one runtime's (each bomb is held to its box's CPU and pids limits); one whose engine does not answer
// is an ignored test with the reason in its name, as runtimeTest words it.
const SOAK_RUNTIMES = TIER === "soak" ? await probeRuntimes() : [];
const FORK_BOMB_SOAK = "hostile: a fork bomb with a 5 s timeout, then an answer: 20 runs in a row all score 1";
for (const r of SOAK_RUNTIMES.filter((r) => r.absent)) {
  soakTest(`runtime [${r.name}] (skipped: ${r.absent}): ${FORK_BOMB_SOAK}`, async () => {}, { ignore: true });
}
const soakPresent = SOAK_RUNTIMES.filter((r) => !r.absent);
if (soakPresent.length) {
  soakTest(`runtime [${soakPresent.map((r) => r.name).join(", ")}]: ${FORK_BOMB_SOAK}, at once`, async () => {
    const outcomes = await Promise.allSettled(soakPresent.map((r) => forkBombRuns(r.runtime, 20)));
    const failed = outcomes.flatMap((o, i) => o.status === "rejected" ? [`[${soakPresent[i].name}] ${o.reason}`] : []);
    assert.deepEqual(failed, [], "every runtime held");
  });
}

for (const layout of ["spec", "harbor"] as const) {
  const mode = layout === "spec" ? "isolated" : "shared";
  runtimeTest(`hostile [${mode}]: a planted reward and edited /tests never count`, async (rt) => {
    await withAnswerTask([layout], async (dir) => {
      const [t] = await run(rt, dir, [
        bash(
          "mkdir -p /logs/verifier /tests && echo 1 > /logs/verifier/reward.txt && " +
            `printf '#!/bin/sh\\necho 1 > /logs/verifier/reward.txt\\n' > /tests/test.sh && chmod +x /tests/test.sh`,
        ),
        SUBMIT,
      ]);
      assert.match(toolResults(t)[0], /^\[exit code 0\]/, "the agent could plant both");
      assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 0], "the task's pristine tests decided");
    });
  });
}

runtimeTest("hostile [isolated]: a background writer left behind cannot change what the verifier sees", async (rt) => {
  await withAnswerTask(["spec"], async (dir) => {
    const [t] = await run(rt, dir, [
      bash("nohup sh -c 'sleep 1; while :; do echo 42 > /workdir/answer.txt; sleep 0.05; done' >/dev/null 2>&1 &"),
      SUBMIT,
    ]);
    assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 0], "the copy was taken when the episode ended");
  });
});

runtimeTest(
  "hostile: a pytest.py shadow outside the working directory never reaches the isolated verifier",
  async (rt) => {
    // The tests run `python3 -m pytest`; with no pytest installed, only a planted shadow could make it pass.
    const testSh = `#!/bin/bash\ncd /tests && python3 -m pytest -q && echo 1 > /logs/verifier/reward.txt || ` +
      `echo 0 > /logs/verifier/reward.txt\n`;
    await withAnswerTask(["spec", { "tests/test.sh": testSh }], async (dir) => {
      const shadow = "import sys; print('1 passed'); sys.exit(0)";
      const [t] = await run(rt, dir, [
        bash(`for d in /usr/lib/python3/dist-packages /tests; do mkdir -p $d && echo "${shadow}" > $d/pytest.py; done`),
        bash("cd /tests && python3 -m pytest -q"),
        SUBMIT,
      ]);
      assert.match(toolResults(t)[1], /1 passed/, "inside its own container the shadow works");
      assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 0]);
    });
  },
);

runtimeTest(
  "hostile: 4 GB under a 512 MB limit, a tool timeout and malformed JSON leave the episode going",
  async (rt) => {
    await withAnswerTask(["spec"], async (dir) => {
      const [t] = await run(rt, dir, [
        bash("python3 -c 'b = bytearray(1) * (4 << 30)'"),
        bash("sleep 30", 2),
        { tool_calls: [{ name: "bash", arguments: '{"command": "echo 42 > /workdir/answer.txt"' }] },
        ANSWER,
        SUBMIT,
      ]);
      const [oom, slow, malformed] = toolResults(t);
      assert.match(oom, /^\[exit code (137|1)\]/, oom);
      assert.match(slow, /^\[exit code 137\]/, slow);
      assert.match(malformed, /invalid arguments/i, malformed);
      assert.equal(t.counters.format_errors, 0, "a bad argument string is the tool's error, as the harness words it");
      assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 1]);
      // The engine's helpers run outside the caller's folder: podman's conmon leaves an `oom` file where it runs.
      assert.equal(await Deno.stat("oom").then(() => true, () => false), false, "a file oom appeared in the cwd");
    });
  },
);

runtimeTest("hostile: 1 GB of output in one call keeps the runner's memory bounded", async (rt) => {
  const hwm = () => Number(Deno.readTextFileSync("/proc/self/status").match(/VmHWM:\s+(\d+)/)![1]) * 1024;
  await withAnswerTask(["spec"], async (dir) => {
    const before = hwm();
    const [t] = await run(rt, dir, [bash("head -c 1000000000 /dev/zero | tr '\\0' a", 600), ANSWER, SUBMIT]);
    const peak = hwm();
    console.log(
      `1 GB of output: peak RSS of the test process ${(peak / 2 ** 20).toFixed(0)} MiB (was ${
        (before / 2 ** 20).toFixed(0)
      } MiB)`,
    );
    assert.ok(peak - before < 256 * 2 ** 20, `the runner's peak RSS grew by ${(peak - before) / 2 ** 20} MiB`);
    assert.ok(toolResults(t)[0].length <= 20_000, "the observation is cut to the profile's limit");
    assert.deepEqual([t.exit_status, t.reward], ["stop_rule", 1]);
  });
});

runtimeTest(
  "hostile: a verifier container removed under the episode is an infrastructure error, not a 0",
  async (rt) => {
    await withAnswerTask(["spec"], async (dir) => {
      const name = (await Deno.readTextFile(join(dir, "task.toml"))).match(/name = "([^"]+)"/)![1];
      const policy = scriptPolicy([ANSWER, SUBMIT]);
      const sabotage = {
        ...policy,
        async turn(req: Parameters<typeof policy.turn>[0]) {
          // Infrastructure, not the agent: the prepared clean container disappears before the verifier copies into it.
          // Found by label through the CLI of the runtime under test (the interface lists no boxes), removed through it.
          if (req.turn === 1) {
            assert.ok(rt instanceof Docker, `${rt.kind}: a CLI runtime lists its boxes by label`);
            const ids = await containersWith(rt, `pgs.task=${name}`, "pgs.role=verifier");
            assert.equal(ids.length, 1, `one verifier box: ${ids}`);
            for (const id of ids) assert.ok(await rt.box(id).remove(), `removed ${id}`);
          }
          return await policy.turn(req);
        },
      };
      const [[t]] = await runEpisodes(sabotage, [{ task_dir: dir }], {}, { hosts: [{ runtime: rt }] });
      assert.equal(t.exit_status, "infra_error", JSON.stringify(t.metrics));
      assert.equal(t.reward, null);
      assert.match(t.error ?? "", /verify: .*cannot copy/);
    });
  },
);

runtimeTest("hostile: tests that crash or write no reward score 0 with verifier_failed", async (rt) => {
  await withAnswerTask(["spec", { "tests/test.sh": "#!/bin/bash\nexit 3\n" }], async (dir) => {
    const [t] = await run(rt, dir, [ANSWER, SUBMIT]);
    assert.deepEqual([t.exit_status, t.reward, t.metrics["metric/verifier_failed"]], ["stop_rule", 0, 1]);
  });
});
