/** `harbor export --steps`: pgs's own layout converted into Harbor's [[steps]] layout, checked with pgs's Harbor flow. */
import assert from "node:assert/strict";
import * as path from "node:path";
import { parse } from "smol-toml";
import { checkTasks } from "../lib/harbor/check.ts";
import { exportSteps } from "../lib/harbor/export_steps.ts";
import { findTasks, loadTask } from "../lib/task/task.ts";
import { dockerTest } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

// deno-lint-ignore no-explicit-any
type Toml = Record<string, any>;

const EXAMPLES = path.join(import.meta.dirname!, "..", "examples", "tasks");

async function exported<T>(fn: (out: string, flags: Record<string, string[]>) => Promise<T>): Promise<T> {
  const root = await Deno.makeTempDir({ prefix: "pgs_export_" });
  const out = path.join(root, "set");
  try {
    const done = await exportSteps(await findTasks(EXAMPLES), out);
    return await fn(out, Object.fromEntries(done.map((t) => [path.basename(t.dir), t.flags])));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("export --steps: the layout, task.toml made explicit, reply-graded and capture tasks flagged", async () => {
  await exported(async (out, flags) => {
    const t = path.join(out, "service-health");
    const toml = parse(await Deno.readTextFile(path.join(t, "task.toml"))) as Toml;
    assert.deepEqual(toml.steps.map((s: { name: string }) => s.name), ["main"]);
    assert.equal(toml.environment.workdir, "/workdir", "Harbor would run in the image's WORKDIR, /");
    assert.equal(toml.environment.allow_internet, false);
    assert.equal(toml.environment.healthcheck, undefined, "moved to the step: it must run after the step's setup.sh");
    assert.match(toml.steps[0].healthcheck.command, /127\.0\.0\.1:8080/);
    const src = path.join(EXAMPLES, "service-health");
    assert.equal(
      await Deno.readTextFile(path.join(t, "steps/main/instruction.md")),
      await Deno.readTextFile(path.join(src, "instruction.md")),
    );
    const setup = await Deno.readTextFile(path.join(t, "steps/main/workdir/setup.sh"));
    assert.ok(setup.includes(await Deno.readTextFile(path.join(src, "environment/setup.sh"))), "the script unchanged");
    assert.match(setup, /rm -f -- "\$0"/);
    assert.equal((await Deno.stat(path.join(t, "steps/main/workdir/setup.sh"))).mode! & 0o111, 0o111);
    for (const f of ["tests/test.sh", "solution/solve.sh"]) await Deno.stat(path.join(t, f));
    await assert.rejects(Deno.stat(path.join(t, "environment/workdir")));
    assert.deepEqual(flags["service-health"], []);
    assert.deepEqual(flags["fix-word-count"], []);
    assert.match(flags["count-error-lines"].join(), /graded on the reply/);
    assert.match(flags["stop-runaway"].join(), /capture/);
    const stop = parse(await Deno.readTextFile(path.join(out, "stop-runaway", "task.toml"))) as Toml;
    assert.equal(stop.verifier.capture, undefined);
    // Loads as a multi-step task.
    const task = await loadTask(t);
    assert.equal(task.steps?.length, 1);
    assert.equal(task.steps![0].setupSh, path.join(t, "steps/main/workdir/setup.sh"));
  });
});

Deno.test("export --steps: OUT must not exist, and nothing is left when a task fails", async () => {
  const root = await Deno.makeTempDir({ prefix: "pgs_export_" });
  try {
    await assert.rejects(exportSteps([EXAMPLES], root), /already exists/);
    const out = path.join(root, "x");
    await assert.rejects(exportSteps([path.join(EXAMPLES, "fix-word-count"), "/nonexistent-task"], out));
    assert.deepEqual([...Deno.readDirSync(root)], [], "neither OUT nor its temporary folder is left");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

dockerTest(
  "export --steps: the unflagged exports stay valid under Harbor's flow (shared mode, [[steps]])",
  async () => {
    await exported(async (out, flags) => {
      const dirs = Object.keys(flags).filter((k) => !flags[k].length).map((k) => path.join(out, k));
      assert.equal(dirs.length, 2);
      for (const r of await checkTasks(dirs, { workers: 2 })) {
        assert.equal(r.verifierMode, "shared");
        assert.ok(r.valid, `${r.name}: ${r.error} ${r.oracle?.testOutput ?? ""}`);
      }
    });
  },
);
