/**
 * gemini-cli's model-conditioned dialect against three recordings of gemini 0.61.0 (`-m stub-model`,
 * `gemini-3.1-pro-preview`, `gemini-2.5-pro`) reduced to tests/golden/gemini-cli/models.json by
 * scripts/model_golden.ts: the tools sent (names, order, schemas), descriptions exact where the profile carries them
 * and different wherever the harness's differ, the system prompt's family and the generationConfig, for each name.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as path from "node:path";
import { modelMatches, rulesFor, withHarnessModel } from "../../lib/harness/model_dialect.ts";
import type { HarnessProfile } from "../../lib/harness/types.ts";
import { GEMINI_SYSTEM_PROMPT, geminiCli } from "./mod.ts";
import { GEMINI_LEGACY_SYSTEM_PROMPT, GEMINI_MODELS } from "./models.ts";
import { unknownToolMessage } from "./unknown_tool.ts";
import { writeTodosTool } from "./write_todos.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const golden: { models: Record<string, Json> } = JSON.parse(
  await Deno.readTextFile(path.join(import.meta.dirname!, "..", "..", "tests", "golden", "gemini-cli", "models.json")),
);
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const RECORDED = Object.keys(golden.models);
/** Descriptions the profile paraphrases (long upstream prose); every other one is carried exactly. */
const PARAPHRASED = new Set(["read_file", "replace", "run_shell_command", "write_todos"]);

const declarations = (m: string): Json[] => golden.models[m].request.tools[0].functionDeclarations;
const toolsOf = (p: HarnessProfile) => p.tools.map((t) => t.schema.function);

Deno.test("gemini-cli models: the recordings cover the three families", () => {
  assert.deepEqual(RECORDED.sort(), ["gemini-2.5-pro", "gemini-3.1-pro-preview", "stub-model"]);
  assert.equal(GEMINI_MODELS.recordedWith, "stub-model");
});

for (const model of ["stub-model", "gemini-3.1-pro-preview", "gemini-2.5-pro"]) {
  Deno.test(`gemini-cli models: -m ${model}: tools, schemas, descriptions, generationConfig as recorded`, () => {
    const p = withHarnessModel(geminiCli(), model);
    assert.equal(p.harnessModel, model);
    const recorded = declarations(model);
    const omitted = new Set(p.omittedTools);
    // Every recorded tool is sent, in order, or left out by design; nothing else is sent.
    assert.deepEqual(toolsOf(p).map((f) => f.name), recorded.map((d) => d.name).filter((n) => !omitted.has(n)));
    assert.equal(recorded.length, model === "gemini-2.5-pro" ? 16 : 15);
    for (const f of toolsOf(p)) {
      const d = recorded.find((x) => x.name === f.name);
      assert.deepEqual(f.parameters, d.parametersJsonSchema, `${model} ${f.name}: schema`);
      const exact = sha(f.description) === golden.models[model].description_sha256[f.name];
      assert.equal(exact, !PARAPHRASED.has(f.name), `${model} ${f.name}: exact iff not paraphrased`);
    }
    assert.deepEqual(p.generation, { generationConfig: golden.models[model].request.generationConfig });
    const legacy = golden.models[model].system_first_line.startsWith("You are a non-interactive CLI agent");
    assert.equal(p.system, legacy ? GEMINI_LEGACY_SYSTEM_PROMPT : GEMINI_SYSTEM_PROMPT);
  });
}

Deno.test("gemini-cli models: a description differs between two names exactly where the harness's does", () => {
  for (const [a, b] of [["stub-model", "gemini-3.1-pro-preview"], ["stub-model", "gemini-2.5-pro"]]) {
    const pa = withHarnessModel(geminiCli(), a), pb = withHarnessModel(geminiCli(), b);
    for (const f of toolsOf(pa)) {
      const g = toolsOf(pb).find((x) => x.name === f.name)!;
      const upstream = golden.models[a].description_sha256[f.name] !== golden.models[b].description_sha256[f.name];
      assert.equal(f.description !== g.description, upstream, `${a} vs ${b}: ${f.name}`);
    }
  }
});

Deno.test("gemini-cli models: the default is the recorded name, and the profile's own dialect", () => {
  const base = geminiCli();
  const p = withHarnessModel(base);
  assert.equal(p.harnessModel, "stub-model");
  assert.deepEqual(toolsOf(p), toolsOf(base));
  assert.equal(p.system, base.system);
});

Deno.test("gemini-cli models: aliases, raw and resolved names, exact-name thinking", () => {
  const names = (m: string) => rulesFor(GEMINI_MODELS, m).map((r) => r.name);
  // resolveModel turns gemini-3-pro-preview into 3.1 (recorded), so it thinks at HIGH like it.
  assert.deepEqual(names("gemini-3-pro-preview"), ["gemini-3-tools", "thinking-level"]);
  assert.deepEqual(names("gemini-3.1-pro-preview"), ["gemini-3-tools", "thinking-level"]);
  // A Gemini 3 name outside the exact table gets the Gemini 3 tools but chat-base's thinking.
  assert.deepEqual(names("gemini-3.1-pro"), ["gemini-3-tools"]);
  assert.deepEqual(names("gemini-2.5-flash"), ["legacy-prompt", "write-todos", "thinking-budget"]);
  // write_todos tests the name as given: auto-gemini-2.5 resolves to 2.5-pro (legacy prompt, budget) without it.
  assert.deepEqual(names("auto-gemini-2.5"), ["legacy-prompt", "thinking-budget"]);
  assert.deepEqual(names("gemini-1.5-pro"), ["legacy-prompt"]);
  assert.deepEqual(names("qwen3-coder"), []);
  assert.ok(modelMatches({ any: [{ names: ["a"] }, { regex: "^b" }] }, "bc"));
});

Deno.test("gemini-cli models: write_todos (Gemini 2 only) answers and refuses as the harness does", async () => {
  const session = { state: new Map() } as never;
  const run = (args: Json) => writeTodosTool.bind(session, args, {} as never);
  assert.equal(
    await run({ todos: [{ description: "read", status: "completed" }, { description: "fix", status: "in_progress" }] }),
    JSON.stringify({
      output: "Successfully updated the todo list. The current list is now:\n1. [completed] read\n2. [in_progress] fix",
    }),
  );
  assert.equal(await run({ todos: [] }), JSON.stringify({ output: "Successfully cleared the todo list." }));
  const two = { todos: [{ description: "a", status: "in_progress" }, { description: "b", status: "in_progress" }] };
  assert.equal(
    await run(two),
    JSON.stringify({ error: 'Invalid parameters: Only one task can be "in_progress" at a time.' }),
  );
  assert.equal(
    await run({ todos: [{ description: " ", status: "pending" }] }),
    JSON.stringify({ error: "Each todo must have a non-empty description string" }),
  );
  // Its registry holds write_todos after google_web_search: the unknown-tool suggestion sees it.
  assert.match(unknownToolMessage("write_todo", ["write_todos"]), /Did you mean one of: "write_todos"/);
  assert.doesNotMatch(unknownToolMessage("write_todo", []), /write_todos/);
});
