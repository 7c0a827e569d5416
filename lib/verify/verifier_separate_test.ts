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
  assert.deepEqual(artifactPaths(task, "/app").map((a) => a.path), [
    "/logs/artifacts",
    "/app/out/result.json",
    "/var/log/app.log",
  ]);
});

Deno.test("artifacts: a sidecar's source is read from its service; the first claimant of a path is kept", () => {
  const config = parseTaskConfig(
    `artifacts = [{ source = "/export/state.txt", service = "db" }, "/export/state.txt", ` +
      `{ source = "/data", service = " main " }]`,
    "t.toml",
    () => undefined,
  );
  const task = { config } as Task;
  assert.deepEqual(artifactPaths(task, "/app"), [
    { path: "/logs/artifacts", service: "main" },
    { path: "/export/state.txt", service: "db" },
    { path: "/data", service: "main" },
  ]);
});
