/**
 * Every built-in profile's `emulates.sources` can be checked by a reader of the repository: each entry is one citation
 * that `parseSource` accepts, the `tests/golden/` fixtures it names exist, no entry holds a machine's absolute path,
 * and only pgs's own dialects (palingenesis-default@1, small-agent@1) cite `pgs:`.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { parseSource } from "./provenance.ts";
import { getProfile, profileNames } from "./registry.ts";
import { registerBuiltins } from "../../profiles/mod.ts";

registerBuiltins();

const ROOT = resolve(import.meta.dirname!, "../..");
/** The profiles that are pgs's own, not emulations: the only ones that may cite `pgs:`. */
const OWN = ["palingenesis-default@1", "small-agent@1"];

/** `a/{b,c}.json` → `a/b.json`, `a/c.json` (one level of braces, as the citations use them). */
function expandBraces(path: string): string[] {
  const m = path.match(/^(.*?)\{([^{}]*)\}(.*)$/);
  if (!m) return [path];
  return m[2].split(",").flatMap((alt) => expandBraces(m[1] + alt + m[3]));
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

Deno.test("provenance: every profile's sources are checkable citations", async () => {
  const names = profileNames();
  assert.ok(names.length > 0, "the built-in profiles are registered");
  for (const name of names) {
    const p = getProfile(name);
    const models = p.models ? [...p.models.rules, ...(p.models.unmodeled ?? [])].flatMap((r) => r.sources) : [];
    const sources = [...p.emulates.sources, ...(p.edits?.matcher.sources ?? []), ...models];
    assert.ok(sources.length > 0, `${name} cites at least one source`);
    for (const entry of sources) {
      const r = parseSource(entry);
      assert.ok(!("error" in r), `${name}: ${"error" in r ? r.error : ""}`);
      if ("error" in r) continue;
      assert.doesNotMatch(entry, /(^|[\s(:])\/(work|root|home|tmp|Users|usr|var|opt|mnt)\//, `${name}: ${entry}`);
      // pgs's own dialects have no upstream: HarborEnv's (palingenesis-default@1) and the small-model harness.
      if (r.kind === "own") assert.ok(OWN.includes(name), `${name} cites pgs: (${entry})`);
      if (r.kind === "fixture") {
        for (const path of expandBraces(r.cite)) {
          assert.ok(await exists(resolve(ROOT, path)), `${name}: ${path} is not a file in the repository`);
        }
      }
    }
  }
});

Deno.test("provenance: parseSource rejects uncheckable entries and accepts each form", () => {
  for (const bad of ["/home/dev/notes/x.md", "fact sheet §3", "recordings/pi/FACTS.md"]) {
    assert.ok("error" in parseSource(bad), `rejects ${bad}`);
  }
  const good: [string, string][] = [
    ["SWE-agent/SWE-agent@3ea751c087f3:config/default.yaml", "upstream"],
    ["OpenHands/software-agent-sdk@611629e6999a:openhands-sdk/openhands/sdk/agent/{agent,utils}.py", "upstream"],
    ["npm:@mariozechner/pi-coding-agent@0.73.1:dist/core/tools/read.js", "package"],
    ["tests/golden/opencode/results.json (recorded)", "fixture"],
    ["pgs: HarborEnv's own dialect", "own"],
  ];
  for (const [entry, kind] of good) {
    const r = parseSource(entry);
    assert.ok(!("error" in r), `accepts ${entry}`);
    if (!("error" in r)) assert.equal(r.kind, kind, entry);
  }
  const noted = parseSource("tests/golden/opencode/results.json (recorded)");
  assert.ok(!("error" in noted) && noted.note === "recorded");
});
