/**
 * An episode's pod as a Kubernetes manifest (`lib/runtime/kube_manifest.ts`) played by a real podman (`podman kube
 * play`, engine tier): an init container seeds a named volume, the sidecar `web` serves it, and main reaches it by
 * name. What podman 4.3.1 does with the manifest, as found here:
 * - it names containers `<pod>-<container>` (the infra one `<pod id>-infra`), copies the pod's labels onto every
 *   member but the infra container, runs init containers to their end first and removes them;
 * - `--network none` is accepted and leaves loopback only, but then drops `hostAliases` from /etc/hosts (they are
 *   kept in the pod's config only): a read-only hosts file mounted at /etc/hosts (`hostsFile`) gives the names back;
 * - on its default network (`podman-default-kube-network`) `hostAliases` are written to /etc/hosts;
 * - each `emptyDir` is a podman volume named as the Pod volume, engine-wide, removed by `kube down`.
 * An episode runs in a played pod too: the manifest `pgs harbor pod` writes of tests/fixtures/compose/http-sidecar, its
 * images built by pgs's ImageStore, played under `--network none`, pgs's exec channel in its `main`, the fixture's
 * tests/test.sh through it. Ignored with the reason in their names when podman does not answer or lacks pgs-base:1,
 * unless PGS_REQUIRE_RUNTIMES names podman (as runtime_helpers.ts reads it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Podman } from "../lib/runtime/podman/mod.ts";
import { boxLabels } from "../lib/runtime/hygiene.ts";
import { hostsFileText, podManifestYaml } from "../lib/runtime/kube_manifest.ts";
import { ExecChannel, shQuote, text } from "../lib/runtime/channel.ts";
import { channelHelper } from "../lib/runtime/channel_helper/helper.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { healthcheckOf } from "../lib/runtime/pod.ts";
import { effectiveWorkdir } from "../lib/runtime/workdir.ts";
import { staticOwner } from "../lib/runtime/workdir_image.ts";
import { tarArchive } from "../lib/base/tar.ts";
import { parseCompose } from "../lib/task/compose.ts";
import { loadTask } from "../lib/task/task.ts";
import { taskImageRefs, taskPodInput } from "../cli/harbor_pod.ts";
import { BASE_IMAGE } from "./base_image.ts";
import { RUNTIMES } from "./runtime_helpers.ts";
import { ciTest, TIER } from "./tier.ts";

/** podman as this machine has it (`runtime_helpers.ts`: answers, with pgs-base:1 made or said why not). */
const probed = RUNTIMES.find((r) => r.name === "podman");

