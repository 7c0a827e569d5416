/**
 * A typo gets "did you mean": task.toml sections and keys (a warning naming the key, the run goes on), eval YAML keys
 * (in the case the user writes them), and CLI flags. No engine needed.
 */
import assert from "node:assert/strict";
import { parseTaskConfig } from "../lib/task/task_config.ts";
import { captured, noEnv } from "./task_config_helpers.ts";

Deno.test("task.toml: a mistyped section or key is named with the key it is close to", () => {
  const text = `[enviroment]\ncpus = 2\n[verifier]\ntimout_sec = 30\n[agent]\ntimeout_secs = 5\n`;
  const { warned } = captured(() => parseTaskConfig(text, "typo/task.toml", noEnv));
  assert.deepEqual(warned, [
    'typo/task.toml: unknown key enviroment ignored; did you mean "environment"?',
    'typo/task.toml: unknown key verifier.timout_sec ignored; did you mean "timeout_sec"?',
    'typo/task.toml: unknown key agent.timeout_secs ignored; did you mean "timeout_sec"?',
  ]);
});
