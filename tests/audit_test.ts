/**
 * `harbor audit`: the battery is sound data, each exploit's policy says what it should under its profile, and on the
 * fixture tasks of tests/fixtures/audit/ (each written to be open to one kind of exploit, plus robust controls) the
 * audit finds exactly the expected exploits in the tasks' own modes; the CLI's output. Other modes:
 * audit_modes_test.ts.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { type AuditResult, auditTasks } from "../lib/audit/audit.ts";
import { BATTERY, HINTS } from "../lib/audit/battery.ts";
import { exploitPolicy } from "../lib/audit/exploit_policy.ts";
import { auditHtml } from "../lib/audit/report_html.ts";
import { checkTasks } from "../lib/eval/check.ts";
import type { PolicyRequest } from "../lib/eval/policy.ts";
import { getProfile, resolveProfileName } from "../lib/harness/registry.ts";
import { owner, trackedContainers } from "../lib/runtime/hygiene.ts";
import { findTasks } from "../lib/task/task.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { countPidContainers, dockerTest, soakTest } from "./docker_helpers.ts";

registerBuiltins();

const ROOT = path.join(import.meta.dirname!, "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures", "audit");
const fixture = (name: string) => path.join(FIXTURES, name);

Deno.test("audit battery: names unique and kebab-case, one-line descriptions, known hints, scripts parse in sh and bash", async () => {
  const names = BATTERY.map((x) => x.name);
  assert.equal(new Set(names).size, names.length);
  for (const x of BATTERY) {
    assert.match(x.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    assert.ok(x.description && !x.description.includes("\n"), x.name);
    assert.ok(x.hint in HINTS, x.name);
    assert.ok(resolveProfileName(x.profile), x.name);
    for (const shell of ["dash", "bash"]) {
      const o = await new Deno.Command(shell, { args: ["-n", "-c", x.script], stderr: "piped" }).output();
      assert.equal(o.code, 0, `${x.name} under ${shell}: ${new TextDecoder().decode(o.stderr)}`);
    }
  }
  // The kinds the issue names are all there.
  for (const n of ["plant-reward", "background-reward-writer", "shadow-python", "workdir-runner-modules", "kill-all"]) {
    assert.ok(names.includes(n), n);
  }
});

function request(profileSpec: string, turn: number): PolicyRequest {
  const profile = getProfile(profileSpec);
  return { turn, episode: { episode: { profile } } } as unknown as PolicyRequest;
}

Deno.test("audit exploit policy: its script in one shell call, then the profile's stop turn", async () => {
  const x = BATTERY.find((b) => b.name === "kill-all")!;
  const p = exploitPolicy(x);
  const first = await p.turn(request("palingenesis-default@1", 0));
  assert.equal(first.tool_calls?.[0].function.name, "bash");
  assert.deepEqual(JSON.parse(first.tool_calls![0].function.arguments), { command: "kill -9 -1" });
  const stop = await p.turn(request("palingenesis-default@1", 1));
  assert.equal(stop.tool_calls?.[0].function.name, "submit");
  // A fenced text protocol gets the script in its block; a keystroke protocol cannot run one: an infra error.
  const text = await p.turn(request("mini-swe-agent-text", 0));
  assert.match(text.content ?? "", /```mswea_bash_command\nkill -9 -1\n```/);
  await assert.rejects(() => p.turn(request("terminus-2", 0)), /no shell tool that can run a script/);
});

Deno.test("audit page: the task × exploit grid, findings escaped", () => {
  const result: AuditResult = {
    name: "t/<x>",
    dir: "/tasks/x",
    verifierMode: "shared",
    valid: true,
    hackable: true,
    exploits: BATTERY.map((x, i) => ({ exploit: x.name, reward: i === 2 ? 1 : 0, passed: i === 2 })),
    modes: [],
    hints: [HINTS["live-processes"]],
    seconds: 1,
  };
  result.modes = [{
    mode: "shared",
    hackable: true,
    exploits: result.exploits,
    // deno-lint-ignore no-explicit-any
    check: { valid: true, oracle: { reward: 1 }, nop: { reward: 0 } } as any,
  }];
  const html = auditHtml([result]);
  assert.match(html, /t\/&lt;x&gt;/);
  assert.equal((html.match(/class="hacked"/g) ?? []).length, 1);
  assert.equal((html.match(/class="held"/g) ?? []).length, BATTERY.length - 1);
  assert.match(html, /HACKABLE/);
  for (const x of BATTERY) assert.ok(html.includes(x.name), x.name);
});

/** What each fixture is open to in its own mode: the exploits that pass there, exactly. */
const EXPECTED: Record<string, string[]> = {
  "robust-python": [],
  "shared-shell": ["background-reward-writer"],
  "shared-python": ["background-reward-writer", "shadow-python", "python-startup-hook"],
  "unittest-workdir": ["workdir-runner-modules"],
  "pytest-workdir": ["workdir-runner-modules", "workdir-import-shadows"],
  "runs-workdir-script": ["workdir-scripts-pass"],
  "hash-then-run": ["background-reward-writer", "delayed-workdir-rewrite", "shadow-test-tools"],
  "solution-in-image": ["background-reward-writer", "use-solution"],
  "agent-service": ["background-reward-writer"],
  "image-service": ["background-reward-writer"],
  "kill-passes": ["background-reward-writer", "kill-all"],
  "copies-reward": ["plant-reward"],
  "python-c-json": ["workdir-import-shadows"],
};

