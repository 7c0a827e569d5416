/** The verifier against a real engine: reward files, failures, isolation from the agent's container, capture. */
import assert from "node:assert/strict";
import { text } from "../lib/runtime/channel.ts";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import type { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { verify, type VerifyOptions, type VerifyResult } from "../lib/verify/verifier.ts";
import type { VerifierMode } from "../lib/task/verifier_mode.ts";
import { BASE_IMAGE, containersWith, dockerTest, makeTask, removeTask, waitFor } from "./docker_helpers.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";

/** A test.sh prelude. */
const SH = "#!/bin/bash\nmkdir -p /logs/verifier\n";

/**
 * Makes a task from `files`, starts its sandbox, runs `agent` in it, verifies with `finalMessage`, and removes it all.
 * Checks that no container of the task (the verifier's in particular) is left, and returns the verifier's result.
 */
async function episode(
  docker: Docker,
  files: Record<string, string>,
  agent: (box: Sandbox) => Promise<void> = async () => {},
  finalMessage = "",
  opts: VerifyOptions = {},
  mode: VerifierMode = "isolated",
): Promise<VerifyResult> {
  const dir = await makeTask(files);
  try {
    const task = await loadTask(dir);
    const { box, verifier } = await startBoxes(task, new ImageStore(docker), { verifierMode: mode });
    let result: VerifyResult;
    try {
      await agent(box);
      result = await verify(box, finalMessage, { ...opts, verifier });
    } finally {
      await box.remove();
    }
    // Neither the episode's container nor the verifier's is left once the sandbox is removed.
    assert.deepEqual(await containersWith(docker, `pgs.task=${task.name}`), []);
    return result;
  } finally {
    await removeTask(dir);
  }
}

/** Runs a script in the sandbox and requires it to succeed. */
async function run(box: Sandbox, script: string): Promise<void> {
  const r = await box.exec(script, { timeoutSec: 60 });
  assert.equal(r.exitCode, 0, `${script}: ${text(r.stderr)}`);
}

dockerTest("verifier: reward.txt", async (docker) => {
  const v = await episode(docker, { "tests/test.sh": `${SH}echo testing\necho 0.25 > /logs/verifier/reward.txt\n` });
  assert.equal(v.reward, 0.25);
  assert.deepEqual(v.metrics, {});
  assert.equal(v.error, undefined);
  assert.equal(v.testOutput, "testing\n");
});

dockerTest("verifier: reward.json's reward key, else its first key, and its metrics", async (docker) => {
  const json = `{"score": 0.3, "reward": 0.7, "n": 2, "ok": true, "note": "text"}`;
  const files = {
    "tests/test.sh": `${SH}echo '${json}' > /logs/verifier/reward.json\necho 0.1 > /logs/verifier/reward.txt\n`,
  };
  const v = await episode(docker, files);
  assert.equal(v.reward, 0.7, "reward.json wins over reward.txt, its reward key over the first");
  assert.deepEqual(v.metrics, { score: 0.3, reward: 0.7, n: 2, ok: 1 });

  const first = await episode(docker, {
    "tests/test.sh": `${SH}echo '{"acc": 0.4, "n": 5}' > /logs/verifier/reward.json\n`,
  });
  assert.equal(first.reward, 0.4);
  assert.deepEqual(first.metrics, { acc: 0.4, n: 5 });
});

dockerTest("verifier: the rewardKey option picks the component", async (docker) => {
  const v = await episode(
    docker,
    { "tests/test.sh": `${SH}echo '{"reward": 0.7, "strict": 0.2}' > /logs/verifier/reward.json\n` },
    undefined,
    "",
    { rewardKey: "strict" },
  );
  assert.equal(v.reward, 0.2);
  assert.deepEqual(v.metrics, { reward: 0.7, strict: 0.2 });
});

dockerTest("verifier: writing no reward scores 0 with verifier_failed", async (docker) => {
  const v = await episode(docker, { "tests/test.sh": `${SH}echo all good, I think\nexit 0\n` });
  assert.equal(v.reward, 0);
  assert.equal(v.metrics.verifier_failed, 1);
  assert.match(v.error ?? "", /neither \/logs\/verifier\/reward\.txt nor reward\.json/);
  assert.equal(v.testOutput, "all good, I think\n");
});

dockerTest("verifier: a crashing verifier scores 0 with verifier_failed", async (docker) => {
  const crash = await episode(docker, {
    "tests/test.sh": `${SH}echo 'Traceback: boom' >&2\nkill -SEGV $$\necho 1 > /logs/verifier/reward.txt\n`,
  });
  assert.equal(crash.reward, 0);
  assert.equal(crash.metrics.verifier_failed, 1);
  assert.match(crash.testOutput, /Traceback: boom/);

  const badInterpreter = await episode(docker, { "tests/test.sh": "#!/no/such/interpreter\necho 1\n" });
  assert.equal(badInterpreter.reward, 0);
  assert.equal(badInterpreter.metrics.verifier_failed, 1);

  const badJson = await episode(docker, { "tests/test.sh": `${SH}echo '{"reward": ' > /logs/verifier/reward.json\n` });
  assert.equal(badJson.reward, 0);
  assert.equal(badJson.metrics.verifier_failed, 1);
  assert.match(badJson.error ?? "", /reward\.json is not JSON/);
});

dockerTest("verifier: a verifier that times out scores 0 and leaves no container", async (docker) => {
  // The timeout cut the run (its metric), the reward written before it does not count, and `episode` checks that
  // no container is left.
  const v = await episode(docker, {
    "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\n[verifier]\ntimeout_sec = 2\n`,
    "tests/test.sh": `${SH}echo 1 > /logs/verifier/reward.txt\nsleep 120\n`,
  });
  assert.equal(v.reward, 0);
  assert.equal(v.metrics.verifier_failed, 1);
  assert.equal(v.metrics.verifier_timeout, 1);
  assert.match(v.error ?? "", /timed out after 2 s/);
});

dockerTest("verifier: a reward planted by the agent, and its background processes, do not count", async (docker) => {
  // The tests score 1 only when they find a reward file already there, or a process of the agent's.
  const testSh = `${SH}planted=0; [ -e /logs/verifier/reward.txt ] && planted=1
procs=$(ps -eo args | grep -c '[p]lant-loop')
echo "planted=$planted procs=$procs"
if [ $planted = 1 ] || [ "$procs" != 0 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;
  const v = await episode(docker, { "tests/test.sh": testSh }, async (box) => {
    await run(box, "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt");
    await run(box, "mkdir -p /logs/verifier && echo '{\"reward\": 1}' > /logs/verifier/reward.json");
    await run(
      box,
      "nohup bash -c 'exec -a plant-loop bash -c \"while :; do mkdir -p /logs/verifier; " +
        "echo 1 > /logs/verifier/reward.txt; sleep 0.05; done\"' >/dev/null 2>&1 &",
    );
    const ps = await box.exec("ps -eo args");
    assert.match(text(ps.stdout), /plant-loop/);
  });
  assert.equal(v.testOutput, "planted=0 procs=0\n");
  assert.equal(v.reward, 0);
  assert.deepEqual(v.metrics, {});
});

dockerTest("verifier: only the working directory carries over from the agent's container", async (docker) => {
  const dockerfile =
    `FROM ${BASE_IMAGE}\nRUN mkdir -p /workdir && echo baked > /workdir/baked.txt && echo tool > /opt/tool\n`;
  const testSh = `${SH}cd /workdir
check() { if eval "$1"; then echo "\\"$2\\": 1,"; else echo "\\"$2\\": 0,"; fi; }
{
  echo '{"reward": 1,'
  check '[ -f /workdir/new.txt ] && [ "$(cat /workdir/new.txt)" = made ]' new_in_workdir
  check '[ -f /workdir/sub/deep.txt ]' deep_in_workdir
  check '[ "$(cat /workdir/kept.txt)" = changed ]' edited_staged
  check '[ ! -e /workdir/staged.txt ]' deleted_staged_gone
  check '[ ! -e /workdir/baked.txt ]' deleted_baked_gone
  check '[ ! -e /tmp/outside.txt ]' tmp_absent
  check '[ ! -e /root/outside.txt ]' home_absent
  check '[ ! -e /etc/outside.conf ]' etc_absent
  check '[ "$(cat /opt/tool)" = tool ]' pristine_tool
  echo '"done": 1}'
} > /logs/verifier/reward.json
cat /logs/verifier/reward.json
`;
  const v = await episode(docker, {
    "task.toml": `[environment]\nworkdir = "/workdir"\n`,
    "environment/Dockerfile": dockerfile,
    "environment/workdir/staged.txt": "staged\n",
    "environment/workdir/kept.txt": "kept\n",
    "tests/test.sh": testSh,
  }, async (box) => {
    await run(box, "test -f baked.txt && test -f staged.txt");
    await run(box, "echo made > new.txt && mkdir -p sub && echo d > sub/deep.txt && echo changed > kept.txt");
    await run(box, "rm staged.txt baked.txt");
    await run(box, "echo x > /tmp/outside.txt; echo x > /root/outside.txt; echo x > /etc/outside.conf");
    await run(box, "echo patched > /opt/tool");
  });
  assert.equal(v.error, undefined, v.testOutput);
  assert.deepEqual(v.metrics, {
    reward: 1,
    new_in_workdir: 1,
    deep_in_workdir: 1,
    edited_staged: 1,
    deleted_staged_gone: 1,
    deleted_baked_gone: 1,
    tmp_absent: 1,
    home_absent: 1,
    etc_absent: 1,
    pristine_tool: 1,
    done: 1,
  });
});

dockerTest("verifier: final_message.md holds the final message", async (docker) => {
  const message = 'The answer is 42.\nIt\'s "quoted", with a \\ and ✓ 🚀\n\nlast line without newline';
  const v = await episode(
    docker,
    {
      "tests/expected.md": message,
      "tests/test.sh": `${SH}cat /logs/agent/final_message.md
if cmp -s /logs/agent/final_message.md /tests/expected.md; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`,
    },
    undefined,
    message,
  );
  assert.equal(v.testOutput, message);
  assert.equal(v.reward, 1);

  const empty = await episode(docker, {
    "tests/test.sh": `${SH}[ -f /logs/agent/final_message.md ] && [ ! -s /logs/agent/final_message.md ] && echo 1 ` +
      `> /logs/verifier/reward.txt\n`,
  });
  assert.equal(empty.reward, 1, "an empty final message is an empty file");
});

dockerTest("verifier: capture.json holds the capture's stdout, taken live as root", async (docker) => {
  const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\n[verifier]\n` +
    `capture = "printf '{\\"state\\": \\"%s\\", \\"uid\\": %s}' \\"$(cat /tmp/state)\\" \\"$(id -u)\\""\n`;
  const v = await episode(docker, {
    "task.toml": toml,
    "tests/test.sh": `${SH}cat /logs/agent/capture.json
python3 -c 'import json; d = json.load(open("/logs/agent/capture.json")); print(1 if d["state"] == "live" else 0)' \\
  > /logs/verifier/reward.txt
`,
  }, async (box) => {
    await run(box, "echo live > /tmp/state");
  });
  assert.equal(v.testOutput, `{"state": "live", "uid": 0}`);
  assert.equal(v.reward, 1);
  assert.equal(v.error, undefined);
});

dockerTest("verifier: without capture, no capture.json", async (docker) => {
  const v = await episode(docker, {
    "tests/test.sh": `${SH}[ ! -e /logs/agent/capture.json ] && echo 1 > /logs/verifier/reward.txt\n`,
  });
  assert.equal(v.reward, 1);
});

for (const how of ["kill -9 -1 as root inside", "docker kill"] as const) {
  dockerTest(`verifier: a dead container with capture scores 0 with container_dead (${how})`, async (docker) => {
    const toml = `[environment]\ndocker_image = "${BASE_IMAGE}"\n[verifier]\ncapture = "echo '{}'"\n`;
    const v = await episode(docker, {
      "task.toml": toml,
      "tests/test.sh": `${SH}echo 1 > /logs/verifier/reward.txt\n`,
    }, async (box) => {
      assert.equal(box.image.user, "", "the image user is root");
      if (how === "docker kill") {
        await docker.ok(["kill", box.id], "kill");
      } else {
        // The kill takes the channel with it: the call itself may fail.
        await box.exec("kill -9 -1", { timeoutSec: 20 }).catch(() => {});
      }
      assert.ok(await waitFor(async () => !await box.running(), 15_000), "the container is still running");
    });
    assert.equal(v.reward, 0);
    assert.equal(v.metrics.container_dead, 1);
    assert.equal(v.metrics.verifier_failed, 1);
    assert.match(v.error ?? "", /not running/);
  });
}

dockerTest("verifier: /tests holds the task's tests/ whole (subfolders, modes, long names), beside the workdir", async (
  docker,
) => {
  const long = `${"d".repeat(60)}/${"f".repeat(60)}.txt`;
  const v = await episode(docker, {
    "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\nworkdir = "/srv/tests"\n`,
    "tests/test.sh": `${SH}cd /tests && find . -type f | sort | while read -r f; do stat -c '%a %n' "$f"; done\n` +
      `ls -A /srv/tests; ls -A / | grep -c pgs\nbash helpers/ok.sh > /logs/verifier/reward.txt\n`,
    "tests/helpers/ok.sh": "echo 1\n",
    [`tests/${long}`]: "x\n",
    "environment/workdir/tests/inner.txt": "the agent's\n",
  }, (box) => run(box, "echo mine > mine.txt"));
  assert.equal(v.reward, 1, v.error);
  assert.equal(
    v.testOutput,
    [`644 ./${long}`, "755 ./helpers/ok.sh", "755 ./test.sh", "mine.txt", "tests", "0", ""].join("\n"),
  );
});
