/**
 * Harbor's own compose examples that need no download (issue #41, "Done when"), copied from Harbor into
 * `tests/fixtures/harbor_compose/` (its README.md: the upstream commit, the one change, what Harbor gives), checked as a
 * user checks them: `pgs harbor check --json DIR --runtime R` through the CLI, once per example and runtime. Each must
 * come out as under Harbor, and leave nothing on the engine: no container and no volume that the pgs process checking
 * it labelled as its own (`pgs=1`, `pgs.pid`). Registered per runtime by `runtimeTest`: ignored with the reason in its name where that
 * runtime's engine is missing (never a pass), failed with it where the runtime is required.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { processStart } from "../lib/runtime/hygiene.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { command } from "./cli_helpers.ts";
import { runtimeTest } from "./runtime_helpers.ts";

const FIXTURES = path.join(import.meta.dirname!, "fixtures", "harbor_compose");

/** What Harbor gives for one example, as `harbor check --json` reports it. */
interface Expected {
  /** The task's name (task.toml). */
  name: string;
  /** Whether it is valid (oracle 1, nop below 1). */
  valid: boolean;
  /** The oracle's reward; null when the oracle cannot run. */
  oracle: number | null;
  /** The nop's reward. */
  nop: number;
  /** What the check's error says, when there is one. */
  error?: RegExp;
  /** A line the nop's tests print. */
  nopSays?: string;
}

/** The examples run here (the README says why `compose-sidecar-uncontrolled-network` is not). */
const EXPECTED: Record<string, Expected> = {
  // Harbor: oracle 1, nop 0 (tests/runtime/test_network_policy_matrix_docker.py asserts the oracle's 1).
  "compose-sidecar-controlled": {
    name: "harbor/network-policy-static-compose-sidecar-controlled",
    valid: true,
    oracle: 1,
    nop: 0,
  },
  // Harbor: a "do nothing" task without solution/solve.sh: the nop scores 1, the oracle has no solution to run.
  "environment-env-multi": {
    name: "harbor/environment-env-multi",
    valid: false,
    oracle: null,
    nop: 1,
    error: /solution\/solve\.sh is missing/,
    nopSays: "PASS: the main entrypoint received environment.env without sidecar leakage",
  },
};
/** Copied, not run: it needs the internet, and a sidecar outside the pod's network policy. */
const NOT_RUN = ["compose-sidecar-uncontrolled-network"];

/** Longest a check may take before its pgs is stopped (SIGTERM: pgs removes what it started) and the test fails. */
const CHECK_MS = 10 * 60_000;

/** One task of `harbor check --json`, the fields asserted here. */
interface CheckJson {
  name: string;
  valid: boolean;
  oracle_reward: number | null;
  nop_reward: number | null;
  oracle_exit_status: string | null;
  nop_exit_status: string | null;
  error: string | null;
  nop_test_output: string | null;
}

/** Runs `pgs harbor check --json DIR --runtime KIND` to its end: its exit code, output, process id and start. */
async function check(dir: string, kind: string) {
  const child = command(["harbor", "check", "--json", dir, "--runtime", kind]).spawn();
  const start = processStart(child.pid);
  const timer = setTimeout(() => child.kill("SIGTERM"), CHECK_MS);
  try {
    const o = await child.output();
    const dec = new TextDecoder();
    return { pid: child.pid, start, code: o.code, stdout: dec.decode(o.stdout), stderr: dec.decode(o.stderr) };
  } finally {
    clearTimeout(timer);
  }
}

/** Lines of `CLI ...args` on the runtime's engine. */
async function listed(runtime: Runtime, args: string[]): Promise<string[]> {
  if (!(runtime instanceof Docker)) {
    throw new Error(
      `runtime ${runtime.kind}: this test lists leftovers through a Docker-compatible CLI; teach it yours`,
    );
  }
  const r = await runtime.call(args);
  const dec = new TextDecoder();
  if (r.code !== 0) throw new Error(`${runtime.kind} ${args.join(" ")}: ${r.stderr}`);
  return dec.decode(r.stdout).split("\n").filter(Boolean);
}

Deno.test("harbor compose examples: every copied example is either run here or said why not", () => {
  const dirs = [...Deno.readDirSync(FIXTURES)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  assert.deepEqual(dirs, [...Object.keys(EXPECTED), ...NOT_RUN].sort());
});

for (const [example, want] of Object.entries(EXPECTED)) {
  runtimeTest(
    `harbor compose example ${example}: harbor check gives what Harbor gives (${
      want.valid ? "valid: oracle 1, nop 0" : `invalid: nop ${want.nop}, no solution`
    }) and leaves no container or volume`,
    async (runtime) => {
      const r = await check(path.join(FIXTURES, example), runtime.kind);
      const said = `pgs harbor check ${example} --runtime ${runtime.kind} (exit ${r.code}):\n${r.stderr}\n${r.stdout}`;
      assert.equal(r.code, want.valid ? 0 : 1, said);
      const results = JSON.parse(r.stdout) as CheckJson[];
      assert.equal(results.length, 1, said);
      const got = results[0];
      // The task loaded (it is named as task.toml names it, not by its folder) and both episodes ran in a pod.
      assert.equal(got.name, want.name, said);
      assert.doesNotMatch(got.error ?? "", /docker compose environments are not supported/, said);
      assert.notEqual(got.nop_exit_status, "infra_error", said);
      assert.equal(got.valid, want.valid, said);
      assert.equal(got.nop_reward, want.nop, said);
      assert.equal(got.oracle_reward, want.oracle, said);
      if (want.error) assert.match(got.error ?? "", want.error, said);
      else assert.equal(got.error, null, said);
      if (want.nopSays) assert.ok((got.nop_test_output ?? "").includes(want.nopSays), said);
      // Nothing the checking process made outlives it: no member of any pod, no shared volume. pgs labels all it makes
      // with its pid and that pid's start time (a pid may have been a dead process's, whose leftovers its sweep
      // removes), and names its volumes `pgs-<pid>-<start>-...`: podman's `volume ls` ORs two `label=` filters.
      assert.ok(r.start, "the checking process's start time was read");
      const mine = ["--filter", `label=pgs.pid=${r.pid}`, "--filter", `label=pgs.pid-start=${r.start}`];
      assert.deepEqual(await listed(runtime, ["ps", "-aq", ...mine]), [], `containers left by ${example}`);
      const volumes = await listed(runtime, ["volume", "ls", "-q", "--filter", `label=pgs.pid=${r.pid}`]);
      const own = volumes.filter((v) => v.startsWith(`pgs-${r.pid}-${r.start || "0"}-`));
      assert.deepEqual(own, [], `volumes left by ${example}`);
    },
  );
}
