/**
 * `--harness-model`: the model name a harness is configured with, on `harness show`, `pgs eval` (flag, YAML and a
 * row's `harness_model`) and HarborEnv; the dialect follows it, the trajectory records it, and the episode's tool
 * results do not change with it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { readTrajectories } from "../lib/eval/records/trajectory.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { GEMINI_LEGACY_SYSTEM_PROMPT } from "../profiles/gemini_cli/models.ts";
import { dockerTest } from "./docker_helpers.ts";
import { pgs, ROOT } from "./eval_helpers.ts";
import { call } from "./profile_helpers.ts";

registerBuiltins();

const COUNT = join(ROOT, "examples", "tasks", "count-error-lines");

// deno-lint-ignore no-explicit-any
type Json = any;

dockerTest("harness show --harness-model: gemini-cli's Gemini 3 and Gemini 2.5 dialects", async () => {
  const show = async (model: string) => {
    const r = await pgs(["harness", "show", "gemini-cli", "--harness-model", model, "--task", COUNT, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const g3: Json = await show("gemini-3.1-pro-preview"), g25: Json = await show("gemini-2.5-pro");
  assert.equal(g3.harness_model, "gemini-3.1-pro-preview");
  assert.deepEqual(g3.generation.generationConfig.thinkingConfig, { includeThoughts: true, thinkingLevel: "HIGH" });
  const writeFile = g3.tools.find((t: Json) => t.function.name === "write_file").function;
  assert.match(writeFile.description, /^Writes the complete content to a file, automatically creating/);
  assert.equal(g3.tools.length, 7);
  assert.deepEqual(g25.generation.generationConfig.thinkingConfig, { includeThoughts: true, thinkingBudget: 8192 });
  assert.equal(g25.messages[0].content, GEMINI_LEGACY_SYSTEM_PROMPT);
  assert.equal(g25.tools.at(-1).function.name, "write_todos");
  // The user's turn does not depend on the name.
  assert.deepEqual(g3.messages.slice(1), g25.messages.slice(1));
  const text = await pgs(["harness", "show", "gemini-cli", "--harness-model", "gemini-2.5-pro", "--task", COUNT]);
  assert.match(text.stdout, /^# gemini-cli@0\.61\.0 on .* \(harness model gemini-2\.5-pro\)$/m);
  assert.match(text.stdout, /^## generation/m);
});

dockerTest("HarborEnv: a row's harness_model wins over the option; tool results are the same under each", async () => {
  const env = new HarborEnv({ profile: "gemini-cli", harnessModel: { "gemini-cli": "gemini-3.1-pro-preview" } });
  try {
    const outputs: string[] = [];
    for (const harness_model of [undefined, "gemini-2.5-pro"]) {
      const ep = await env.reset({ task_dir: COUNT, harness_model }, 1);
      try {
        assert.equal(ep.info.harness_model, harness_model ?? "gemini-3.1-pro-preview");
        const names = ep.tools.map((t) => t.function.name);
        assert.equal(names.includes("write_todos"), harness_model === "gemini-2.5-pro");
        const r = await ep.step({ tool_calls: [call("run_shell_command", { command: "grep -c ERROR app.log" })] });
        outputs.push(String(r.observations[0].content).replace(/PGID: \d+/, "PGID: N")); // a pid differs
      } finally {
        await ep.close();
      }
    }
    assert.equal(outputs[0], outputs[1]);
  } finally {
    await env.close();
  }
});

dockerTest(
  "pgs eval --harness-model: recorded in every trajectory and in run.json; YAML takes one per profile",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_harness_model_" });
    try {
      const out = join(dir, "run");
      let r = await pgs([
        "eval",
        "--tasks",
        COUNT,
        "--policy",
        "oracle",
        "--profile",
        "gemini-cli",
        "--harness-model",
        "gemini-2.5-pro",
        "--out",
        out,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const [t] = readTrajectories(join(out, "trajectories.jsonl"));
      assert.equal(t.reward, 1);
      assert.equal(t.harness_model, "gemini-2.5-pro");
      assert.deepEqual((t.generation as Json).generationConfig.thinkingConfig.thinkingBudget, 8192);
      assert.ok(t.tools.some((x) => x.function.name === "write_todos"));
      const run = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      assert.equal(run.settings.harnessModel, "gemini-2.5-pro");
      const yaml = join(dir, "eval.yaml");
      await Deno.writeTextFile(yaml, `harness_model:\n  gemini-cli: gemini-3.1-pro-preview\n  pi: stub-model\n`);
      r = await pgs([
        "eval",
        "--config",
        yaml,
        "--tasks",
        COUNT,
        "--policy",
        "oracle",
        "--profiles",
        "gemini-cli=1,pi=1",
        "--cross",
        "--out",
        join(dir, "run2"),
      ]);
      assert.equal(r.code, 0, r.stderr);
      const byProfile = Object.fromEntries(
        readTrajectories(join(dir, "run2", "trajectories.jsonl")).map((
          x,
        ) => [x.profile.split("@")[0], x.harness_model]),
      );
      assert.deepEqual(byProfile, { "gemini-cli": "gemini-3.1-pro-preview", pi: "stub-model" });
      const bad = await pgs(["eval", "--tasks", COUNT, "--policy", "oracle", "--harness-model", "", "--out", out]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--harness-model must be a non-empty string/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
