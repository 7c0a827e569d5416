/**
 * `pgs harbor pod` as a user runs it (unit tier, no engine): the manifest of a compose task and of a single-container
 * task, what each flag changes, and one-line errors with exit 2. `tests/kube_play_test.ts` plays such a manifest.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "npm:yaml@2.9.1";
import { buildTag } from "../lib/runtime/images.ts";
import { hostsFileText } from "../lib/runtime/kube_manifest.ts";
import { loadTask } from "../lib/task/task.ts";
import { pgs, ROOT } from "./eval_helpers.ts";

const SIDECAR = "tests/fixtures/compose/http-sidecar";
const SINGLE = "examples/tasks/count-error-lines";

// deno-lint-ignore no-explicit-any
type Yaml = any;

function containers(pod: Yaml): Record<string, Yaml> {
  return Object.fromEntries(pod.spec.containers.map((c: Yaml) => [c.name, c]));
}

Deno.test("harbor pod: a compose task's pod, main idle in its workdir, images as pgs would tag their builds", async () => {
  const r = await pgs(["harbor", "pod", SIDECAR]);
  assert.equal(r.code, 0, r.stderr);
  const pod = parse(r.stdout);
  assert.equal(pod.apiVersion, "v1");
  assert.equal(pod.kind, "Pod");
  assert.equal(pod.metadata.name, "pgs-http-sidecar");
  assert.deepEqual(pod.metadata.annotations, { "pgs/task": "http-sidecar", "pgs/network": "none" });
  assert.deepEqual(pod.spec.hostAliases, [{ ip: "127.0.0.1", hostnames: ["main", "web"] }]);
  const { main, web } = containers(pod);
  assert.deepEqual(pod.spec.containers.map((c: Yaml) => c.name), ["main", "web"]);
  const task = await loadTask(join(ROOT, SIDECAR));
  assert.equal(main.image, await buildTag(task.paths.environmentDir));
  assert.match(main.image, /^pgs-env:[0-9a-f]{16}$/);
  assert.match(web.image, /^pgs-svc:[0-9a-f]{16}$/);
  assert.deepEqual(main.command, ["sleep", "infinity"]);
  assert.equal(main.workingDir, "/workdir");
  assert.deepEqual(main.resources, { limits: { cpu: "1", memory: "2048Mi" } });
  assert.deepEqual(web.args, ["python3", "-m", "http.server", "8000", "--directory", "/srv"]);
  assert.equal(web.readinessProbe.periodSeconds, 1);
  assert.equal(web.readinessProbe.failureThreshold, 30);
  assert.equal(pod.spec.volumes, undefined);
});

Deno.test("harbor pod: a task without a compose file is a pod of main alone, with its image, env and limits", async () => {
  const r = await pgs(["harbor", "pod", SINGLE]);
  assert.equal(r.code, 0, r.stderr);
  const pod = parse(r.stdout);
  assert.deepEqual(pod.spec.containers.map((c: Yaml) => c.name), ["main"]);
  const { main } = containers(pod);
  assert.equal(main.image, "pgs-base:1"); // [environment] docker_image
  assert.equal(main.workingDir, "/workdir");
  assert.deepEqual(main.resources, { limits: { cpu: "1", memory: "512Mi" } });
  assert.match(pod.metadata.name, /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
});

Deno.test("harbor pod: --out, --hosts-file, --image, --network, --name and --workdir", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs-pod-cli-" });
  try {
    const [out, hosts] = [join(dir, "pod.yaml"), join(dir, "hosts")];
    const r = await pgs([
      "harbor",
      "pod",
      SIDECAR,
      "--out",
      out,
      "--hosts-file",
      hosts,
      "--image",
      "main=example.org/main:1",
      "--image",
      "web=example.org/web:2",
      "--network",
      "--name",
      "ep-1",
      "--workdir",
      "/srv/app",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /wrote pod ep-1 of http-sidecar to /);
    const pod = parse(await Deno.readTextFile(out));
    assert.equal(pod.metadata.name, "ep-1");
    assert.deepEqual(pod.metadata.annotations, { "pgs/task": "http-sidecar" }); // the network: no annotation
    const { main, web } = containers(pod);
    assert.equal(main.image, "example.org/main:1");
    assert.equal(web.image, "example.org/web:2");
    assert.equal(main.workingDir, "/srv/app");
    const task = await loadTask(join(ROOT, SIDECAR));
    assert.equal(await Deno.readTextFile(hosts), hostsFileText(task.compose!));
    for (const c of [main, web]) {
      assert.deepEqual(c.volumeMounts, [{ name: "ep-1-v0", mountPath: "/etc/hosts", readOnly: true }]);
    }
    assert.deepEqual(pod.spec.volumes, [{ name: "ep-1-v0", hostPath: { path: hosts, type: "File" } }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("harbor pod: bad input is one line naming the argument, exit 2, nothing written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs-pod-cli-" });
  try {
    const cases: [string[], RegExp][] = [
      [[], /^pgs: harbor pod: expected one TASK_DIR$/],
      [["/no/such/task"], /^pgs: harbor pod: TASK_DIR \/no\/such\/task: no such folder$/],
      [["tests"], /task\.toml: missing$/],
      [[SIDECAR, "--image", "web"], /--image must be SERVICE=REF, got "web"$/],
      [[SIDECAR, "--image", "db=x:1"], /--image db=x:1: no service db \(the pod has main, web\)$/],
      [[SIDECAR, "--out", dir], /--out .* is a folder; give a file$/],
      [[SIDECAR, "--out", join(dir, "no", "pod.yaml")], /--out .*: the folder .* does not exist$/],
      [[SIDECAR, "--name", "Not_A_Label"], /--name must be a DNS-1123 label/],
      [[SIDECAR, "--workdir", "rel"], /--workdir must be an absolute path/],
      [[SIDECAR, "--imge", "x=y"], /Unknown option '--imge'.*--image/],
    ];
    for (const [args, want] of cases) {
      const r = await pgs(["harbor", "pod", ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "", args.join(" "));
      assert.equal(r.stderr.trim().split("\n").length, 1, `${args.join(" ")}: one line, got ${r.stderr}`);
      assert.match(r.stderr.trim(), want, args.join(" "));
    }
    assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("harbor pod --help and the harbor group list it", async () => {
  const h = await pgs(["harbor", "pod", "--help"]);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /^Usage: pgs harbor pod TASK_DIR \[--out FILE\] \[--network\] \[--image SERVICE=REF \.\.\.\]/);
  const g = await pgs(["harbor", "--help"]);
  assert.match(g.stdout, /^Usage: pgs harbor pod /m);
});
