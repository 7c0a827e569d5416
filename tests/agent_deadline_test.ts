/**
 * The agent timeout is one deadline for the whole episode: a hung tool call (solve.sh of `sleep 1000` under
 * `[agent] timeout_sec = 5`) is killed when the deadline passes and the episode ends as `timeout`, under every
 * built-in profile (whatever timeout its shell tool asks for), in `pgs eval`'s runner and through `pgs env serve`.
 */
import assert from "node:assert/strict";
import { oraclePolicy } from "../lib/policies/policy.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { createEnvServer } from "../lib/env/server_app.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { getProfile, profileNames, resolveProfileName } from "../lib/harness/registry.ts";
import { AgentTimeoutError } from "../lib/base/errors.ts";
import { DeadlineExecEnv } from "../lib/runtime/deadline_env.ts";
import { LocalExecEnv } from "../lib/runtime/local_env.ts";
import { dockerTest, makeTask, removeTask } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const TIMEOUT_SEC = 5;
/** Every file-writing effect of solve.sh happens before it hangs, so the verifier sees a partial solution. */
const HUNG_TASK = {
  "task.toml":
    `[environment]\ndocker_image = "pgs-base:1"\nworkdir = "/workdir"\n\n[agent]\ntimeout_sec = ${TIMEOUT_SEC}\n`,
  "instruction.md": "Write done.txt, then wait.\n",
  "solution/solve.sh": "#!/bin/bash\necho started > started.txt\nsleep 1000\necho done > done.txt\n",
  // The reward says what the agent left: 0.5 for a solve.sh that started and was killed before it finished.
  "tests/test.sh": "#!/bin/bash\nmkdir -p /logs/verifier\nr=0\n[ -f /workdir/started.txt ] && r=0.5\n" +
    "[ -f /workdir/done.txt ] && r=1\necho $r > /logs/verifier/reward.txt\n",
};

Deno.test("DeadlineExecEnv: a command past the deadline is killed and raises AgentTimeoutError", async () => {
  await using local = await LocalExecEnv.create();
  const deadline = performance.now() + 300;
  const env = new DeadlineExecEnv(local, () => deadline, 7);
  // Finishing well inside the deadline: the result as the inner environment gave it.
  const ok = await env.exec("echo hi", { timeoutSec: 600 });
  assert.equal(new TextDecoder().decode(ok.stdout), "hi\n");
  // A command that asked for ten minutes is cut to the time left.
  await assert.rejects(
    () => env.exec(`sleep 30; echo late > ${local.workdir}/late.txt`, { timeoutSec: 600 }),
    (e) => e instanceof AgentTimeoutError && e.message === "agent timed out after 7 s",
  );
  // Killed, not abandoned: what it would have written next never appears.
  await assert.rejects(() => Deno.stat(`${local.workdir}/late.txt`), Deno.errors.NotFound);
  // After the deadline nothing runs.
  await assert.rejects(() => env.exec("true"), AgentTimeoutError);
});

dockerTest("agent timeout: a hung tool call ends the episode as timeout under every built-in profile", async () => {
  const dir = await makeTask(HUNG_TASK);
  try {
    const names = profileNames().map(resolveProfileName);
    const rows = names.map((p) => ({ task_dir: dir, harness_profile: p }));
    const groups = await runEpisodes(oraclePolicy(), rows, {}, { k: 1, maxConcurrent: 6 });
    const ts = groups.flat();
    assert.equal(ts.length, names.length);
    for (const t of ts) {
      assert.equal(t.exit_status, "timeout", `${t.profile}: ${t.error ?? ""}`);
      assert.equal(t.agent_timeout_sec, TIMEOUT_SEC);
      // solve.sh started, and was killed before its last line: the verifier scores what it left.
      assert.equal(t.reward, 0.5, t.profile);
    }
  } finally {
    await removeTask(dir);
  }
});

/** A turn that hangs in the profile's own shell tool, in its protocol (what a policy would send). */
function hangTurn(name: string): Record<string, unknown> {
  const profile = getProfile(name);
  const p = profile.protocol;
  if (p.kind === "terminus_json") {
    const commands = [{ keystrokes: "echo waiting; sleep 1000\n", duration: 600 }];
    return { content: JSON.stringify({ analysis: "", plan: "", commands, task_complete: false }) };
  }
  const shell = profile.shell!;
  const command = `${shell.prefix ?? ""}echo waiting; sleep 1000`;
  if (p.kind === "fenced") return { content: `\`\`\`${p.lang}\n${command}\n\`\`\`` };
  const args = JSON.stringify({ [shell.arg]: command });
  return { content: "", tool_calls: [{ id: "c1", type: "function", function: { name: shell.tool, arguments: args } }] };
}

dockerTest(
  "agent timeout: env serve ends a hung tool call's episode as timeout under every built-in profile",
  async () => {
    const dir = await makeTask(HUNG_TASK);
    const names = profileNames().map(resolveProfileName);
    const env = new HarborEnv({ profiles: Object.fromEntries(names.map((n) => [n, 1])) });
    const server = createEnvServer({ env });
    const call = async (path: string, body?: unknown) => {
      const r = await server.app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      });
      return { status: r.status, json: await r.json() };
    };
    try {
      const ended = await Promise.all(names.map(async (name) => {
        const reset = await call("/v1/episodes", { row: { task_dir: dir, harness_profile: name } });
        assert.equal(reset.status, 201, JSON.stringify(reset.json));
        const id = reset.json.episode_id;
        const step = await call(`/v1/episodes/${id}/step`, hangTurn(name));
        assert.equal(step.status, 200, `${name}: ${JSON.stringify(step.json)}`);
        const fin = await call(`/v1/episodes/${id}/finish`);
        return [name, step.json.done, step.json.exit_status, fin.json.exit_status];
      }));
      assert.deepEqual(ended, names.map((n) => [n, true, "timeout", "timeout"]));
    } finally {
      await server.close();
      await env.close();
      await removeTask(dir);
    }
    assert.equal(env.openEpisodes, 0);
  },
);
