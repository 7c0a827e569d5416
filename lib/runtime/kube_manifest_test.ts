/** The Pod manifests of the compose fixtures of issue #41 (tests/fixtures/compose/), no engine: the mapping as written. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { parseCompose, readCompose } from "../task/compose.ts";
import { hostsFileText, podManifest, type PodManifestInput, podManifestYaml } from "./kube_manifest.ts";

const ROOT = resolve(import.meta.dirname!, "../../tests/fixtures/compose");

type Obj = Record<string, unknown>;

const MAIN = { command: ["sleep", "infinity"], workdir: "/app", env: { PGS: "1" }, cpus: 1.5, memoryMb: 512 };

async function input(fixture: string, over: Partial<PodManifestInput> = {}): Promise<PodManifestInput> {
  const model = await readCompose(join(ROOT, fixture));
  const images = Object.fromEntries(Object.keys(model.services).map((s) => [s, `img-${s}:1`]));
  return {
    name: "pgs-ep-1",
    task: fixture,
    model,
    images: { ...images, main: "pgs-main:1" },
    main: MAIN,
    network: true,
    ...over,
  };
}

function spec(manifest: Obj): Obj & { containers: Obj[]; initContainers?: Obj[]; volumes?: Obj[] } {
  return manifest.spec as Obj & { containers: Obj[]; initContainers?: Obj[]; volumes?: Obj[] };
}

Deno.test("kube manifest: http-sidecar: main first, names on loopback, the healthcheck as a readiness probe", async () => {
  const m = podManifest(await input("http-sidecar", { labels: { "pgs.episode": "e1" }, network: false }));
  assert.equal(m.apiVersion, "v1");
  assert.equal(m.kind, "Pod");
  assert.deepEqual(m.metadata, {
    name: "pgs-ep-1",
    labels: { "pgs.episode": "e1" },
    annotations: { "pgs/task": "http-sidecar", "pgs/network": "none" },
  });
  const s = spec(m);
  assert.equal(s.restartPolicy, "Never");
  assert.deepEqual(s.hostAliases, [{ ip: "127.0.0.1", hostnames: ["main", "web"] }]);
  assert.equal(s.initContainers, undefined);
  assert.equal(s.volumes, undefined);
  assert.deepEqual(s.containers.map((c) => c.name), ["main", "web"]);
  assert.deepEqual(s.containers[0], {
    name: "main",
    image: "pgs-main:1",
    imagePullPolicy: "IfNotPresent",
    command: ["sleep", "infinity"],
    workingDir: "/app",
    env: [{ name: "PGS", value: "1" }],
    resources: { limits: { cpu: "1.5", memory: "512Mi" } },
  });
  const web = s.containers[1];
  assert.equal(web.image, "img-web:1");
  assert.equal(web.command, undefined); // no entrypoint: the image's ENTRYPOINT stays
  assert.deepEqual(web.args, ["python3", "-m", "http.server", "8000", "--directory", "/srv"]);
  assert.deepEqual(web.readinessProbe, {
    exec: {
      command: ["python3", "-c", 'import urllib.request; urllib.request.urlopen("http://localhost:8000/")'],
    },
    periodSeconds: 1,
    timeoutSeconds: 5,
    failureThreshold: 30,
  });
  assert.equal(web.resources, undefined);
});

Deno.test("kube manifest: shared-volume: one emptyDir named after the pod, mounted by both", async () => {
  const m = podManifest(await input("shared-volume"));
  assert.deepEqual((m.metadata as Obj).annotations, { "pgs/task": "shared-volume" }); // network allowed: no mark
  const s = spec(m);
  assert.deepEqual(s.containers.map((c) => c.name), ["main", "writer"]);
  assert.deepEqual(s.volumes, [{ name: "pgs-ep-1-v0", emptyDir: {} }]);
  assert.deepEqual(s.containers[0].volumeMounts, [{ name: "pgs-ep-1-v0", mountPath: "/shared" }]);
  assert.deepEqual(s.containers[1].volumeMounts, [{ name: "pgs-ep-1-v0", mountPath: "/data" }]);
  assert.deepEqual(s.containers[1].args, ["sh", "-c", "echo from-writer > /data/note && sleep infinity"]);
});

Deno.test("kube manifest: completed-init: the one-shot service is an init container sharing main's volume", async () => {
  const s = spec(podManifest(await input("completed-init")));
  assert.deepEqual(s.containers.map((c) => c.name), ["main"]);
  assert.deepEqual(s.initContainers!.map((c) => c.name), ["seed"]);
  const seed = s.initContainers![0];
  assert.deepEqual(seed.command, ["sh", "-c", "echo seeded > /out/done"]); // entrypoint is Kubernetes' command
  assert.equal(seed.args, undefined);
  assert.deepEqual(s.volumes, [{ name: "pgs-ep-1-v0", emptyDir: {} }]);
  assert.deepEqual(seed.volumeMounts, [{ name: "pgs-ep-1-v0", mountPath: "/out" }]);
  assert.deepEqual(s.containers[0].volumeMounts, [{ name: "pgs-ep-1-v0", mountPath: "/seeded" }]);
  assert.deepEqual(s.hostAliases, [{ ip: "127.0.0.1", hostnames: ["main", "seed"] }]);
});

Deno.test("kube manifest: binds, tmpfs, users, limits, aliases, shell checks and the hosts file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "environment/conf"), { recursive: true });
    await Deno.writeTextFile(join(dir, "environment/seed.txt"), "x");
    const text = [
      "services:",
      "  db:",
      "    image: db:1",
      "    entrypoint: []",
      "    command: run-db --fast",
      "    user: '999:998'",
      "    cpus: 0.5",
      "    mem_limit: 100m",
      "    stop_grace_period: 30s",
      "    healthcheck: {test: 'pg_isready || exit 1', interval: 1500ms, start_period: 90s}",
      "    networks: {default: {aliases: [database]}}",
      "    tmpfs: ['/run:size=64m']",
      "    volumes: ['./conf:/etc/db:ro', './seed.txt:/seed.txt', {type: tmpfs, target: /scratch}, /anon]",
      "  cache:",
      "    image: cache:1",
      "    user: nobody",
      "    healthcheck: {test: [NONE]}",
    ].join("\n");
    const model = parseCompose(text, join(dir, "environment/docker-compose.yaml"), { taskDir: dir });
    const pod = {
      name: "p",
      task: "t",
      model,
      images: { main: "m:1", db: "db:1", cache: "cache:1" },
      main: { ...MAIN, user: "1000" },
      network: true,
      hostsFile: "/tmp/hosts",
    };
    const m = podManifest(pod);
    const s = spec(m);
    assert.deepEqual(s.containers.map((c) => c.name), ["main", ...model.startOrder.filter((n) => n !== "main")]);
    const hostnames = ["main", ...model.startOrder, "database"];
    assert.deepEqual(s.hostAliases, [{ ip: "127.0.0.1", hostnames }]);
    assert.equal(hostsFileText(model), `127.0.0.1\tlocalhost ${hostnames.join(" ")}\n::1\tlocalhost\n`);
    assert.equal(s.terminationGracePeriodSeconds, 30);
    const [main] = s.containers;
    const db = s.containers.find((c) => c.name === "db")!;
    const cache = s.containers.find((c) => c.name === "cache")!;
    assert.deepEqual(main.securityContext, { runAsUser: 1000 });
    assert.deepEqual(main.volumeMounts, [{ name: "p-v0", mountPath: "/etc/hosts", readOnly: true }]);
    assert.deepEqual(db.command, ["run-db", "--fast"]); // `entrypoint: []`: the CMD runs as the command
    assert.equal(db.args, undefined);
    assert.deepEqual(db.securityContext, { runAsUser: 999, runAsGroup: 998 });
    assert.deepEqual(db.resources, { limits: { cpu: "0.5", memory: "100Mi" } });
    assert.deepEqual(db.readinessProbe, {
      exec: { command: ["/bin/sh", "-c", "pg_isready || exit 1"] },
      periodSeconds: 2,
    });
    assert.deepEqual(db.volumeMounts, [
      { name: "p-v1", mountPath: "/etc/db", readOnly: true },
      { name: "p-v2", mountPath: "/seed.txt" },
      { name: "p-v3", mountPath: "/scratch" },
      { name: "p-v4", mountPath: "/anon" },
      { name: "p-v5", mountPath: "/run" },
      { name: "p-v0", mountPath: "/etc/hosts", readOnly: true },
    ]);
    assert.deepEqual(s.volumes, [
      { name: "p-v0", hostPath: { path: "/tmp/hosts", type: "File" } },
      { name: "p-v1", hostPath: { path: join(dir, "environment/conf"), type: "Directory" } },
      { name: "p-v2", hostPath: { path: join(dir, "environment/seed.txt"), type: "File" } },
      { name: "p-v3", emptyDir: { medium: "Memory" } },
      { name: "p-v4", emptyDir: {} },
      { name: "p-v5", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
    ]);
    assert.equal(cache.securityContext, undefined); // a user name: the image's user
    assert.equal(cache.readinessProbe, undefined);
    assert.deepEqual(parse(podManifestYaml(pod)), m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kube manifest: long pod names keep volume names DNS-1123 labels, apart by a hash", async () => {
  const long = (tail: string) => `pgs-${"x".repeat(60)}-${tail}`;
  const names = await Promise.all(
    ["a", "b"].map(async (t) => spec(podManifest(await input("shared-volume", { name: long(t) })))),
  );
  const [a, b] = names.map((s) => s.volumes![0].name as string);
  assert.notEqual(a, b);
  for (const v of [a, b]) assert.match(v, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
  await assert.rejects(
    async () => podManifest(await input("shared-volume", { images: { main: "m:1" } })),
    /no image for service "writer"/,
  );
});
