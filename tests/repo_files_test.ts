/** The repository holds sources, not what running them leaves: no Python bytecode is tracked. */
import assert from "node:assert/strict";
import { ROOT } from "./eval_helpers.ts";

Deno.test("no __pycache__ or .pyc file is tracked", async () => {
  const out = await new Deno.Command("git", { args: ["ls-files"], cwd: ROOT, stdout: "piped" }).output();
  assert.equal(out.code, 0);
  const files = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
  assert.ok(files.length > 100, "git ls-files lists the repository");
  assert.deepEqual(files.filter((f) => /(^|\/)__pycache__\/|\.pyc$/.test(f)), []);
});
