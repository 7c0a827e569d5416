/**
 * Shared helpers of the tests that drive the real Docker engine: whether the engine answers with the base image
 * (probed once, when this module loads: one `image inspect` of pgs-base:1), temporary task directories, throwaway
 * containers and label counts.
 *
 * Without an engine, or with one that lacks pgs-base:1 (which `deno task test` makes first where it can:
 * `tests/base_image.ts`), Docker tests are ignored with the reason in their names, except under CI (`CI=true`), where
 * they run and fail with it. Which tests a process registers follows its tier (`tests/tier.ts`, docs/testing.md):
 * `dockerTest` and `engineTest` only in the `ci` tier, `soakTest` only in the `soak` tier; the `unit` tier never probes
 * the engine.
 */
import * as path from "node:path";
import { Docker, labelArgs } from "../lib/runtime/docker/mod.ts";
import { BASE_IMAGE, missingImage } from "./base_image.ts";
import { ciTest, SOAK_PREFIX, TIER } from "./tier.ts";

export { BASE_IMAGE };

/** Runs `docker ...args` synchronously; null when the CLI cannot run at all. */
function dockerSync(args: string[]): Deno.CommandOutput | null {
  try {
    return new Deno.Command("docker", { args, stdout: "piped", stderr: "piped" }).outputSync();
  } catch {
    return null;
  }
}

/** Why the Docker tests cannot run here (no engine, or no pgs-base:1 on it), or undefined when they can. */
function probeDocker(): string | undefined {
  // The unit tier runs with no engine by design: no probe, no note.
  if (TIER === "unit") return "the unit tier runs without one";
  // One call when the image is there: the engine answered, and holds it.
  if (dockerSync(["image", "inspect", "--format", "{{.Id}}", BASE_IMAGE])?.code === 0) return undefined;
  const version = dockerSync(["version", "--format", "{{.Server.Version}}"]);
  if (version === null) return "no Docker engine: the docker CLI cannot run";
  if (version.code !== 0) {
    const said = new TextDecoder().decode(version.stderr).trim().split("\n").pop();
    return `no Docker engine answers (${said || `docker version exited ${version.code}`})`;
  }
  return missingImage(new Docker(Deno.env.get("DOCKER_HOST") || undefined));
}

/** Why the Docker tests cannot run here: no engine answers, or it lacks pgs-base:1; undefined when they can. */
export const dockerAbsent: string | undefined = probeDocker();
const noEngine = dockerAbsent?.startsWith("no Docker engine") || TIER === "unit";
/** True when the engine answered at module load, holding pgs-base:1. */
export const dockerAvailable = dockerAbsent === undefined;
const inCI = Deno.env.get("CI") === "true";

/** The `ignore` option of every Docker test: true only when the engine (or its base image) is missing outside CI. */
export const ignoreDocker = !dockerAvailable && !inCI;
if (ignoreDocker && TIER !== "unit") {
  console.error(`note: Docker tests ignored: ${dockerAbsent}${noEngine ? "; set DOCKER_HOST or start one" : ""}`);
}
/**
 * A Docker test's name as registered: when the engine answers but lacks pgs-base:1, the reason its tests are ignored is
 * appended (without an engine the note above says it, and the names stay as declared).
 */
const named = (name: string): string => ignoreDocker && !noEngine ? `${name} (skipped: ${dockerAbsent})` : name;

/** The engine the tests use; throws (failing the test loudly) when it does not answer. */
export function requireDocker(): Docker {
  if (!dockerAvailable) throw new Error(`${dockerAbsent}${inCI ? " (CI=true requires it)" : ""}`);
  return new Docker(Deno.env.get("DOCKER_HOST") || undefined);
}

/**
 * `Deno.test` for a test that needs the engine, given whole (for its own `ignore` conditions), its body in `def.fn` or
 * after it: registered in the `ci` tier only, and ignored there without an engine outside CI or when `def.ignore` says.
 */
export function engineTest(
  def: Omit<Deno.TestDefinition, "fn"> & { fn?: Deno.TestDefinition["fn"] },
  fn?: Deno.TestDefinition["fn"],
): void {
  ciTest({ ...def, name: named(def.name), ignore: ignoreDocker || def.ignore === true }, fn);
}

/** `Deno.test` for a Docker test (`ci` tier): ignored without an engine outside CI, given the Docker client otherwise. */
export function dockerTest(
  name: string,
  fn: (docker: Docker, t: Deno.TestContext) => Promise<void>,
  opts: Omit<Deno.TestDefinition, "name" | "fn" | "ignore"> = {},
): void {
  engineTest({ ...opts, name, fn: (t) => fn(requireDocker(), t) });
}

/**
 * A soak test: a repetition of what a `ci` test checks once (the fork bomb 20 times), or a long fault run (the engine
 * wedge). Registered in the `soak` tier only (`deno task test:soak`), named `soak: <name>`, a Docker test there.
 */
export function soakTest(
  name: string,
  fn: (docker: Docker, t: Deno.TestContext) => Promise<void>,
  opts: Omit<Deno.TestDefinition, "name" | "fn"> = {},
): void {
  if (TIER !== "soak") return;
  Deno.test({
    ...opts,
    name: named(SOAK_PREFIX + name),
    ignore: ignoreDocker || opts.ignore === true,
    fn: (t) => fn(requireDocker(), t),
  });
}

