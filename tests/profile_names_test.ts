/**
 * No shared file names a profile: what differs between harnesses is data on the profile (capabilities, model rules,
 * capture recipes, edit matchers, protocols), and each profile's own pieces live in its folder under `profiles/`. The
 * code of `lib/`, `cli/`, `stub/`, `mod.ts` and `main.ts` (comments aside: they may say where a rule came from) holds
 * no registered profile's name, in any of its spellings, and no shared file is named after one. The exceptions are
 * names that are something else too, each with its reason.
 */
import assert from "node:assert/strict";
import { basename, join, relative } from "node:path";
import { profileNames } from "../lib/harness/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { ROOT } from "./eval_helpers.ts";

registerBuiltins();

/** (file prefix, name): a name that is also something else there. */
const ALLOWED: [string, string, string][] = [
  ["lib/tokens/parsers/", "hermes", "the Hermes tool-call format, a model family's, not the harness"],
  ["cli/token_flags.ts", "hermes", "the --tool-parser value naming that format"],
  ["cli/eval.ts", "hermes", "the --tool-parser value naming that format"],
  ["lib/eval/config.ts", "hermes", "the default --tool-parser"],
  ["lib/harness/registry.ts", "palingenesis-default", "NO_PROFILE_DIALECT: pgs's own dialect, the default"],
];

/** A name's spellings: as registered, snake_case, camelCase. */
function spellings(name: string): string[] {
  const camel = name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return [...new Set([name, name.replaceAll("-", "_"), camel])];
}

/** The code of a TypeScript file, comments blanked (a `//` inside a string, such as a URL, is kept). */
export function codeOf(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

async function sharedFiles(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      else if (p.endsWith(".ts") && !p.endsWith("_test.ts")) out.push(p);
    }
  };
  for (const d of ["lib", "cli", "stub"]) await walk(join(ROOT, d));
  return [...out, join(ROOT, "mod.ts"), join(ROOT, "main.ts")];
}

Deno.test("no shared file names a profile (code, not comments) or is named after one", async () => {
  const names = [...new Set(profileNames().map((n) => n.slice(0, n.lastIndexOf("@"))))];
  assert.ok(names.length >= 15, `the built-ins are registered: ${names.length}`);
  const found: string[] = [];
  for (const file of await sharedFiles()) {
    const rel = relative(ROOT, file);
    const code = codeOf(await Deno.readTextFile(file));
    const stem = basename(file, ".ts");
    for (const name of names) {
      if (ALLOWED.some(([prefix, n]) => rel.startsWith(prefix) && n === name)) continue;
      for (const s of spellings(name)) {
        const re = new RegExp(`(?<![A-Za-z0-9_-])${s.replace(/[-.]/g, "\\$&")}(?![A-Za-z0-9_-])`);
        if (re.test(code)) found.push(`${rel}: ${s}`);
        if (stem === s || stem.startsWith(`${s}_`)) found.push(`${rel}: named after ${name}`);
      }
    }
  }
  assert.deepEqual(found, [], "move the piece into the profile's folder, or make it data on the profile");
});

Deno.test("the check finds a name in code and not in a comment", () => {
  const code = codeOf(`// opencode does this\nconst url = "http://x/y"; /* codex */\nif (p.name === "opencode") {}`);
  assert.doesNotMatch(code, /does this|codex/);
  assert.match(code, /"opencode"/);
  assert.match(code, /http:\/\/x\/y/);
});
