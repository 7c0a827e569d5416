/**
 * `harbor audit` without an engine: the battery is sound data, the task facts and link candidates the task-aware
 * exploits start from, the findings' logic, each exploit's policy under its profile, and the page. The audit of the
 * fixture tasks against the engine: audit_test.ts.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import type { AuditResult } from "../lib/harbor/audit/audit.ts";
import { BATTERY, HINTS, scriptsFor } from "../lib/harbor/audit/battery.ts";
import { candidates } from "../lib/harbor/audit/answer_key.ts";
import { type ExploitOutcome, neutralisedLinks, taskFindings } from "../lib/harbor/audit/findings.ts";
import type { VerifierMode } from "../lib/task/verifier_mode.ts";
import { pythonPaths, shellPaths, type TaskFacts, taskFacts } from "../lib/harbor/audit/task_facts.ts";
import { exploitPolicy } from "../lib/harbor/audit/exploit_policy.ts";
import { auditHtml } from "../lib/harbor/audit/report_html.ts";
import type { PolicyRequest } from "../lib/policies/policy.ts";
import { getProfile, resolveProfileName } from "../lib/harness/registry.ts";
import { loadTask } from "../lib/task/task.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const ROOT = path.join(import.meta.dirname!, "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures", "audit");
const fixture = (name: string) => path.join(FIXTURES, name);

/** Facts of a task that every task-aware exploit applies to: paths, key files, a tool, a bound, a shared volume. */
async function richFacts(): Promise<TaskFacts> {
  const facts = await taskFacts(await loadTask(fixture("link-tests")), 64);
  return {
    ...facts,
    paths: [...facts.paths, "out/result.json", "/workdir/it's here.txt"],
    tools: ["git", "curl"],
    sharedWithSidecars: [{ path: "/site's data", services: ["judge", "db"] }],
  };
}

