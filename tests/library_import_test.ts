/**
 * The library imports from a project of its own: the README's library example, run from a scratch folder with no
 * deno.json (so none of pgs's import map applies), imports mod.ts by path and runs episodes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { dockerTest } from "./docker_helpers.ts";
import { ROOT } from "./eval_helpers.ts";

/** The README's `trainer.ts` block, with its placeholder checkout path. */
async function readmeExample(): Promise<string> {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const m = /```ts\n(\/\/ trainer\.ts[^]*?)```/.exec(readme);
  assert.ok(m, "README.md has the library example that starts with // trainer.ts");
  return m[1];
}

dockerTest("library: the README's example imports mod.ts by path from a folder with no configuration", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_trainer_" });
  try {
    const example = await readmeExample();
    assert.match(example, /from "\/opt\/pgs\/mod\.ts"/);
    const script = example.replaceAll("/opt/pgs", ROOT) +
      // What the example prints is for people; the test also wants the rewards.
      "console.log('REWARDS', JSON.stringify(groups.flat().map((t) => t.reward)));\n";
    await Deno.writeTextFile(join(dir, "trainer.ts"), script);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "trainer.ts"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout), stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.doesNotMatch(stderr, /not a dependency|Relative import path/);
    assert.deepEqual(JSON.parse(/^REWARDS (.*)$/m.exec(stdout)![1]), [1, 1]);
    // Nothing of a project was made in the scratch folder.
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["trainer.ts"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("library: its source names npm packages by full specifier, at the versions deno.json pins", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const pins = new Map<string, string>();
  for (const [name, target] of Object.entries(config.imports as Record<string, string>)) {
    if (target.startsWith("npm:")) pins.set(name, target);
  }
  const bad: string[] = [];
  const roots = ["mod.ts", "main.ts", "lib", "profiles", "cli", "stub"];
  const files: string[] = [];
  const walk = (p: string) => {
    const st = Deno.statSync(p);
    if (st.isFile) return void (p.endsWith(".ts") && !p.endsWith("_test.ts") && files.push(p));
    for (const e of Deno.readDirSync(p)) walk(join(p, e.name));
  };
  for (const r of roots) walk(join(ROOT, r));
  for (const f of files) {
    const src = await Deno.readTextFile(f);
    for (const m of src.matchAll(/^\s*(?:import|export)[^"'\n]*?from\s+["']([^"']+)["']/gm)) {
      const spec = m[1];
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      const rel = f.slice(ROOT.length + 1);
      if (!spec.startsWith("npm:")) {
        bad.push(`${rel}: bare specifier ${spec}`);
        continue;
      }
      const pinned = [...pins.values()].find((p) => spec === p || spec.startsWith(`${p}/`));
      if (!pinned) bad.push(`${rel}: ${spec} is not a version deno.json pins`);
    }
  }
  assert.deepEqual(bad, []);
});
