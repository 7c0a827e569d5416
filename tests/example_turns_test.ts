/** `examples/turns.json`, the README's example script, answers count-error-lines under the profiles it names. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scriptPolicy } from "../lib/policies/policy.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { parseScript } from "../lib/script/script.ts";
import { dockerTest } from "./docker_helpers.ts";
import { ROOT } from "./eval_helpers.ts";

dockerTest("examples/turns.json solves count-error-lines under opencode and pi", async () => {
  const turns = parseScript(await Deno.readTextFile(join(ROOT, "examples", "turns.json")));
  const task_dir = join(ROOT, "examples", "tasks", "count-error-lines");
  const rows = ["opencode", "pi"].map((p) => ({ task_dir, harness_profile: p }));
  const ts = (await runEpisodes(scriptPolicy(turns), rows, {}, { k: 1 })).flat();
  assert.deepEqual(ts.map((t) => [t.profile.split("@")[0], t.reward, t.exit_status]), [
    ["opencode", 1, "stop_rule"],
    ["pi", 1, "stop_rule"],
  ]);
});