/** An engine test of `podman kube play`: ignored with the reason where podman is absent, failed where required. */
function kubeTest(name: string, fn: (podman: Podman, dir: string) => Promise<void>): void {
  if (TIER !== "ci" || !probed) return;
  if (probed.absent) {
    ciTest({ name: `podman kube play (skipped: ${probed.absent}): ${name}`, ignore: true, fn: () => {} });
    return;
  }
  ciTest({ name: `podman kube play: ${name}` }, async () => {
    if (probed.problem) throw new Error(probed.problem);
    const dir = await Deno.makeTempDir({ prefix: "pgs-kube-" });
    try {
      await fn(new Podman(Deno.env.get("CONTAINER_HOST") || undefined), dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

const dec = new TextDecoder();
const out = (r: { stdout: Uint8Array }) => dec.decode(r.stdout).trim();

/** A seed that runs to its end before main, a web sidecar serving what it wrote, and main. */
const COMPOSE = `
services:
  main:
    depends_on:
      seed: {condition: service_completed_successfully}
      web: {condition: service_started}
  seed:
    image: ${BASE_IMAGE}
    entrypoint: ["sh", "-c", "echo hello-from-seed > /out/index.html"]
    volumes: [site:/out]
  web:
    image: ${BASE_IMAGE}
    command: python3 -m http.server 8000 --directory /srv
    volumes: [site:/srv]
volumes:
  site: {}
`;

/** Fetches argv[1] from inside a member, retrying for up to 10 s while the server starts; prints the body. */
const FETCH = `
import sys, time, urllib.request
end = time.time() + 10
while True:
    try:
        print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode().strip())
        break
    except Exception as e:
        if time.time() > end:
            sys.exit(f"{sys.argv[1]}: {e}")
        time.sleep(0.2)
`;

/** Connects to a non-loopback address (TEST-NET-1), printing the interfaces first. */
const OUTSIDE = `
import socket
print(" ".join(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:])))
socket.create_connection(("192.0.2.1", 80), timeout=3)
`;

/** Writes the pod's manifest, plays it (under `network`), runs `body`, then takes it down and checks nothing is left. */
async function withPod(
  podman: Podman,
  dir: string,
  opts: { network: boolean; hostsFile: boolean },
  body: (pod: string) => Promise<void>,
): Promise<void> {
  const pod = `pgs-kube-${crypto.randomUUID().slice(0, 8)}`;
  const model = parseCompose(COMPOSE, join(dir, "environment/docker-compose.yaml"), { taskDir: dir });
  const hostsFile = opts.hostsFile ? join(dir, "hosts") : undefined;
  if (hostsFile) await Deno.writeTextFile(hostsFile, hostsFileText(model));
  const file = join(dir, "pod.yaml");
  await Deno.writeTextFile(
    file,
    podManifestYaml({
      name: pod,
      task: pod,
      model,
      images: { main: BASE_IMAGE, seed: BASE_IMAGE, web: BASE_IMAGE },
      main: { command: ["sleep", "infinity"], workdir: "/", env: {}, cpus: 1, memoryMb: 256 },
      network: opts.network,
      labels: boxLabels("kube-test", pod),
      hostsFile,
    }),
  );
  await playThenDown(podman, file, pod, opts.network, () => body(pod));
}

/**
 * Plays the manifest `file` of the pod `pod` (with `--network none` unless `network`), runs `body`, then takes it down
 * (`pod rm -f` when `kube down` fails) and checks that nothing of it is left: pod, containers (labelled with the pod's
 * name as their task) and volumes.
 */
async function playThenDown(
  podman: Podman,
  file: string,
  pod: string,
  network: boolean,
  body: () => Promise<void>,
): Promise<void> {
  const net = network ? [] : ["--network", "none"]; // the runtime's reading of `pgs/network: none`
  try {
    const played = await podman.call(["kube", "play", ...net, file], { timeoutMs: 120_000 });
    assert.equal(played.code, 0, `kube play: ${played.stderr}`);
    await body();
  } finally {
    const down = await podman.call(["kube", "down", file], { timeoutMs: 60_000 });
    if (down.code !== 0) await podman.call(["pod", "rm", "-f", pod], { timeoutMs: 60_000 });
  }
  const left = await Promise.all([
    podman.call(["pod", "ps", "-q", "--filter", `name=^${pod}$`], { timeoutMs: 30_000 }),
    podman.call(["ps", "-a", "-q", "--filter", `label=pgs.task=${pod}`], { timeoutMs: 30_000 }),
    podman.call(["ps", "-a", "-q", "--filter", `name=^${pod}-`], { timeoutMs: 30_000 }),
    podman.call(["volume", "ls", "-q", "--filter", `name=^${pod}-`], { timeoutMs: 30_000 }),
  ]);
  for (const r of left) assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(left.map(out), ["", "", "", ""], "the pod, its containers and volumes are gone");
}

/** The engine's id of a container by name. */
async function containerId(podman: Podman, name: string): Promise<string> {
  const r = await podman.call(["container", "inspect", "--format", "{{.Id}}", name], { timeoutMs: 30_000 });
  assert.equal(r.code, 0, `inspect ${name}: ${r.stderr}`);
  return out(r);
}

kubeTest("--network none: loopback only, names from the hosts file, the seeded volume served", async (podman, dir) => {
  await withPod(podman, dir, { network: false, hostsFile: true }, async (pod) => {
    const members = await podman.call(["ps", "-a", "--filter", `label=pgs.task=${pod}`, "--format", "{{.Names}}"]);
    assert.deepEqual(out(members).split("\n").sort(), [`${pod}-main`, `${pod}-web`]); // the init container is gone
    for (const url of ["http://web:8000/", "http://main:8000/", "http://127.0.0.1:8000/"]) {
      const got = await podman.call(["exec", `${pod}-main`, "python3", "-c", FETCH, url], { timeoutMs: 30_000 });
      assert.equal(got.code, 0, got.stderr);
      assert.equal(out(got), "hello-from-seed");
    }
    const outside = await podman.call(["exec", `${pod}-main`, "python3", "-c", OUTSIDE], { timeoutMs: 30_000 });
    assert.equal(out(outside), "lo");
    assert.notEqual(outside.code, 0, "a non-loopback address is unreachable");
    assert.match(outside.stderr, /unreachable/i);
  });
});

kubeTest("default network: hostAliases resolve every service name to loopback", async (podman, dir) => {
  await withPod(podman, dir, { network: true, hostsFile: false }, async (pod) => {
    const hosts = await podman.call(["exec", `${pod}-web`, "cat", "/etc/hosts"], { timeoutMs: 30_000 });
    for (const name of ["main", "seed", "web"]) {
      assert.match(out(hosts), new RegExp(`^127\\.0\\.0\\.1\\s+${name}$`, "m"));
    }
    const got = await podman.call(["exec", `${pod}-main`, "python3", "-c", FETCH, "http://web:8000/"], {
      timeoutMs: 30_000,
    });
    assert.equal(got.code, 0, got.stderr);
    assert.equal(out(got), "hello-from-seed");
  });
});

kubeTest("an episode in a played pod: pgs's images, the channel in main, test.sh scores 1", async (podman, dir) => {
  const task = await loadTask(join(import.meta.dirname!, "fixtures/compose/http-sidecar"));
  const model = task.compose!;
  // The images as an episode would run them: built (or found) by pgs's ImageStore, tagged as `harbor pod` says.
  const store = new ImageStore(podman);
  const [mainImage, webImage] = await Promise.all([
    store.resolve(task),
    store.resolveService(task, model.services.web),
  ]);
  assert.deepEqual(await taskImageRefs(task), { main: mainImage.ref, web: webImage.ref }, "the tags pgs builds");
  // podman 4.3's kube play refuses a workingDir the image lacks (pgs's runtime starts main from an image whose
  // WORKDIR it is, which podman makes at start): main runs the task's image with the /logs folders and the working
  // directory baked in, as Sandbox.start bakes them (the fixture has no environment/workdir/: an empty folder).
  const workdir = effectiveWorkdir(task.config.environment.workdir, mainImage.workdir);
  const owner = staticOwner(task.config.agent.user ?? mainImage.user);
  assert.ok(owner, "the fixture's image runs as root");
  let hostDir = task.paths.workdir ?? task.paths.environmentUpload;
  if (!hostDir) {
    hostDir = join(dir, "workdir");
    await Deno.mkdir(hostDir, { mode: 0o755 });
    await Deno.chmod(hostDir, 0o755);
  }
  const baked = await store.withWorkdir(mainImage.ref, { hostDir, dest: workdir, ...owner }, task);
  assert.ok(baked, "no VOLUME of the image covers the working directory");
  const images = { main: baked, web: webImage.ref };
  const pod = `pgs-kube-${crypto.randomUUID().slice(0, 8)}`;
  const hostsFile = join(dir, "hosts");
  await Deno.writeTextFile(hostsFile, hostsFileText(model));
  const input = await taskPodInput(task, {
    name: pod,
    images,
    workdir,
    hostsFile,
    labels: boxLabels("kube-test", pod),
  });
  assert.equal(input.network, false, "the fixture leaves the network unset: pgs runs it without");
  const file = join(dir, "pod.yaml");
  await Deno.writeTextFile(file, podManifestYaml(input));
  await playThenDown(podman, file, pod, false, async () => {
    const box = podman.box(await containerId(podman, `${pod}-main`));
    const channel = new ExecChannel(box, { workdir, helper: channelHelper(mainImage.arch ?? "") });
    try {
      // podman ignores readinessProbe: waiting for web's healthcheck is the runtime's job, as Pod does it.
      const web = podman.box(await containerId(podman, `${pod}-web`));
      const hc = healthcheckOf(model.services.web, webImage.healthcheck)!;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await web.exec(hc.argv, { timeoutMs: hc.timeoutMs ?? 5_000 });
        if (r.code === 0 && !r.timedOut) break;
        assert.ok(Date.now() < deadline, `web never answered its healthcheck: ${r.stderr}`);
        await new Promise((res) => setTimeout(res, 250));
      }
      const pwd = await channel.exec("pwd", { shell: "sh", timeoutSec: 30 });
      assert.equal(pwd.exitCode, 0, text(pwd.stderr));
      assert.equal(text(pwd.stdout).trim(), workdir);
      assert.equal(channel.usingFallback, false, "pgs's channel runs in the played main, not one exec per call");
      // What the verifier does: tests/ in place at /tests, test.sh run, the reward read from /logs/verifier.
      const testSh = await Deno.readFile(task.paths.testSh);
      const entry = { mode: 0o755, uid: 0, gid: 0 };
      const tar = tarArchive([
        { name: "tests", type: "dir", ...entry },
        { name: "tests/test.sh", type: "file", ...entry, data: testSh },
      ]);
      const put = await box.putArchive("/", tar, 30_000);
      assert.ok(put.ok, put.ok ? "" : put.error);
      const ran = await channel.exec("bash /tests/test.sh", { timeoutSec: task.config.verifier.timeoutSec });
      assert.equal(ran.exitCode, 0, text(ran.stderr));
      assert.equal(ran.timedOut, false);
      const reward = await channel.exec("cat /logs/verifier/reward.txt", { shell: "sh", timeoutSec: 30 });
      assert.equal(reward.exitCode, 0, text(reward.stderr));
      assert.equal(text(reward.stdout).trim(), "1");
      // Loopback only: the outside is unreachable from main.
      const outside = await channel.exec(`python3 -c ${shQuote(OUTSIDE)}`, { shell: "sh", timeoutSec: 30 });
      assert.equal(text(outside.stdout).trim(), "lo");
      assert.notEqual(outside.exitCode, 0, "a non-loopback address is unreachable");
    } finally {
      await channel.close();
    }
  });
});
