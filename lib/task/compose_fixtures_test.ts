/** The compose fixtures of issue #41 (tests/fixtures/compose/): the accepted ones parse, each refused one names its field. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { readCompose } from "./compose.ts";

const ROOT = resolve(import.meta.dirname!, "../../tests/fixtures/compose");

Deno.test("compose fixtures: the accepted tasks", async () => {
  const web = await readCompose(join(ROOT, "http-sidecar"));
  assert.equal(web.services.web.build?.context, join(ROOT, "http-sidecar/environment/web"));
  assert.equal(web.services.web.healthcheck?.kind, "exec");
  assert.equal(web.services.web.healthcheck?.startPeriodMs, 90_000);
  assert.equal(web.services.main.dependsOn.web.condition, "service_healthy");
  assert.deepEqual(web.startOrder, ["web", "main"]);

  const shared = await readCompose(join(ROOT, "shared-volume"));
  assert.deepEqual(shared.volumes, ["shared"]);
  assert.deepEqual(
    [shared.services.main.volumes[0], shared.services.writer.volumes[0]].map((m) => m.type === "volume" && m.source),
    ["shared", "shared"],
  );

  const init = await readCompose(join(ROOT, "completed-init"));
  assert.equal(init.services.main.dependsOn.seed.condition, "service_completed_successfully");
  assert.deepEqual(init.services.seed.entrypoint, ["sh", "-c", "echo seeded > /out/done"]);

  const sick = await readCompose(join(ROOT, "unhealthy-sidecar"));
  assert.deepEqual(sick.services.web.healthcheck, { kind: "shell", command: ["exit 1"], intervalMs: 1000, retries: 2 });
});

Deno.test("compose fixtures: each refused field", async () => {
  const cases: Record<string, string> = {
    "refuse-ports": "6: services.web.ports:",
    "refuse-network-mode": "5: services.web.network_mode:",
    "refuse-networks-driver": "7: networks.back.driver:",
    "refuse-privileged": "5: services.web.privileged:",
    "refuse-devices": "6: services.web.devices:",
    "refuse-container-name": "5: services.web.container_name:",
    "refuse-bind-outside": "6: services.web.volumes.0: bind mount ../tests is outside environment/",
    "refuse-build-context": "4: services.web.build.context: ../.. is outside the task folder",
    "refuse-expose-twice": '7: services.b.expose.0: port 8000/tcp is exposed by service "a" too',
  };
  for (const [dir, want] of Object.entries(cases)) {
    const file = join(ROOT, dir, "environment/docker-compose.yaml");
    await assert.rejects(readCompose(join(ROOT, dir)), (e: Error) => {
      assert.equal(e.name, "TaskError");
      assert.ok(e.message.startsWith(`${file}:${want}`), e.message);
      assert.ok(!e.message.includes("\n"));
      return true;
    });
  }
});
