/** The worker's wire without an engine: the settings an eval config sends, their fingerprint, the runner's refusals. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { buildConfig } from "../eval/config.ts";
import { DEFAULT_MAX_TURNS } from "../eval/episode_runner.ts";
import { createRuntime } from "../runtime/registry.ts";
import { EpisodeRefused, type EpisodeRequest, episodeSettings, requestProblem } from "./worker_protocol.ts";
import { localRunner, settingsKey } from "./worker_runner.ts";
import { registerBuiltins } from "../../profiles/mod.ts";

registerBuiltins();

const ROOT = resolve(import.meta.dirname!, "../..");
const COUNT = join(ROOT, "examples/tasks/count-error-lines");

Deno.test("worker protocol: an eval config's settings are plain JSON, a script carried whole", async () => {
  const oracle = await episodeSettings(
    buildConfig({}, { tasks: "examples/tasks", policy: "oracle", profiles: "pi=1,opencode=2", seed: "3" }),
  );
  assert.deepEqual(oracle, {
    policy: { kind: "oracle" },
    profiles: { pi: 1, opencode: 2 },
    seed: 3,
    storageMb: 10240,
    maxTurns: DEFAULT_MAX_TURNS,
    workdirDiff: true,
  });
  const turns = join(ROOT, "examples/turns.json");
  const script = await episodeSettings(
    buildConfig({}, { tasks: "t", policy: `script:${turns}`, "allowUnknownTools": true, "podCpus": "2" }),
    "m1",
  );
  assert.equal(script.policy.kind, "script");
  assert.ok(script.policy.kind === "script" && script.policy.name === `script:${turns}`);
  assert.ok(script.policy.kind === "script" && script.policy.turns.length === 2 && script.policy.allowUnknownTools);
  assert.deepEqual([script.model, script.podBudget], ["m1", { cpus: 2 }]);
  const ep = await episodeSettings(
    buildConfig({}, { tasks: "t", endpoint: "http://127.0.0.1:9/v1", temperature: "0.5", "apiKeyEnv": "K" }),
    "served-model",
  );
  assert.deepEqual(ep.policy, {
    kind: "endpoint",
    url: "http://127.0.0.1:9/v1",
    apiKeyEnv: "K",
    sampling: { temperature: 0.5 },
    tokenIds: false,
    requestTimeoutSec: 600,
  });
  assert.equal(ep.model, "served-model");
  assert.equal(requestProblem({ settings: ep, row: { task_dir: COUNT }, rowId: "r", sample: 0 }), undefined);
});

Deno.test("worker protocol: the settings' fingerprint ignores key order and the per-episode fields", () => {
  const a = settingsKey({ policy: { kind: "oracle" }, profiles: { pi: 1, opencode: 1 }, seed: 1, maxTurns: 3 });
  const b = settingsKey({ seed: 1, profiles: { opencode: 1, pi: 1 }, policy: { kind: "oracle" }, workdirDiff: true });
  assert.equal(a, b);
  assert.notEqual(a, settingsKey({ policy: { kind: "oracle" }, profiles: { pi: 1, opencode: 1 }, seed: 2 }));
});

Deno.test("worker runner: rows and settings it cannot use are refused before any box starts", async () => {
  const runner = localRunner({ runtime: createRuntime("docker", { host: "unix:///nonexistent/pgs-worker.sock" }) });
  const req = (p: Partial<EpisodeRequest>): EpisodeRequest => ({
    settings: { policy: { kind: "oracle" } },
    row: { task_dir: COUNT },
    rowId: "r",
    sample: 0,
    ...p,
  });
  const refused = async (r: EpisodeRequest, kind: string, re: RegExp) =>
    await assert.rejects(runner.run(r, new AbortController().signal), (e) => {
      assert.ok(e instanceof EpisodeRefused, String(e));
      assert.equal(e.kind, kind);
      assert.match(e.message, re);
      return true;
    });
  try {
    await refused(req({ row: { task_dir: "rel/task" } }), "bad_request", /task_dir must be absolute/);
    await refused(req({ row: { task_dir: COUNT, max_turns: 0 } }), "bad_request", /^row: max_turns/);
    await refused(req({ row: { task_dir: "/no/such/task" } }), "infra", /cannot see task_dir \/no\/such\/task/);
    await refused(
      req({ settings: { policy: { kind: "oracle" }, profiles: { "no-such-profile": 1 } } }),
      "bad_request",
      /no-such-profile/,
    );
    await refused(
      req({ settings: { policy: { kind: "oracle" }, overlays: ["/no/such/overlay.json"] } }),
      "bad_request",
      /^overlay: /,
    );
    await refused(
      req({
        settings: {
          policy: {
            kind: "endpoint",
            url: "http://127.0.0.1:9/v1",
            apiKeyEnv: "PGS_NO_SUCH_KEY_VAR",
            sampling: {},
            tokenIds: false,
            requestTimeoutSec: 5,
          },
        },
      }),
      "bad_request",
      /PGS_NO_SUCH_KEY_VAR is not set/,
    );
  } finally {
    await runner.close();
  }
  await refused(req({}), "infra", /stopping/);
});
