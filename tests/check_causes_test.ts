/**
 * `harbor check` says why an oracle failed: a hung solve.sh is "agent timed out after N s" with its exit status in
 * --json, and the network hint is given only where the oracle's output shows a failed network call.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { dockerTest, makeTask, removeTask } from "./docker_helpers.ts";
import { pgs } from "./eval_helpers.ts";

/** A test.sh that scores 0, whatever the agent did. */
const FAIL_TEST_SH = "#!/bin/bash\nmkdir -p /logs/verifier\necho 0 > /logs/verifier/reward.txt\n";

/** The oracle's tasks, each leaving the network unset (Harbor would allow it; pgs runs with none). */
const TASKS: Record<string, Record<string, string>> = {
  hung: {
    "task.toml": `[task]\nname = "pgs-test/check-hung"\n\n[environment]\ndocker_image = "pgs-base:1"\n\n` +
      `[agent]\ntimeout_sec = 3\n`,
    "solution/solve.sh": "#!/bin/bash\nsleep 1000\n",
    "tests/test.sh": FAIL_TEST_SH,
  },
  resolver: {
    "task.toml": `[task]\nname = "pgs-test/check-resolver"\n\n[environment]\ndocker_image = "pgs-base:1"\n`,
    // A real lookup with no network: Python prints the resolver's failure on stderr.
    "solution/solve.sh": "#!/bin/bash\npython3 -c 'import socket; socket.getaddrinfo(\"example.com\", 80)'\n",
    "tests/test.sh": FAIL_TEST_SH,
  },
  "no-reward": {
    "task.toml": `[task]\nname = "pgs-test/check-no-reward"\n\n[environment]\ndocker_image = "pgs-base:1"\n`,
    "solution/solve.sh": "#!/bin/bash\necho solved\n",
    "tests/test.sh": "#!/bin/bash\necho 'nothing written'\n",
  },
};

dockerTest("harbor check: the cause of a failed oracle, and the network hint only with evidence", async () => {
  const dirs = await Promise.all(Object.values(TASKS).map((files) => makeTask(files)));
  const parent = await Deno.makeTempDir({ prefix: "pgs_check_causes_" });
  try {
    for (const [i, name] of Object.keys(TASKS).entries()) await Deno.rename(dirs[i], join(parent, name));
    const r = await pgs(["harbor", "check", parent, "--json"]);
    assert.equal(r.code, 1, r.stderr);
    const by = Object.fromEntries(JSON.parse(r.stdout).map((x: { name: string }) => [x.name, x]));

    const hung = by["pgs-test/check-hung"];
    assert.equal(hung.oracle_exit_status, "timeout");
    assert.equal(hung.nop_exit_status, "stop_rule");
    assert.match(hung.error, /^oracle scored 0, must be 1 \(agent timed out after 3 s/);
    assert.deepEqual(hung.hints, [], "a timeout is not a network failure");

    const resolver = by["pgs-test/check-resolver"];
    assert.equal(resolver.oracle_exit_status, "stop_rule");
    assert.notEqual(resolver.oracle_exit_code, 0);
    assert.match(resolver.oracle_stderr, /gaierror|name resolution|not known/);
    assert.equal(resolver.hints.length, 1);
    assert.match(resolver.hints[0], /allow_internet = true/);

    const noReward = by["pgs-test/check-no-reward"];
    assert.equal(noReward.oracle_exit_status, "stop_rule");
    assert.match(noReward.error, /oracle scored 0/);
    assert.deepEqual(noReward.hints, [], "no network call failed");
  } finally {
    await Deno.remove(parent, { recursive: true });
    for (const d of dirs) await removeTask(d).catch(() => {});
  }
});
