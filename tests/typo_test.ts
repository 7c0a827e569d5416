/**
 * A typo gets "did you mean": task.toml sections and keys (a warning naming the key, the run goes on), eval YAML keys
 * (in the case the user writes them), and CLI flags. No engine needed.
 */
import assert from "node:assert/strict";
import { parseTaskConfig } from "../lib/task/task_config.ts";
import { captured, noEnv } from "./task_config_helpers.ts";
import { join } from "node:path";
import { COUNT, NO_ENGINE, oneLine } from "./cli_helpers.ts";

Deno.test("task.toml: a mistyped section or key is named with the key it is close to", () => {
  const text = `[enviroment]\ncpus = 2\n[verifier]\ntimout_sec = 30\n[agent]\ntimeout_secs = 5\n`;
  const { warned } = captured(() => parseTaskConfig(text, "typo/task.toml", noEnv));
  assert.deepEqual(warned, [
    'typo/task.toml: unknown key enviroment ignored; did you mean "environment"?',
    'typo/task.toml: unknown key verifier.timout_sec ignored; did you mean "timeout_sec"?',
    'typo/task.toml: unknown key agent.timeout_secs ignored; did you mean "timeout_sec"?',
  ]);
});

Deno.test("eval YAML: an unknown key is named with its near miss, the keys listed in the user's own style", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_typo_" });
  try {
    const env = { DOCKER_HOST: NO_ENGINE };
    for (
      const [key, near, listed] of [
        ["max_turn", "max_turns", "max_turns"],
        ["max-turn", "max-turns", "max-turns"],
        ["maxTurn", "maxTurns", "maxTurns"],
      ]
    ) {
      const file = join(dir, `${key}.yaml`);
      await Deno.writeTextFile(file, `tasks: ${COUNT}\npolicy: oracle\n${key}: 3\n`);
      await oneLine(
        ["eval", "--config", file],
        2,
        new RegExp(`unknown key "${key}"; did you mean "${near}"\\? \\(known: .*\\b${listed}\\b`),
        env,
      );
    }
    // A parse error leads with its line and column, and no dangling colon.
    const bad = join(dir, "bad.yaml");
    await Deno.writeTextFile(bad, "tasks: x\nk: a: b\n");
    await oneLine(["eval", "--config", bad], 2, /bad\.yaml:2:4: not YAML: Nested mappings are not allowed[^:]*$/, env);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI flags: a mistyped flag is named with the one it is close to", async () => {
  const env = { DOCKER_HOST: NO_ENGINE };
  await oneLine(
    ["eval", "--tasks", COUNT, "--policy", "oracle", "--max_turns", "3"],
    2,
    /Unknown option '--max_turns'.*; did you mean "--max-turns"\?$/,
    env,
  );
  await oneLine(["harbor", "check", COUNT, "--worker", "2"], 2, /; did you mean "--workers"\?$/, env);
});
