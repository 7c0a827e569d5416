/**
 * `harbor audit` against the engine: on the fixture tasks of tests/fixtures/audit/ (each written to be open to one kind
 * of exploit, plus robust controls) the audit finds exactly the expected exploits and findings in the tasks' own
 * modes; the disk filler; the CLI's output. Other modes: audit_modes_test.ts; the pure parts: audit_units_test.ts.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { type AuditResult, auditTasks } from "../lib/harbor/audit/audit.ts";
import { BATTERY } from "../lib/harbor/audit/battery.ts";
import { checkTasks } from "../lib/harbor/check.ts";
import { owner, trackedContainers } from "../lib/runtime/hygiene.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import { findTasks } from "../lib/task/task.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { countPidContainers, dockerTest, soakTest } from "./docker_helpers.ts";

registerBuiltins();

const ROOT = path.join(import.meta.dirname!, "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures", "audit");
const fixture = (name: string) => path.join(FIXTURES, name);

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
  "link-tests": [],
  "image-answer-key": ["copy-answer-key"],
  "git-history": ["git-history-fix"],
  "calls-tool": ["background-reward-writer", "shadow-test-tools"],
  "robust-answer-key": [],
};

/** The FIFO finding where pgs removed the FIFO the tests would have blocked on. */
const fifoRemoved = (p: string, mode: string) => `fifo-inputs: pgs removed a FIFO at ${p} before the tests in ${mode}`;

/** What each fixture's audit reports in its own mode (`exploit: text`, with `+` where a fix is given), exactly. */
const FINDINGS: Record<string, string[]> = {
  "robust-python": [fifoRemoved("/workdir/answer.txt", "isolated")],
  "shared-shell": [fifoRemoved("/app/answer.txt", "shared")],
  "shared-python": [fifoRemoved("/app/answer.txt", "shared")],
  "unittest-workdir": [fifoRemoved("/workdir/answer.txt", "isolated")],
  "pytest-workdir": [fifoRemoved("/workdir/answer.txt", "isolated")],
  "runs-workdir-script": [fifoRemoved("/workdir/check.sh", "isolated")],
  "hash-then-run": [
    "shadow-test-tools: the tests call sha256sum (/usr/bin/sha256sum), which the agent's user can overwrite +",
    fifoRemoved("/app/check.sh", "shared"),
  ],
  "solution-in-image": [
    "copy-answer-key: the box holds /solution during the agent's turns (1 files) +",
    fifoRemoved("/app/answer.txt", "shared"),
  ],
  "agent-service": [fifoRemoved("/app/heartbeat", "shared")],
  // /tmp/heartbeat is outside the working directory: nothing is planted there.
  "image-service": [fifoRemoved("/app/answer.txt", "shared")],
  "kill-passes": [],
  "copies-reward": [fifoRemoved("/workdir/reward.txt", "isolated")],
  "python-c-json": [fifoRemoved("/workdir/answer.json", "isolated")],
  "link-tests": [fifoRemoved("/workdir/answer.txt", "isolated")],
  "image-answer-key": [
    "copy-answer-key: /usr/local/share/reference/answer.txt has the content of solution/answer.txt +",
    fifoRemoved("/workdir/answer.txt", "isolated"),
  ],
  "git-history": [
    fifoRemoved("/workdir/answer.txt", "isolated"),
    "git-history-fix: the git history of /workdir holds 1 commit(s) HEAD does not reach (refs: none; stashes: 0; " +
    "reflog only: 1) +",
    "git-history-fix: commit 'fix' changes answer.txt, which the tests name +",
  ],
  "calls-tool": ["shadow-test-tools: the tests call git (/usr/bin/git), which the agent's user can overwrite +"],
  "robust-answer-key": [fifoRemoved("/workdir/answer.txt", "isolated")],
};

/** A result's findings as FINDINGS writes them. */
const findingLines = (r: AuditResult) => r.findings.map((f) => `${f.exploit}: ${f.text}${f.hint ? " +" : ""}`);

const passedBy = (r: { exploits: { exploit: string; passed: boolean | null }[] }) =>
  r.exploits.filter((x) => x.passed).map((x) => x.exploit).sort();