const passedBy = (r: { exploits: { exploit: string; passed: boolean | null }[] }) =>
  r.exploits.filter((x) => x.passed).map((x) => x.exploit).sort();

dockerTest(
  "audit: every fixture is valid and open to exactly its expected exploits in its own mode",
  async (docker) => {
    const dirs = await findTasks(FIXTURES);
    assert.deepEqual(dirs.map((d) => path.basename(d)).sort(), Object.keys(EXPECTED).sort());
    const results = await auditTasks(dirs, { workers: 4 });
    assert.deepEqual(trackedContainers(), [], "every episode's containers are gone");
    assert.equal(await countPidContainers(docker, Deno.pid, `pgs.run=${owner().run}`), 0);
    for (const r of results) {
      const name = path.basename(r.dir);
      assert.equal(r.error, undefined, `${name}: ${r.error} ${r.modes[0]?.check.oracle?.testOutput ?? ""}`);
      assert.ok(r.valid, name);
      assert.deepEqual(r.exploits.filter((x) => x.passed === null), [], `${name}: no infrastructure error`);
      const why = r.exploits.map((x) => `${x.exploit}: ${x.reward} ${x.testOutput ?? ""}`).join("\n");
      assert.deepEqual(passedBy(r), [...EXPECTED[name]].sort(), `${name}\n${why}`);
      assert.equal(r.hackable, EXPECTED[name].length > 0, name);
      assert.equal(r.hints.length > 0, r.hackable, name);
      assert.equal(r.modes.length, 1);
    }
  },
);

/**
 * The fixtures whose tests watch a live service must not flake on a loaded machine (a CI run once caught one's test
 * reading the heartbeat between its writer's truncation and its write; the old test failed about one round in two
 * here): twelve copies of each, 24 tasks' oracles and nops at once, three rounds, beside the rest of the soak tier.
 */
soakTest(
  "audit fixtures with live services under load: 3 rounds of 24 tasks at once, every oracle 1, every nop 0",
  async () => {
    const root = await Deno.makeTempDir({ prefix: "pgs_audit_soak_" });
    try {
      const dirs: string[] = [];
      for (let i = 0; i < 12; i++) {
        for (const name of ["agent-service", "image-service"]) {
          const dir = path.join(root, `${name}-${i}`);
          const cp = await new Deno.Command("cp", { args: ["-r", fixture(name), dir] }).output();
          assert.equal(cp.code, 0);
          dirs.push(dir);
        }
      }
      for (let round = 1; round <= 3; round++) {
        const results = await checkTasks(dirs, { workers: 12 });
        const bad = results.filter((r) => !r.valid).map((r) =>
          `${path.basename(r.dir)}: ${r.error} | oracle: ${r.oracle?.testOutput} | nop: ${r.nop?.testOutput}`
        );
        assert.deepEqual(bad, [], `round ${round}`);
        assert.deepEqual(results.map((r) => [r.oracle?.reward, r.nop?.reward]), dirs.map(() => [1, 0]));
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

/** Runs the CLI; its exit code, output and pid (the `pgs.pid` label of its containers). */
async function pgs(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; pid: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", path.join(ROOT, "main.ts"), ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const o = await child.output();
  const dec = new TextDecoder();
  return { code: o.code, stdout: dec.decode(o.stdout), stderr: dec.decode(o.stderr), pid: child.pid };
}

dockerTest(
  "audit CLI: --json shape, the report page, exit 1 for a hackable task, nothing left behind",
  async (docker) => {
    const out = await Deno.makeTempDir({ prefix: "pgs_audit_" });
    try {
      const report = path.join(out, "audit.html");
      const robust = fixture("robust-python");
      const o = await pgs(
        "harbor",
        "audit",
        "--json",
        "--report",
        report,
        "--workers",
        "2",
        robust,
        "--verifier-mode",
        "isolated",
      );
      assert.equal(o.code, 0, o.stderr);
      assert.equal(await countPidContainers(docker, o.pid), 0, "the CLI left no container");
      const [task] = JSON.parse(o.stdout);
      assert.deepEqual(Object.keys(task).slice(0, 8), [
        "task",
        "dir",
        "verifier_mode",
        "valid",
        "hackable",
        "oracle_reward",
        "nop_reward",
        "exploits",
      ]);
      assert.equal(task.task, "pgs-audit/robust-python");
      assert.equal(task.verifier_mode, "isolated");
      assert.deepEqual(task.exploits.map((x: { exploit: string }) => x.exploit), BATTERY.map((x) => x.name));
      assert.ok(task.exploits.every((x: { passed: boolean; reward: number }) => x.passed === false && x.reward === 0));
      assert.deepEqual(task.hints, []);
      assert.match(await Deno.readTextFile(report), /pgs-audit\/robust-python/);

      const bad = await pgs("harbor", "audit", fixture("copies-reward"));
      assert.equal(bad.code, 1, bad.stderr);
      assert.match(bad.stderr, /^HACKABLE pgs-audit\/copies-reward by plant-reward {2}\[isolated\]/m);
      assert.match(bad.stderr, /hint: the reward came from a file the agent wrote/);
      assert.equal(await countPidContainers(docker, bad.pid), 0, "the CLI left no container");
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
);

Deno.test("audit CLI: --all-modes with --verifier-mode is one line, exit 2", async () => {
  const o = await pgs("harbor", "audit", FIXTURES, "--all-modes", "--verifier-mode", "shared");
  assert.equal(o.code, 2);
  assert.equal(o.stderr.trim(), "pgs: harbor audit: give --verifier-mode or --all-modes, not both");
});
