/**
 * A separate verifier sees a sidecar's state (issue #41): the fixture `sidecar-artifacts` runs a counter in its
 * sidecar `db`, a `[[verifier.collect]]` hook in `db` writes the counter to a file and an `artifacts` entry with
 * `service = "db"` carries it into the verifier's own container, which cannot reach `db`. A failing hook is what
 * Harbor makes it, a warning: the tests still run, without what it would have written. Nothing is left.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { setWarningSink } from "../lib/base/warn.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { POD_LABELS } from "../lib/runtime/pod.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { loadTask, type Task } from "../lib/task/task.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";
import { verify, type VerifyResult } from "../lib/verify/verifier.ts";
import { runtimeTest } from "./runtime_helpers.ts";

const FIXTURE = path.join(import.meta.dirname!, "fixtures", "compose", "sidecar-artifacts");
const text = (b: Uint8Array) => new TextDecoder().decode(b).trim();

/** The containers of pod `id` on the runtime's engine, in any state. */
async function podMembers(rt: Runtime, id: string): Promise<string[]> {
  const cli = rt as unknown as { call(a: string[]): Promise<{ code: number; stdout: Uint8Array; stderr: string }> };
  const r = await cli.call(["ps", "-aq", "--filter", `label=${POD_LABELS.pod}=${id}`]);
  assert.equal(r.code, 0, r.stderr);
  return text(r.stdout).split("\n").filter(Boolean);
}

/** One episode of `task`: the oracle, then the separate verifier; the warnings said, and nothing left after it. */
async function episode(rt: Runtime, task: Task): Promise<{ v: VerifyResult; warnings: string[]; workdir: string }> {
  const before = rt.tracked().length;
  const warnings: string[] = [];
  setWarningSink((m) => warnings.push(m));
  const { box, verifier } = await startBoxes(task, new ImageStore(rt));
  const pod = box.pod!;
  try {
    await box.agentPhase();
    await verifier.agentStarts(box);
    const solve = await Deno.readTextFile(path.join(FIXTURE, "solution", "solve.sh"));
    const r = await box.exec(solve, { timeoutSec: 60 });
    assert.equal(r.exitCode, 0, text(r.stderr));
    const v = await verify(box, "done", { verifier, final: true });
    return { v, warnings, workdir: box.workdir };
  } finally {
    setWarningSink(null);
    await box.remove();
    assert.deepEqual(await podMembers(rt, pod.id), [], "no member of the pod is left");
    assert.equal(rt.tracked().length, before, "the episode's, the sidecar's and the verifier's boxes are gone");
  }
}

runtimeTest("pod artifacts: the separate verifier reads the state a collect hook took in the sidecar", async (rt) => {
  const task = await loadTask(FIXTURE);
  assert.equal(task.config.verifier.environmentMode, "separate");
  const { v, warnings, workdir } = await episode(rt, task);
  assert.equal(v.mode, "separate");
  assert.equal(v.error, undefined, v.testOutput);
  // main's hook ran in bash, in the working directory, as the image's user (root in pgs-base:1).
  assert.equal(v.testOutput, `state: count=3\nmain hook: ${workdir} root\n`);
  assert.equal(v.reward, 1);
  assert.equal(v.metrics.collect_hooks_failed, undefined);
  assert.deepEqual(warnings.filter((w) => /verifier\.collect/.test(w) && !/not applied/.test(w)), []);
});

runtimeTest(
  "pod artifacts: a failing or timed-out hook is a warning, and the tests run without its file",
  async (rt) => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_pod_artifacts_" });
    try {
      for (const sub of ["environment", "tests", "solution"]) {
        await Deno.mkdir(path.join(dir, sub));
        for await (const f of Deno.readDir(path.join(FIXTURE, sub))) {
          await Deno.copyFile(path.join(FIXTURE, sub, f.name), path.join(dir, sub, f.name));
        }
      }
      await Deno.copyFile(path.join(FIXTURE, "instruction.md"), path.join(dir, "instruction.md"));
      const toml = await Deno.readTextFile(path.join(FIXTURE, "task.toml"));
      const hooks = `[[verifier.collect]]\nservice = "db"\ncommand = "echo broken >&2; exit 3"\n\n` +
        `[[verifier.collect]]\ncommand = "sleep 30"\ntimeout_sec = 1\n`;
      const name = `pgs-fixtures/sidecar-artifacts-${crypto.randomUUID().slice(0, 8)}`;
      await Deno.writeTextFile(
        path.join(dir, "task.toml"),
        toml.slice(0, toml.indexOf("[[verifier.collect]]")).replace(/^name = .*$/m, `name = "${name}"`) + hooks,
      );
      const task = await loadTask(dir);
      const { v, warnings } = await episode(rt, task);
      // Harbor logs a failed hook and goes on: the verifier runs, the missing artifact is skipped, the tests judge.
      assert.equal(v.error, undefined, v.testOutput);
      assert.equal(v.testOutput, "state: missing\nmain hook: missing\n");
      assert.equal(v.reward, 0);
      assert.equal(v.metrics.collect_hooks_failed, 2);
      const said = warnings.filter((w) => /\[\[verifier\.collect\]\]/.test(w));
      assert.equal(said.length, 2, said.join("\n"));
      assert.match(said.find((w) => / 0 in service db /.test(w)) ?? "", /exited 3: broken; collection goes on/);
      assert.match(said.find((w) => / 1 in service main /.test(w)) ?? "", /timed out after 1 s/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
