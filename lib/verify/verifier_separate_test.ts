/** The paths a separate verifier gets from the agent's box. */
import assert from "node:assert/strict";
import { parseTaskConfig } from "../task/task_config.ts";
import type { Task } from "../task/task.ts";
import { artifactPaths } from "./verifier_separate.ts";

Deno.test("artifacts: /logs/artifacts first, each path once, a relative source in the agent's working directory", () => {
  const config = parseTaskConfig(
    `artifacts = ["out/result.json", "/var/log/app.log", { source = "/app/out/result.json" }, "/logs/artifacts/"]`,
    "t.toml",
    () => undefined,
  );
  const task = { config } as Task;
  assert.deepEqual(artifactPaths(task, "/app"), ["/logs/artifacts", "/app/out/result.json", "/var/log/app.log"]);
});
