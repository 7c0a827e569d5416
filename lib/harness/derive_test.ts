/**
 * Profile versions derived from one another (`deriveProfile`): the change applied as data, `extends` recorded, the
 * capture recipe and `emulates` moved to the new version, the base untouched; a derived version registers with one
 * line and `pgs harness profiles` shows what it changed.
 */
import assert from "node:assert/strict";
import { deriveProfile } from "./derive.ts";
import { ProfileRegistry } from "./registry.ts";
import { geminiCli } from "../../profiles/gemini_cli/mod.ts";

const NEXT = {
  version: "9.9.9",
  changes: ["read_file's description shortened", "thinking at level LOW"],
  change: {
    descriptions: { read_file: "Reads a file." },
    generation: { generationConfig: { thinkingConfig: { thinkingLevel: "LOW" } } },
  },
  sources: ["tests/golden/gemini-cli@9.9.9/ (a recording of the new version)"],
};

Deno.test("deriveProfile: the change as data, extends, capture recipe and emulates at the new version", () => {
  const base = geminiCli();
  const next = deriveProfile(base, NEXT);
  assert.equal(next.version, "9.9.9");
  assert.deepEqual(next.extends, { version: "0.61.0", changes: NEXT.changes });
  assert.equal(
    next.tools.find((t) => t.schema.function.name === "read_file")!.schema.function.description,
    "Reads a file.",
  );
  assert.deepEqual(next.generation?.generationConfig, {
    temperature: 1,
    topP: 0.95,
    topK: 64,
    thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" },
  });
  assert.equal(next.capture?.local?.version, "9.9.9");
  assert.equal(next.capture?.local?.pkg, base.capture?.local?.pkg);
  assert.equal(next.emulates.version, "9.9.9");
  assert.equal(next.emulates.sources[0], NEXT.sources[0]);
  // The base is untouched, its tool bindings shared.
  assert.equal(base.version, "0.61.0");
  assert.notEqual(
    base.tools.find((t) => t.schema.function.name === "read_file")!.schema.function.description,
    "Reads a file.",
  );
  assert.equal(next.tools[0].bind, base.tools[0].bind);
  // One registry line.
  const reg = new ProfileRegistry();
  reg.register("gemini-cli", "0.61.0", geminiCli, true);
  reg.register("gemini-cli", "9.9.9", () => deriveProfile(geminiCli(), NEXT));
  assert.deepEqual(reg.names(), ["gemini-cli@0.61.0", "gemini-cli@9.9.9"]);
  assert.equal(reg.get("gemini-cli").version, "0.61.0");
  assert.equal(reg.get("gemini-cli@9.9.9").extends?.version, "0.61.0");
});
