/**
 * Every harness's model dependence against its recordings (tests/golden/<harness>/models.json: the first request made
 * with each model name, reduced by scripts/model_golden.ts). For each recorded name, what the harness sends differently
 * from the name the profile was recorded with is either followed by the profile under `--harness-model` (its
 * generation settings exactly; its tools, descriptions and system text changing where the harness's do) or declared
 * as a gap (`dialectGaps`, which the CLI warns about); a name that changes nothing declares nothing.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { deepEqual } from "../lib/conformance/compare.ts";
import { toChat } from "../lib/conformance/wire_to_chat.ts";
import { dialectGapWarning, withHarnessModel } from "../lib/harness/model_dialect.ts";
import { getProfile } from "../lib/harness/registry.ts";
import type { HarnessProfile } from "../lib/harness/types.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

// deno-lint-ignore no-explicit-any
type Json = any;

const HARNESSES = ["gemini-cli", "claude-code", "codex", "opencode", "qwen-code", "pi"];

/** The empty conversation a reduced request needs back to be read in chat form. */
const CONVERSATION: Record<string, Json> = { chat: { messages: [] }, messages: { messages: [] } };
CONVERSATION.gemini = { contents: [] };
CONVERSATION.responses = { input: [] };

async function golden(harness: string): Promise<Record<string, Json>> {
  const file = path.join(import.meta.dirname!, "golden", harness, "models.json");
  return JSON.parse(await Deno.readTextFile(file)).models;
}

/** The recorded tools in chat form (names, parameters), and each description's hash. */
function recordedTools(entry: Json): { name: string; parameters: unknown }[] {
  const chat = toChat({ ...entry.request, ...CONVERSATION[entry.wire] });
  return (chat?.tools ?? []).map((t) => ({ name: t.function.name, parameters: t.function.parameters }));
}

const toolNames = (p: HarnessProfile) => p.tools.map((t) => t.schema.function.name);
const gapsAbout = (p: HarnessProfile, what: RegExp) => (p.dialectGaps ?? []).some((g) => what.test(g));

for (const harness of HARNESSES) {
  Deno.test(`${harness}: each recorded model name is followed or declared`, async () => {
    const models = await golden(harness);
    const base = getProfile(harness);
    assert.ok(base.models, `${harness} states its model dependence`);
    const recordedWith = base.models!.recordedWith;
    assert.ok(models[recordedWith], `the golden holds the name the profile was recorded with (${recordedWith})`);
    const ref = models[recordedWith];
    for (const [name, entry] of Object.entries(models)) {
      const p = withHarnessModel(getProfile(harness), name);
      const where = `${harness} -m ${name}`;
      // Generation settings: exactly the recorded ones, key by key.
      for (const [k, v] of Object.entries(p.generation ?? {})) {
        assert.ok(
          deepEqual(entry.request[k], v),
          `${where}: ${k} ${JSON.stringify(v)} ≠ ${JSON.stringify(entry.request[k])}`,
        );
      }
      // The tools: sent as recorded (what the profile leaves out aside), else declared.
      const omitted = new Set(p.omittedTools ?? []);
      const tools = recordedTools(entry).filter((t) => !omitted.has(t.name));
      const sameNames = deepEqual(toolNames(p), tools.map((t) => t.name));
      assert.ok(sameNames || gapsAbout(p, /tool/), `${where}: tools ${toolNames(p)} vs ${tools.map((t) => t.name)}`);
      if (sameNames) {
        for (const t of tools) {
          const mine = p.tools.find((x) => x.schema.function.name === t.name)!.schema.function;
          assert.ok(deepEqual(mine.parameters, t.parameters) || gapsAbout(p, /tool/), `${where}: ${t.name} schema`);
        }
      }
      // A description the harness changes with the name: the profile's changes too, or the gap says so.
      for (const t of tools) {
        const changed = entry.description_sha256[t.name] !== ref.description_sha256[t.name] &&
          ref.description_sha256[t.name] !== undefined;
        if (!changed || !toolNames(p).includes(t.name)) continue;
        const mine = p.tools.find((x) => x.schema.function.name === t.name)!.schema.function.description;
        const refDescription = base.tools.find((x) => x.schema.function.name === t.name)?.schema.function.description;
        assert.ok(mine !== refDescription || gapsAbout(p, /description/), `${where}: ${t.name}'s description`);
      }
      // The system text: another prompt is followed (another paraphrase) or declared.
      if (entry.system_first_line !== ref.system_first_line) {
        assert.ok(p.system !== base.system || gapsAbout(p, /prompt/), `${where}: the system prompt`);
      }
      // A name that changes nothing the golden shows declares nothing.
      const same = deepEqual(recordedTools(entry), recordedTools(ref)) &&
        deepEqual(entry.description_sha256, ref.description_sha256) &&
        entry.system_first_line === ref.system_first_line;
      if (same && name !== recordedWith && harness !== "qwen-code") {
        assert.equal(dialectGapWarning(p), undefined, `${where}: nothing changes, nothing to declare`);
      }
    }
  });
}

Deno.test("model dependence: the warning names the profile, the name and what is not followed", () => {
  const p = withHarnessModel(getProfile("codex"), "gpt-5.5");
  assert.match(dialectGapWarning(p)!, /^codex@0\.171\.0 with harness model gpt-5\.5: the real harness also changes /);
  assert.match(dialectGapWarning(p)!, /use --overlay\)$/);
  assert.equal(dialectGapWarning(withHarnessModel(getProfile("codex"), "stub-model")), undefined);
  assert.equal(dialectGapWarning(withHarnessModel(getProfile("pi"), "gpt-5.5")), undefined);
  // claude-code takes opus 4.1 for opus 5.5 (its legacy remap): the 5.5 settings.
  const opus = withHarnessModel(getProfile("claude-code"), "claude-opus-4-1");
  assert.equal(opus.generation?.max_tokens, 128000);
});
