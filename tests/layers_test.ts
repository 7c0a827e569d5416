/**
 * The layering rule, read from Deno's own module graph (`deno info --json`): every import of a source module points
 * to its own folder or to a lower layer, never up or sideways. docs/architecture.md draws the same table.
 */
import assert from "node:assert/strict";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname!, "..");

/** Each layer and its rank: a module may import its own layer or one of a strictly lower rank. */
export const LAYERS: [prefix: string, rank: number][] = [
  ["lib/base/", 0],
  ["lib/task/", 1],
  ["lib/script/", 1],
  ["lib/tokens/", 1],
  ["lib/runtime/", 2],
  ["stub/", 2],
  ["lib/verify/", 3],
  ["lib/harness/", 3],
  ["lib/capture/", 4],
  ["profiles/", 4],
  ["lib/conformance/", 4],
  ["lib/episode/", 4],
  ["lib/env/", 5],
  ["lib/policies/", 6],
  ["lib/eval/records/", 7],
  ["lib/report/", 8],
  ["lib/export/", 8],
  ["lib/eval/", 9],
  ["lib/harbor/", 10],
  ["lib/cluster/", 11],
  ["cli/", 12],
  ["mod.ts", 13],
  ["main.ts", 14],
];

/**
 * A folder under `lib/runtime/` (a runtime such as `docker/`, or the channel's helper) is that layer's own business:
 * everything above speaks to the `Runtime` interface, and only `lib/runtime/` itself imports such a folder.
 */
export function privateToRuntime(from: string, to: string): boolean {
  const m = /^lib\/runtime\/[^/]+\//.exec(to);
  return m !== null && !from.startsWith("lib/runtime/");
}

function layerOf(path: string): [string, number] | undefined {
  const hit = LAYERS.find(([p]) => path === p || path.startsWith(p));
  return hit;
}

/** Every source file of the layers (tests, their `testdata/` folders, benches and fixtures are outside them). */
async function sourceFiles(): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const e of Deno.readDir(join(ROOT, dir))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory && e.name !== "testdata") await walk(rel);
      else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) out.push(rel);
    }
  }
  for (const d of ["lib", "profiles", "stub", "cli"]) await walk(d);
  return [...out, "main.ts", "mod.ts"].sort();
}

/** [importer, imported] for every local import in the graph of `files`, as paths relative to the repository. */
async function localImports(files: string[]): Promise<[string, string][]> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_layers_" });
  try {
    const entry = join(dir, "entry.ts");
    await Deno.writeTextFile(entry, files.map((f) => `import "${pathToFileURL(join(ROOT, f)).href}";\n`).join(""));
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", join(ROOT, "deno.json"), entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(r.success, new TextDecoder().decode(r.stderr));
    const graph = JSON.parse(new TextDecoder().decode(r.stdout)) as {
      modules: { local?: string; dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[] }[];
    };
    const pairs: [string, string][] = [];
    for (const m of graph.modules) {
      if (!m.local?.startsWith(ROOT + "/")) continue;
      for (const d of m.dependencies ?? []) {
        for (const spec of [d.code?.specifier, d.type?.specifier]) {
          if (!spec?.startsWith("file://")) continue;
          pairs.push([relative(ROOT, m.local), relative(ROOT, new URL(spec).pathname)]);
        }
      }
    }
    return pairs;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("layers: every source file belongs to a layer, and every import points to its own layer or down", async () => {
  const files = await sourceFiles();
  const orphans = files.filter((f) => !layerOf(f));
  assert.deepEqual(orphans, [], "files outside every layer");
  const pairs = await localImports(files);
  assert.ok(pairs.length > 300, `the graph has the repository's imports (${pairs.length})`);
  const bad = pairs.filter(([from, to]) => {
    if (to === "deno.json") return false; // the version, read by the CLI as JSON
    const a = layerOf(from), b = layerOf(to);
    if (!a || !b) return true;
    return a[0] !== b[0] && b[1] >= a[1];
  }).map(([from, to]) => `${from} -> ${to}`);
  assert.deepEqual(bad, []);
});

Deno.test("layers: the rule catches an upward import", () => {
  const from = layerOf("lib/runtime/sandbox.ts")!, to = layerOf("lib/verify/verifier.ts")!;
  assert.ok(from[0] !== to[0] && to[1] >= from[1]);
  const side = [layerOf("lib/verify/x.ts")!, layerOf("lib/harness/x.ts")!];
  assert.ok(side[0][0] !== side[1][0] && side[1][1] >= side[0][1], "siblings of one rank may not import each other");
});

Deno.test("layers: nothing outside lib/runtime/ imports a runtime's own folder (lib/runtime/docker/, ...)", async () => {
  const files = await sourceFiles();
  const pairs = await localImports(files);
  assert.ok(pairs.some(([, to]) => to.startsWith("lib/runtime/docker/")), "the graph reaches Docker's folder");
  const bad = pairs.filter(([from, to]) => privateToRuntime(from, to)).map(([from, to]) => `${from} -> ${to}`);
  assert.deepEqual(bad, []);
});

Deno.test("layers: the runtime rule catches an import of Docker's folder from above, and only from above", () => {
  assert.equal(privateToRuntime("lib/verify/verification.ts", "lib/runtime/docker/docker.ts"), true);
  assert.equal(privateToRuntime("cli/env_serve.ts", "lib/runtime/podman/podman.ts"), true);
  assert.equal(privateToRuntime("mod.ts", "lib/runtime/docker/mod.ts"), true);
  assert.equal(privateToRuntime("lib/runtime/runtimes.ts", "lib/runtime/docker/docker.ts"), false);
  assert.equal(privateToRuntime("lib/verify/verification.ts", "lib/runtime/runtime.ts"), false);
});
