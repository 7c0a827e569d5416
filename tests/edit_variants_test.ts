/**
 * The forgiving edits and their `+exact-edit` variants, through each profile's own edit tool in a real container: the
 * same near-miss edit applies under the profile (with the text its matcher computes; the matcher tables next to
 * lib/harness/tools/edit_match/ hold each harness's own results) and leaves the file untouched under the variant,
 * answered with the harness's not-found wording. Also: the variant is its own profile name, and it refuses profiles
 * whose edits are already exact.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AssistantTurn } from "../lib/harness/profile_episode.ts";
import { getProfile, profileNames, resolveProfileName } from "../lib/harness/registry.ts";
import type { HarnessProfile } from "../lib/harness/types.ts";
import { chainFor } from "../lib/harness/tools/edit_match/types.ts";
import { read, write } from "../lib/harness/tools/ops.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS, runTool, withEpisode } from "./profile_helpers.ts";

registerBuiltins();

const FIX = join(EXAMPLE_TASKS, "fix-word-count");

/** A near-miss edit under one profile: the file, the calls (a read first where the harness insists), the miss. */
interface NearMiss {
  file: string;
  before: string;
  /** The edit's old and new text as the matcher request sees them. */
  old: string;
  neu: string;
  /** Calls made before the edit (claude-code's Read). */
  setup?: [string, Record<string, unknown>][];
  edit: [string, Record<string, unknown>];
  /** What the exact variant answers (a substring of the result). */
  missWording: string;
}

const INDENT = { before: "def f():\n    return 1\n", old: "def f():\n  return 1", neu: "def f():\n  return 2" };
const TRAILING = { before: "a = 1   \nb = 2\n", old: "a = 1\nb = 2", neu: "a = 3\nb = 2" };
const QUOTES = { before: "say “hi” now\n", old: 'say "hi" now', neu: 'say "bye" now' };
/** A method's lines given without the class's indent (small-agent re-indents them to the matched line). */
const SHIFTED = {
  before: "class A:\n    def f(self):\n        return 1\n",
  old: "def f(self):\n    return 1",
  neu: "def f(self):\n    return 2",
};

const CASES: Record<string, NearMiss> = {
  "opencode@1.18.33": {
    file: "/workdir/n.py",
    ...INDENT,
    edit: ["edit", { filePath: "/workdir/n.py", oldString: INDENT.old, newString: INDENT.neu }],
    missWording: "Could not find oldString in the file.",
  },
  "pi@0.73.1": {
    file: "/workdir/n.py",
    ...TRAILING,
    edit: ["edit", { path: "n.py", edits: [{ oldText: TRAILING.old, newText: TRAILING.neu }] }],
    missWording: "Could not find the exact text in n.py.",
  },
  "hermes@main-e6899c8": {
    file: "/workdir/n.py",
    ...INDENT,
    edit: ["patch", { mode: "replace", path: "n.py", old_string: INDENT.old, new_string: INDENT.neu }],
    missWording: "Could not find a match for old_string in the file",
  },
  "gemini-cli@0.61.0": {
    file: "/workdir/n.py",
    ...INDENT,
    edit: ["replace", { file_path: "n.py", instruction: "return 2", old_string: INDENT.old, new_string: INDENT.neu }],
    missWording: "Could not find an exact match for 'old_string'",
  },
  "claude-code@2.1.332": {
    file: "/workdir/n.txt",
    ...QUOTES,
    setup: [["Read", { file_path: "/workdir/n.txt" }]],
    edit: ["Edit", { file_path: "/workdir/n.txt", old_string: QUOTES.old, new_string: QUOTES.neu }],
    missWording: "String to replace not found in file.",
  },
  // A text protocol: the edit is one action block (see `turnFor`).
  "small-agent@1": {
    file: "/workdir/n.py",
    ...SHIFTED,
    edit: ["act", { action: `edit n.py\nFind:\n${SHIFTED.old}\nReplace:\n${SHIFTED.neu}` }],
    missWording: "Find: does not match n.py",
  },
};

/** One call as an assistant turn: a native tool call, or the block of a fenced text protocol. */
function turnFor(profile: HarnessProfile, tool: string, args: Record<string, unknown>): AssistantTurn {
  const p = profile.protocol;
  if (p.kind === "fenced") return { content: `\`\`\`${p.lang}\n${args[p.arg]}\n\`\`\`` };
  return {
    content: "",
    tool_calls: [{ id: "e1", type: "function", function: { name: tool, arguments: JSON.stringify(args) } }],
  };
}

Deno.test("edit variants: every profile with a forgiving edit has a near-miss case here, and only those", () => {
  // A derived version shares the version it extends' matcher: its base's case stands for it.
  const forgiving = profileNames().filter((n) => getProfile(n).edits && !getProfile(n).extends);
  assert.deepEqual(forgiving.sort(), Object.keys(CASES).sort());
  for (const n of profileNames().filter((n) => getProfile(n).extends && getProfile(n).edits)) {
    const base = `${n.slice(0, n.lastIndexOf("@"))}@${getProfile(n).extends!.version}`;
    assert.equal(getProfile(n).edits!.matcher, getProfile(base).edits!.matcher, n);
  }
});

Deno.test("edit variants: +exact-edit is its own profile, keeps only the first strategy, and refuses exact profiles", () => {
  assert.equal(resolveProfileName("opencode+exact-edit"), "opencode@1.18.33+exact-edit");
  const p = getProfile("opencode@1.18.33+exact-edit");
  assert.equal(`${p.name}@${p.version}`, "opencode@1.18.33+exact-edit");
  assert.deepEqual(chainFor(p.edits!.matcher, p.edits!.rule), ["simple"]);
  assert.throws(() => resolveProfileName("qwen-code+exact-edit"), /does not apply: qwen-code@0\.24\.4's edit tools/);
  assert.throws(() => resolveProfileName("opencode+fuzzy"), /unknown profile variant "\+fuzzy".*valid: \+exact-edit/);
});

for (const [name, c] of Object.entries(CASES)) {
  dockerTest(`edit variants: ${name} forgives a near-miss edit, ${name}+exact-edit does not`, async (docker) => {
    for (const variant of ["", "+exact-edit"]) {
      const profile = getProfile(name + variant);
      await withEpisode(docker, profile, FIX, async (ep) => {
        await write(ep.session.box, c.file, c.before);
        for (const [tool, args] of c.setup ?? []) await runTool(ep, tool, args);
        const [tool, args] = c.edit;
        const r = await ep.step(turnFor(profile, tool, args));
        const result = JSON.stringify(r.observations.map((o) => o.content));
        const after = await read(ep.session.box, c.file);
        if (variant) {
          assert.equal(after, c.before, `${name}${variant} leaves the file as it was`);
          assert.ok(result.includes(c.missWording.replaceAll('"', '\\"')), `${name}${variant}: ${result}`);
        } else {
          const m = profile.edits!.matcher.replace(
            { content: c.before, old: c.old, neu: c.neu },
            profile.edits!.matcher.chain,
          );
          assert.ok(m.ok, `${name}'s matcher forgives the case`);
          assert.notEqual(after, c.before, `${name} changed the file`);
          assert.equal(after, m.ok ? m.content : "", `${name} wrote what its matcher computed (${m.ok && m.strategy})`);
        }
      });
    }
  });
}
