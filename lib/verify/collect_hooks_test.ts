/** The collect hooks' passes, shells, users, bounds and failures, against boxes that record what they are asked. */
import assert from "node:assert/strict";
import { setWarningSink } from "../base/warn.ts";
import type { Box, BoxExecOptions, ProcResult } from "../runtime/runtime.ts";
import type { Sandbox } from "../runtime/sandbox.ts";
import type { CollectHook } from "../task/task_config_types.ts";
import { inPass, runAllCollectHooks, runCollectHooks } from "./collect_hooks.ts";

type Call = [string, string[], BoxExecOptions | undefined];

/** A box named `name` that answers `answer(argv)`, recording each exec in `calls`. */
function fakeBox(name: string, calls: Call[], answer: (argv: string[]) => Partial<ProcResult>): Box {
  return {
    exec: (argv: string[], opts?: BoxExecOptions) => {
      calls.push([name, argv, opts]);
      const r = { code: 0, stdout: new Uint8Array(), stderr: "", stderrRaw: new Uint8Array(), timedOut: false };
      return Promise.resolve({ ...r, ...answer(argv) });
    },
  } as unknown as Box;
}

function sandbox(hooks: CollectHook[], calls: Call[], answer: (argv: string[]) => Partial<ProcResult>): Sandbox {
  const members = new Map([["db", fakeBox("db", calls, answer)]]);
  const task = { name: `t-${crypto.randomUUID()}`, config: { verifier: { collect: hooks } } };
  return { task, box: fakeBox("main", calls, answer), pod: { members } } as unknown as Sandbox;
}

Deno.test("collect hooks: main's pass runs bash in main, the sidecars' sh in theirs, in order, each bounded", async () => {
  const hooks: CollectHook[] = [
    { command: "a", service: "db", timeoutSec: 60 },
    { command: "b", service: "main", timeoutSec: 5, user: "1000" },
    { command: "c", service: "db", timeoutSec: 2, user: "nobody" },
  ];
  const calls: Call[] = [];
  const box = sandbox(hooks, calls, () => ({}));
  assert.equal(await runCollectHooks(box, "main"), 0);
  assert.equal(await runCollectHooks(box, "sidecars"), 0);
  assert.deepEqual(calls, [
    ["main", ["bash", "-c", "b"], { user: "1000", timeoutMs: 5000 }],
    ["db", ["sh", "-c", "a"], { timeoutMs: 60_000 }],
    ["db", ["sh", "-c", "c"], { user: "nobody", timeoutMs: 2000 }],
  ]);
  assert.ok(inPass(undefined, "main") && inPass("db", "sidecars") && !inPass("main", "sidecars"));
});

Deno.test("collect hooks: a failure is warned and counted, and the others still run", async () => {
  const hooks: CollectHook[] = [
    { command: "exit 3", service: "db", timeoutSec: 60 },
    { command: "sleep 9", service: "db", timeoutSec: 1 },
    { command: "x", service: "cache", timeoutSec: 60 },
    { command: "ok", service: "db", timeoutSec: 60 },
  ];
  const calls: Call[] = [];
  const box = sandbox(
    hooks,
    calls,
    (argv) =>
      argv[2] === "exit 3"
        ? { code: 3, stderr: "one\nbroken" }
        : argv[2] === "sleep 9"
        ? { timedOut: true, code: 137 }
        : {},
  );
  const warnings: string[] = [];
  setWarningSink((m) => warnings.push(m));
  const extra: Record<string, number> = {};
  try {
    await runAllCollectHooks(box, extra);
  } finally {
    setWarningSink(null);
  }
  assert.deepEqual(extra, { collect_hooks_failed: 3 });
  assert.equal(calls.length, 3, "the hook of a service the pod lacks is not run; the one after it is");
  assert.deepEqual(warnings.map((w) => w.replace(/^t-[\w-]+: /, "")), [
    "[[verifier.collect]] 0 in service db exited 3: broken; collection goes on, as in Harbor",
    "[[verifier.collect]] 1 in service db timed out after 1 s; collection goes on, as in Harbor",
    "[[verifier.collect]] 2 in service cache has no container in the pod; collection goes on, as in Harbor",
  ]);
});