/** A task name no other test (nor another run) uses, so containers can be counted by their `pgs.task` label. */
export function uniqueName(stem = "t"): string {
  return `pgs-test/${stem}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A default verifier that always scores 1. */
export const PASS_TEST_SH = "#!/bin/bash\nmkdir -p /logs/verifier\necho 1 > /logs/verifier/reward.txt\n";

/**
 * Writes a temporary task directory and returns its path (remove it with `removeTask`). `files` maps relative paths
 * to contents and overrides the defaults: a task.toml using pgs-base:1 with a unique name, an instruction.md and a
 * tests/test.sh that scores 1. A given task.toml without a `[task]` table gets one with a unique name prepended.
 * Files ending in `.sh` are made executable.
 */
export async function makeTask(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_docker_test_" });
  const all: Record<string, string> = {
    "task.toml": `[environment]\ndocker_image = "${BASE_IMAGE}"\n`,
    "instruction.md": "A test task.\n",
    "tests/test.sh": PASS_TEST_SH,
    ...files,
  };
  if (!/^\s*\[task\]/m.test(all["task.toml"])) {
    all["task.toml"] = `[task]\nname = "${uniqueName()}"\n\n${all["task.toml"]}`;
  }
  for (const [rel, content] of Object.entries(all)) {
    const p = path.join(dir, rel);
    await Deno.mkdir(path.dirname(p), { recursive: true });
    await Deno.writeTextFile(p, content);
    if (rel.endsWith(".sh")) await Deno.chmod(p, 0o755);
  }
  return dir;
}

/** Removes a directory made by `makeTask`. */
export async function removeTask(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true });
}

/** Ids of containers (running or not) matching every `label` filter (`key=value`). */
export async function containersWith(docker: Docker, ...labels: string[]): Promise<string[]> {
  const r = await docker.call(["ps", "-aq", ...labels.flatMap((l) => ["--filter", `label=${l}`])]);
  if (r.code !== 0) throw new Error(`docker ps failed: ${r.stderr}`);
  return new TextDecoder().decode(r.stdout).split("\n").filter(Boolean);
}

/**
 * Containers, in any state and of any label, whose command holds `marker`: how a test finds the builder's intermediate containers, which
 * carry no label of ours. Waits up to `settleMs` for them to go, since a cancelled build removes its container late.
 */
export async function containersWithCommand(docker: Docker, marker: string, settleMs = 0): Promise<string[]> {
  const until = Date.now() + settleMs;
  for (;;) {
    const r = await docker.call(["ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Command}}"]);
    if (r.code !== 0) throw new Error(`docker ps failed: ${r.stderr}`);
    const found = new TextDecoder().decode(r.stdout).split("\n").filter((l) => l.includes(marker));
    if (!found.length || Date.now() >= until) return found;
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

/**
 * How many containers carry `pgs.pid=<pid>` (default: this process). Test modules run with `--parallel` share one
 * process, so pass more labels (e.g. `pgs.task=...`) to count only one test's containers.
 */
export async function countPidContainers(docker: Docker, pid = Deno.pid, ...labels: string[]): Promise<number> {
  return (await containersWith(docker, `pgs.pid=${pid}`, ...labels)).length;
}

/** `docker inspect` of one container, parsed. */
// deno-lint-ignore no-explicit-any
export async function inspect(docker: Docker, id: string): Promise<any> {
  const out = await docker.ok(["inspect", id], "inspect");
  return JSON.parse(out)[0];
}

/** A throwaway container of `image` running `sleep infinity` under tini, labelled and tracked as this process's. */
export async function startContainer(
  docker: Docker,
  opts: { image?: string; extra?: string[]; task?: string } = {},
): Promise<{ id: string; remove: () => Promise<void> }> {
  const args = [
    "run",
    "-d",
    "--init",
    "--network",
    "none",
    ...labelArgs("test", opts.task ?? uniqueName("container")),
    ...(opts.extra ?? []),
    opts.image ?? BASE_IMAGE,
    "sleep",
    "infinity",
  ];
  const id = (await docker.ok(args, "start")).trim();
  docker.hygiene.track(id);
  return { id, remove: async () => void await docker.box(id).remove() };
}

/** Polls `cond` every 100 ms until it holds or `ms` pass; returns whether it held. */
export async function waitFor(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** UTF-8 bytes of a string. */
export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * Makes the base images the Harbor-style fixtures (`tests/fixtures/harbor/`) start FROM, offline: `ubuntu:24.04` as
 * a tag of pgs-base:1 (only when the engine has no such image), and `pgs-fixture-workdir-base:1`, an image whose
 * WORKDIR is /srv/project, for the task that inherits its working directory.
 */
export async function harborFixtureImages(docker: Docker): Promise<void> {
  if (!await docker.hasImage("ubuntu:24.04")) await docker.ok(["tag", BASE_IMAGE, "ubuntu:24.04"], "tag");
  if (!await docker.hasImage("pgs-fixture-workdir-base:1")) {
    const dir = await Deno.makeTempDir({ prefix: "pgs_fixture_base_" });
    try {
      await Deno.writeTextFile(path.join(dir, "Dockerfile"), `FROM ${BASE_IMAGE}\nWORKDIR /srv/project\n`);
      await docker.ok(["build", "-q", "-t", "pgs-fixture-workdir-base:1", dir], "build", { timeoutMs: 120_000 });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}

/** The folder of Harbor-style fixture tasks. */
export const HARBOR_FIXTURES = path.join(import.meta.dirname!, "fixtures", "harbor");
