/**
 * Each phase's network as Harbor plans it (lib/task/network_plan.ts), seen from inside the boxes on every runtime:
 * the oracle counts the interfaces its box has besides `lo` while the agent phase runs, and test.sh counts them while
 * the tests run. The public network is an `--internal` one the test makes (no route anywhere), named through
 * `RuntimeOptions.network`, so that "the network" is an interface a box has or lacks on any engine.
 */
import assert from "node:assert/strict";
import { checkTask } from "../lib/harbor/check.ts";
import type { VerifierMode } from "../lib/task/verifier_mode.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { BASE_IMAGE, makeTask, removeTask } from "./docker_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const NET = "pgs-test-phases";
const COUNT = `tail -n +3 /proc/net/dev | grep -vc '^ *lo:'`;

/** The oracle records its box's interfaces where every mode's tests can read them (the workdir, /logs/artifacts). */
const SOLVE =
  `#!/bin/bash\nn=$(${COUNT}); mkdir -p /logs/artifacts; echo $n > /logs/artifacts/agent_net; echo $n > agent_net\n`;
const TEST = `#!/bin/bash
a=$(cat /logs/artifacts/agent_net 2>/dev/null || cat agent_net 2>/dev/null || echo -1)
v=$(${COUNT})
s=$(cat /app/setup_net 2>/dev/null || echo -1)
printf '{"reward": 1, "agent_net": %s, "verifier_net": %s, "setup_net": %s}' "$a" "$v" "$s" > /logs/verifier/reward.json
`;

/** A client of `runtime`'s engine whose public network is the test's internal one (made when missing). */
async function onInternalNetwork(runtime: Runtime): Promise<Runtime> {
  const bin = runtime.kind;
  const run = (args: string[]) => new Deno.Command(bin, { args, stdout: "null", stderr: "piped" }).output();
  const seen = await run(["network", "inspect", NET]);
  if (!seen.success) {
    const made = await run(["network", "create", "--internal", NET]);
    const said = new TextDecoder().decode(made.stderr);
    assert.ok(made.success || /already exists/.test(said), said);
  }
  return createRuntime(runtime.kind, { network: NET });
}

/** The interfaces (besides lo) the agent phase and the test phase saw, running `toml`'s task in `mode`. */
async function phases(runtime: Runtime, toml: string, mode: VerifierMode): Promise<[number, number]> {
  const dir = await makeTask({
    "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\nworkdir = "/app"\n${toml}`,
    "solution/solve.sh": SOLVE,
    "tests/test.sh": TEST,
  });
  try {
    const r = await checkTask(dir, { runtime, verifierMode: mode });
    const m = r.oracle?.metrics ?? {};
    assert.equal(r.oracle?.reward, 1, JSON.stringify({ error: r.error, oracle: r.oracle }));
    return [m.agent_net, m.verifier_net];
  } finally {
    await removeTask(dir);
  }
}

runtimeTest(
  "network phases: the tests get [verifier]'s network in the agent's box, a snapshot and a clean box",
  async (base) => {
    const runtime = await onInternalNetwork(base);
    const publicTests = `network_mode = "no-network"\n[verifier]\nnetwork_mode = "public"\n`;
    for (const mode of ["shared", "shared-clean", "snapshot", "isolated"] as const) {
      assert.deepEqual(
        await phases(runtime, publicTests, mode),
        [0, 1],
        `${mode}: public tests after an offline agent`,
      );
    }
    // An allowlist pgs cannot enforce is never widened: the agent's public network is taken away for the tests.
    const allowlist = `network_mode = "public"\n[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]\n`;
    for (const mode of ["shared", "snapshot", "isolated"] as const) {
      assert.deepEqual(
        await phases(runtime, allowlist, mode),
        [1, 0],
        `${mode}: allowlisted tests after a public agent`,
      );
    }
    // [agent]'s own network is the agent phase's; the tests fall back to the environment's.
    const agentOnly = `network_mode = "no-network"\n[agent]\nnetwork_mode = "public"\n`;
    assert.deepEqual(await phases(runtime, agentOnly, "shared"), [1, 0]);
  },
);

runtimeTest("network phases: a separate verifier has its environment's own network, not the agent's", async (base) => {
  const runtime = await onInternalNetwork(base);
  // A prebuilt verifier image gets tests/ uploaded into its working folder, as Harbor does.
  const env = `[verifier.environment]\ndocker_image = "${BASE_IMAGE}"\nworkdir = "/tests"\n`;
  const own = `network_mode = "no-network"\n${env}network_mode = "public"\n`;
  assert.deepEqual(await phases(runtime, own, "separate"), [0, 1]);
  // [verifier]'s own phase network decides over the verifier environment's.
  const phase = `network_mode = "public"\n[verifier]\nnetwork_mode = "no-network"\n${env}network_mode = "public"\n`;
  assert.deepEqual(await phases(runtime, phase, "separate"), [1, 0]);
});

/** A step's test.sh: its phases' interface counts plus one (a key one step lacks counts 0 in Harbor's mean). */
const stepTest = (name: string) =>
  `#!/bin/bash
a=$(cat /app/agent_net) v=$(${COUNT}) s=$(cat /app/setup_net 2>/dev/null || echo -1)
printf '{"reward": 1, "${name}_agent": %s, "${name}_tests": %s, "${name}_setup": %s}' $((a+1)) $((v+1)) $((s+1)) \\
  > /logs/verifier/reward.json
`;

runtimeTest(
  "network phases: each step's agent and tests have their own, between them the environment's",
  async (base) => {
    const runtime = await onInternalNetwork(base);
    const step = (name: string) => ({
      [`steps/${name}/instruction.md`]: `Step ${name}.\n`,
      [`steps/${name}/solution/solve.sh`]: SOLVE,
      [`steps/${name}/tests/test.sh`]: stepTest(name),
    });
    const dir = await makeTask({
      "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\nworkdir = "/app"\nnetwork_mode = "no-network"\n` +
        `[[steps]]\nname = "one"\n[steps.verifier]\nnetwork_mode = "public"\n` +
        `[[steps]]\nname = "two"\n[steps.agent]\nnetwork_mode = "public"\n`,
      ...step("one"),
      ...step("two"),
      // A later step's setup runs between phases, with the environment's network.
      "steps/two/workdir/setup.sh": `n=$(${COUNT}); echo $n > /app/setup_net\n`,
    });
    try {
      const r = await checkTask(dir, { runtime, verifierMode: "shared" });
      const m = r.oracle?.metrics ?? {};
      const seen = Object.fromEntries(Object.entries(m).filter(([k]) => /^(one|two)_/.test(k)));
      // Each value is (count + 1) / 2, the mean over the two steps of a key only one of them writes.
      assert.deepEqual(seen, {
        one_agent: 0.5, // offline agent
        one_tests: 1, // public tests
        one_setup: 0, // no setup before the first step's tests
        two_agent: 1, // the step's own public agent phase
        two_tests: 0.5, // the environment's (none) again
        two_setup: 0.5, // between phases: the environment's
      }, JSON.stringify({ error: r.error, metrics: m }));
    } finally {
      await removeTask(dir);
    }
  },
);
