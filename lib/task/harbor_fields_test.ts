/** Harbor's sidecar fields: `artifacts` entries with `service`, `[[verifier.collect]]` hooks, and the loader's check. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { throwsTask } from "../../tests/task_config_helpers.ts";
import { checkCollect, checkServices } from "./harbor_fields.ts";
import { parseTaskConfig } from "./task_config.ts";
import { Checker } from "./task_config_checker.ts";
import { loadTask } from "./task.ts";

const noEnv = () => undefined;
/** The hooks task.toml `toml` declares, as the parser keeps them. */
const readCollect = (toml: string, file: string) => parseTaskConfig(toml, file, noEnv).verifier.collect;

Deno.test("collect hooks: Harbor's defaults (main, 60 s, the service's user), and each field checked", () => {
  const toml = `[[verifier.collect]]\ncommand = "dump"\n\n[[verifier.collect]]\ncommand = "x"\nservice = " db "\n` +
    `timeout_sec = "5"\nuser = 0\n`;
  assert.deepEqual(readCollect(toml, "t.toml"), [
    { command: "dump", service: "main", timeoutSec: 60 },
    { command: "x", service: "db", timeoutSec: 5, user: "0" },
  ]);
  assert.deepEqual(readCollect(`[verifier]\ntimeout_sec = 3`, "t.toml"), []);
  const check = (toml: string) => () => readCollect(toml, "t.toml");
  throwsTask(check(`[[verifier.collect]]\nservice = "db"`), /t\.toml:1: verifier\.collect\.0\.command is required/);
  throwsTask(
    check(`[[verifier.collect]]\ncommand = "x"\ntimeout_sec = 0`),
    "t.toml:3: verifier.collect.0.timeout_sec must be a positive number, got 0",
  );
  throwsTask(
    check(`[[verifier.collect]]\ncommand = "x"\nuser = "a b"`),
    't.toml:3: verifier.collect.0.user must be a user name or a non-negative integer id, got "a b"',
  );
  assert.deepEqual(checkCollect(new Checker("", "t.toml", noEnv), undefined, ["verifier", "collect"]), []);
});

Deno.test("artifacts: a service other than main is kept, with an absolute source; main is the default", () => {
  const config = parseTaskConfig(
    `artifacts = [{ source = "/export/state.txt", service = "db" }, { source = "out", service = "main" }]`,
    "t.toml",
    noEnv,
  );
  assert.deepEqual(config.artifacts, [
    { source: "/export/state.txt", exclude: [], service: "db" },
    { source: "out", exclude: [] },
  ]);
  throwsTask(
    () => parseTaskConfig(`artifacts = [{ source = "/x", service = "-db" }]`, "t.toml", noEnv),
    /^t\.toml:1: artifacts\.0\.service must be a Docker Compose service name/,
  );
});

Deno.test("services: an artifact's or a hook's service must be one the compose file defines", () => {
  const toml = `artifacts = [{ source = "/x", service = "db" }]\n\n[[verifier.collect]]\ncommand = "c"\n` +
    `service = "cache"\n`;
  const parsed = parseTaskConfig(toml, "t.toml", noEnv);
  const config = { ...parsed, collect: parsed.verifier.collect };
  checkServices(toml, "t.toml", config, ["main", "db", "cache"]);
  throwsTask(
    () => checkServices(toml, "t.toml", config, ["main", "db"]),
    't.toml:5: verifier.collect[0].service = "cache": environment/docker-compose.yaml defines no service "cache"',
  );
  throwsTask(
    () => checkServices(toml, "t.toml", config, undefined),
    't.toml:1: artifacts[0].service = "db": the task has no environment/docker-compose.yaml, so it has no service "db"',
  );
  const steps = `[[steps]]\nname = "one"\nartifacts = [{ source = "/y", service = "web" }]\n`;
  const stepConfig = { ...parseTaskConfig(steps, "t.toml", noEnv), collect: [] };
  throwsTask(
    () => checkServices(steps, "t.toml", stepConfig, ["main"]),
    /^t\.toml:3: steps\[0\]\.artifacts\[0\]\.service = "web": environment\/docker-compose\.yaml defines no service/,
  );
});

Deno.test("loadTask: the hooks are in the config, and a service the task does not run is refused in one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "tests"));
    await Deno.writeTextFile(join(dir, "tests", "test.sh"), "true\n");
    await Deno.writeTextFile(join(dir, "instruction.md"), "x\n");
    const toml = `[environment]\ndocker_image = "pgs-base:1"\n\n[[verifier.collect]]\ncommand = "true"\n`;
    await Deno.writeTextFile(join(dir, "task.toml"), toml);
    const task = await loadTask(dir);
    assert.deepEqual(task.config.verifier.collect, [{ command: "true", service: "main", timeoutSec: 60 }]);
    await Deno.writeTextFile(join(dir, "task.toml"), `${toml}service = "db"\n`);
    await assert.rejects(loadTask(dir), (e: Error) => {
      assert.equal(e.name, "TaskError");
      assert.match(e.message, /task\.toml:6: verifier\.collect\[0\]\.service = "db": the task has no environment\//);
      assert.ok(!e.message.includes("\n"));
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