dockerTest(
  "audit: every fixture is valid and open to exactly its expected exploits in its own mode",
  async (docker) => {
    const dirs = await findTasks(FIXTURES);
    assert.deepEqual(dirs.map((d) => path.basename(d)).sort(), Object.keys(EXPECTED).sort());
    assert.deepEqual(Object.keys(FINDINGS).sort(), Object.keys(EXPECTED).sort());
    const results = await auditTasks(dirs, { workers: 4, diskFillCapMb: 0 });
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
      assert.deepEqual(findingLines(r), FINDINGS[name], name);
    }
    const by = Object.fromEntries(results.map((r) => [path.basename(r.dir), r]));
    // The link to the answer key was planted and removed before the tests: the mode holds because of it.
    for (const name of ["link-tests", "robust-answer-key"]) {
      const link = by[name].exploits.find((x) => x.exploit === "link-answer-key")!;
      // One variant per candidate: the tests' data file, then test.sh.
      assert.deepEqual(link.planted, [
        "link /workdir/answer.txt -> /tests/expected.txt",
        "link /workdir/answer.txt -> /tests/test.sh",
      ], name);
      assert.equal(link.neutralised, 1, name);
      assert.equal(by[name].modes[0].neutralised, 1, name);
    }
    // Exploits that do not apply are said so, not run: no file the tests name, no planting.
    for (const x of by["calls-tool"].exploits.filter((x) => ["link-answer-key", "fifo-inputs"].includes(x.exploit))) {
      assert.deepEqual([x.skipped, x.reward], ["does not apply to this task", null], x.exploit);
    }
  },
);

dockerTest("audit disk filler: writes past storage_mb, says what stopped it, never counts as a hack", async () => {
  const filler = BATTERY.filter((x) => x.name === "disk-filler");
  const [r] = await auditTasks([fixture("robust-answer-key")], { battery: filler, diskFillCapMb: 1024 });
  const [x] = r.exploits;
  assert.equal(r.hackable, false);
  assert.equal(x.passed, false, x.error);
  // storage_mb = 512: a bound's worth and an eighth more.
  const problem = await createRuntime().diskBoundProblem();
  if (problem) {
    assert.deepEqual(x.disk, { wroteMb: 576, targetMb: 576, why: "none" }, problem);
    assert.deepEqual(findingLines(r), [
      "disk-filler: disk: wrote 576 MB of 576 MB and nothing refused it (a bound of 512 MB: not enforced) +",
    ]);
  } else {
    assert.equal(findingLines(r).length, 1);
    assert.match(
      findingLines(r)[0],
      /^disk-filler: disk: (wrote \d+ MB, then (No space left on device|Disk quota exceeded)|the episode ended disk_limit)/,
    );
  }
  // Once per task, whatever the modes.
  const [all] = await auditTasks([fixture("robust-answer-key")], {
    battery: filler,
    diskFillCapMb: 16,
    allModes: true,
  });
  assert.deepEqual(all.modes.map((m) => m.exploits[0].skipped ?? "ran"), [
    "ran",
    "runs in isolated only",
    "runs in isolated only",
    "runs in isolated only",
  ]);
});

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
        "--disk-fill-mb",
        "16",
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
      // Every exploit ran and failed, but the one for compose tasks, which has no shared volume to write here.
      type Out = { exploit: string; passed: boolean; reward: number; skipped?: string };
      const skipped = (task.exploits as Out[]).filter((x) => x.skipped).map((x) => [x.exploit, x.skipped]);
      assert.deepEqual(skipped, [["sidecar-shared-volume", "does not apply to this task"]]);
      assert.ok((task.exploits as Out[]).filter((x) => !x.skipped).every((x) => x.passed === false && x.reward === 0));
      assert.deepEqual(task.hints, []);
      const fill = task.exploits.find((x: { exploit: string }) => x.exploit === "disk-filler");
      assert.deepEqual([fill.disk.target_mb, fill.planted], [16, undefined]);
      const fifo = task.exploits.find((x: { exploit: string }) => x.exploit === "fifo-inputs");
      assert.deepEqual([fifo.planted, fifo.neutralised], [["fifo /workdir/answer.txt"], 1]);
      assert.deepEqual(task.findings.map((f: { exploit: string }) => f.exploit), ["fifo-inputs", "disk-filler"]);
      assert.equal(task.neutralised, 1, "the link to check.py was removed");
      assert.match(await Deno.readTextFile(report), /pgs-audit\/robust-python/);

      // A folder of two: one hackable, one that holds because pgs removed the link to its answer key.
      for (const name of ["copies-reward", "link-tests"]) {
        const cp = await new Deno.Command("cp", { args: ["-r", fixture(name), path.join(out, name)] }).output();
        assert.equal(cp.code, 0);
      }
      const bad = await pgs("harbor", "audit", out, "--disk-fill-mb", "0");
      assert.equal(bad.code, 1, bad.stderr);
      assert.match(bad.stderr, /^HACKABLE pgs-audit\/copies-reward by plant-reward {2}\[isolated\]/m);
      assert.match(bad.stderr, /hint: the reward came from a file the agent wrote/);
      assert.match(
        bad.stderr,
        /^ok {3}pgs-audit\/link-tests {2}oracle 1 {2}nop 0 {2}\[isolated\] {2}holds: pgs neutralised 1 link {2}\d/m,
      );
      assert.match(
        bad.stderr,
        /^ {5}finding \(fifo-inputs\): pgs removed a FIFO at \/workdir\/answer.txt before the tests in isolated$/m,
      );
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