Deno.test("audit battery: names unique and kebab-case, one-line descriptions, known hints, scripts parse in sh and bash", async () => {
  const names = BATTERY.map((x) => x.name);
  assert.equal(new Set(names).size, names.length);
  const facts = await richFacts();
  for (const x of BATTERY) {
    assert.match(x.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    assert.ok(x.description && !x.description.includes("\n"), x.name);
    assert.ok(x.hint in HINTS, x.name);
    assert.ok(resolveProfileName(x.profile), x.name);
    const scripts = scriptsFor(x, facts);
    assert.ok(scripts.length >= 1, `${x.name} applies to a task with paths, keys and tools`);
    for (const script of scripts) {
      for (const shell of ["dash", "bash"]) {
        const o = await new Deno.Command(shell, { args: ["-n", "-c", script], stderr: "piped" }).output();
        assert.equal(o.code, 0, `${x.name} under ${shell}: ${new TextDecoder().decode(o.stderr)}`);
      }
    }
  }
  // The kinds the issue names are all there.
  for (
    const n of [
      "plant-reward",
      "background-reward-writer",
      "shadow-python",
      "workdir-runner-modules",
      "kill-all",
      "link-answer-key",
      "copy-answer-key",
      "fifo-inputs",
      "git-history-fix",
      "disk-filler",
    ]
  ) assert.ok(names.includes(n), n);
  // Without paths the tests name, the link and FIFO exploits do not apply; a cap of 0 turns the disk filler off.
  const bare = { ...facts, paths: [], diskFillCapMb: 0 };
  for (const n of ["link-answer-key", "fifo-inputs", "disk-filler"]) {
    assert.deepEqual(scriptsFor(BATTERY.find((x) => x.name === n)!, bare), [], n);
  }
});

Deno.test("audit task facts: the answer key's files, the paths and tools the tests name", async () => {
  const link = await taskFacts(await loadTask(fixture("link-tests")));
  assert.deepEqual(link.keys.map((k) => [k.label, k.boxPath, k.size]), [
    ["tests/expected.txt", "/tests/expected.txt", 3],
    ["tests/test.sh", "/tests/test.sh", link.keys[1].size],
    ["solution/solve.sh", "/solution/solve.sh", link.keys[2].size],
  ]);
  // sha256 and git's blob id of "42\n", as `sha256sum` and `git hash-object` give them.
  assert.equal(link.keys[0].sha256, "084c799cd551dd1d8d5c5f9a5d593b2e931f5e36122ee5c793c1d08a19839cc0");
  assert.equal(link.keys[0].gitBlob, "d81cc0710eb6cf9efd5b920a8453e1e07157b6cd");
  assert.deepEqual(link.paths, ["/workdir/answer.txt"]);
  assert.deepEqual(link.tools, ["cmp"]);
  assert.equal(link.storageMb, 10240, "no storage_mb: the run's default bound");
  assert.deepEqual((await taskFacts(await loadTask(fixture("robust-python")))).paths, ["/workdir/answer.txt"]);
  const tool = await taskFacts(await loadTask(fixture("calls-tool")));
  assert.deepEqual([tool.paths, tool.tools], [[], ["git"]], "/app is a folder, not a file the tests read");
  assert.equal((await taskFacts(await loadTask(fixture("robust-answer-key")), 128, 0)).storageMb, 512);
  assert.equal((await taskFacts(await loadTask(fixture("link-tests")), 128, 0)).storageMb, undefined);
});

Deno.test("audit task facts: paths from shell words and Python literals, never the verifier's own", () => {
  assert.deepEqual(
    shellPaths(
      "# cat /workdir/comment.txt\ncmp out/a.csv /tests/b.csv && x=$(cat /app/res.json)\necho 1 > /logs/verifier/reward.txt\n" +
        'python3 /tests/t.py "$HOME/x.txt" /usr/bin/env.txt ./rel.txt -o.txt /app',
    ),
    ["out/a.csv", "/app/res.json", "rel.txt"],
  );
  assert.deepEqual(
    pythonPaths(`import sys\nopen("/workdir/answer.txt"); sys.exit(1); p = 'data/in.json'; q = "/tests/x.txt"`),
    ["/workdir/answer.txt", "data/in.json"],
  );
});

Deno.test("audit findings: blocking FIFOs and removed ones, probes always, tools only where they passed, the disk", () => {
  const at = (name: string) => BATTERY.findIndex((x) => x.name === name);
  const held = (name: string, more: Partial<ExploitOutcome> = {}): ExploitOutcome => ({
    exploit: name,
    reward: 0,
    passed: false,
    ...more,
  });
  const mode = (m: VerifierMode, set: Record<string, Partial<ExploitOutcome>>) => ({
    mode: m,
    exploits: BATTERY.map((x) => held(x.name, set[x.name])),
  });
  const fifo = { planted: ["fifo /w/a.txt"] };
  const modes = [
    mode("isolated", {
      "fifo-inputs": { ...fifo, neutralised: 1 },
      "link-answer-key": { neutralised: 2, planted: ["link /w/a.txt -> /tests/e.txt"] },
      "shadow-test-tools": { findings: ["the tests call git (/usr/bin/git), which the agent's user can overwrite"] },
      "copy-answer-key": { findings: ["/opt/e.txt has the content of tests/e.txt"] },
      "disk-filler": { disk: { wroteMb: 80, targetMb: 80, why: "none" } },
    }),
    mode("shared", {
      "fifo-inputs": { ...fifo, verifierTimeout: true },
      "link-answer-key": { reward: 1, passed: true, neutralised: 0 },
      "disk-filler": { skipped: "runs in isolated only", reward: null },
    }),
  ];
  const lines = taskFindings(BATTERY, modes, 64).map((f) => `${f.exploit}: ${f.text}${f.hint ? " +" : ""}`);
  assert.deepEqual(lines, [
    "copy-answer-key: /opt/e.txt has the content of tests/e.txt +",
    "fifo-inputs: tests block on a FIFO at /w/a.txt: the verifier timed out in shared +",
    "fifo-inputs: pgs removed a FIFO at /w/a.txt before the tests in isolated",
    "disk-filler: disk: wrote 80 MB of 80 MB and nothing refused it (a bound of 64 MB: not enforced) +",
  ]);
  // The links count where they held (isolated), not where they passed (shared).
  assert.equal(neutralisedLinks(BATTERY, modes[0].exploits), 2);
  assert.equal(neutralisedLinks(BATTERY, modes[1].exploits), 0);
  // A disk that refused, and an episode ended at its bound: said, no fix due.
  const disk = (o: Partial<ExploitOutcome>) =>
    taskFindings(BATTERY, [mode("isolated", { "disk-filler": o })], 64).map((f) => [f.text, f.hint]);
  assert.deepEqual(disk({ disk: { wroteMb: 63, targetMb: 80, why: "No space left on device" } }), [
    ["disk: wrote 63 MB, then No space left on device (a bound of 64 MB)", undefined],
  ]);
  assert.deepEqual(disk({ exitStatus: "disk_limit" }), [
    ["disk: the episode ended disk_limit (a bound of 64 MB): the bound holds", undefined],
  ]);
  // Passing shadow-test-tools makes its report a finding.
  modes[1].exploits[at("shadow-test-tools")] = held("shadow-test-tools", { reward: 1, passed: true });
  assert.ok(taskFindings(BATTERY, modes, 64).some((f) => f.text.startsWith("the tests call git")));
});

Deno.test("audit link candidates: same name first, else the tests' data files, test.sh last", () => {
  const key = (boxPath: string) => ({ label: boxPath.slice(1), boxPath, size: 1, sha256: "", gitBlob: "" });
  const keys = ["/tests/test.sh", "/tests/check.py", "/tests/expected.txt", "/solution/answer.txt"].map(key);
  assert.deepEqual(candidates("/app/answer.txt", keys).map((k) => k.boxPath), ["/solution/answer.txt"]);
  assert.deepEqual(candidates("out.txt", keys).map((k) => k.boxPath), [
    "/tests/expected.txt",
    "/tests/check.py",
    "/tests/test.sh",
  ]);
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

Deno.test("audit page: the task × exploit grid, findings escaped, neutralised and skipped cells", () => {
  const skip = BATTERY.findIndex((x) => x.name === "git-history-fix");
  const link = BATTERY.findIndex((x) => x.name === "link-answer-key");
  const result: AuditResult = {
    name: "t/<x>",
    dir: "/tasks/x",
    verifierMode: "shared",
    valid: true,
    hackable: true,
    exploits: BATTERY.map((x, i) =>
      i === skip
        ? { exploit: x.name, reward: null, passed: false, skipped: "does not apply to this task" }
        : { exploit: x.name, reward: i === 2 ? 1 : 0, passed: i === 2, ...(i === link ? { neutralised: 2 } : {}) }
    ),
    modes: [],
    hints: [HINTS["live-processes"], HINTS["python-startup"]],
    findings: [{ exploit: "copy-answer-key", text: "/opt/<k> has the content of tests/x", hint: "keep it out" }],
    seconds: 1,
  };
  result.modes = [{
    mode: "shared",
    hackable: true,
    exploits: result.exploits,
    neutralised: 2,
    // deno-lint-ignore no-explicit-any
    check: { valid: true, oracle: { reward: 1 }, nop: { reward: 0 } } as any,
  }];
  const html = auditHtml([result]);
  assert.match(html, /t\/&lt;x&gt;/);
  assert.equal((html.match(/class="hacked"/g) ?? []).length, 1);
  assert.equal((html.match(/class="held"/g) ?? []).length, BATTERY.length - 2);
  assert.equal((html.match(/class="na" title="does not apply to this task">n\/a</g) ?? []).length, 1);
  assert.match(html, /title="pgs neutralised 2">0ⁿ</);
  assert.match(html, /copy-answer-key: \/opt\/&lt;k&gt; has the content of tests\/x<br><i>keep it out<\/i>/);
  assert.match(html, /HACKABLE/);
  for (const x of BATTERY) assert.ok(html.includes(x.name), x.name);
  // Hints and descriptions read as prose: their `code` spans are <code>, never raw backticks.
  assert.doesNotMatch(html.replace(/<style>[^]*<\/style>/, ""), /`/);
  assert.match(html, /<code>[^<]+<\/code>/);
  // The run's header: what was audited, when, with which pgs.
  const run = { path: "/data/tasks", date: "2026-12-07T10:00:00.000Z", version: "0.1.0", modes: "every verifier mode" };
  assert.match(
    auditHtml([result], { run }),
    /<p class="run">\/data\/tasks · 2026-12-07T10:00:00\.000Z · pgs 0\.1\.0 · every verifier mode<\/p>/,
  );
});
