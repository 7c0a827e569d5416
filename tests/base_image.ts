/**
 * The base image the engine tests use (`pgs-base:1`), on every engine the suite tests.
 *
 * Run as a program (`deno run -A tests/base_image.ts`, which `deno task test` does before `deno test`), it makes the
 * image on each engine that answers and lacks it, once, with `scripts/build_base_image.sh` (`--engine podman` for
 * podman; a second Docker engine, PGS_DOCKER_HOST_2, gets the first one's copy), and notes in a file beside the
 * leftovers mark why it could not where it could not (no debootstrap, not root, a failed build). An engine that has the
 * image costs one `image inspect`.
 *
 * Imported (by `docker_helpers.ts` and `runtime_helpers.ts`), it says why an engine that answers cannot run the tests:
 * its tests are then ignored with that reason in their names, never passed and never failed, unless the engine is
 * required (`REQUIRED_RUNTIMES`), whose tests fail loudly with it.
 */
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { createRuntime, DEFAULT_RUNTIME, runtimeNames } from "../lib/runtime/registry.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";

/** The base image every test task uses unless it builds its own. */
export const BASE_IMAGE = "pgs-base:1";

/** The runtimes whose tests fail rather than being ignored: the default under CI, and PGS_REQUIRE_RUNTIMES's. */
export const REQUIRED_RUNTIMES: ReadonlyMap<string, string> = new Map([
  ...(Deno.env.get("CI") === "true" ? [[DEFAULT_RUNTIME, "CI=true"] as const] : []),
  ...(Deno.env.get("PGS_REQUIRE_RUNTIMES") ?? "").split(",").map((s) => s.trim()).filter(Boolean)
    .map((n) => [n, `PGS_REQUIRE_RUNTIMES=${Deno.env.get("PGS_REQUIRE_RUNTIMES")}`] as const),
]);

const REPO = path.dirname(import.meta.dirname!);
const BUILD_SCRIPT = path.join(REPO, "scripts", "build_base_image.sh");
/** Where the last run of this program noted the engines it could not make the image on (engine → why). */
const STATUS_FILE = path.join(
  tmpdir(),
  `pgs-tests-${createHash("sha256").update(REPO).digest("hex").slice(0, 12)}.base-image.json`,
);

/** An engine's key in the status file: its kind and address. */
function engineKey(runtime: Runtime): string {
  return `${runtime.kind} ${runtime.engine}`;
}

function readStatus(): Record<string, string> {
  try {
    return JSON.parse(Deno.readTextFileSync(STATUS_FILE));
  } catch {
    return {};
  }
}

/** The command that makes the image on `runtime`'s engine. */
function buildCommand(runtime: Runtime): string {
  return `bash scripts/build_base_image.sh${runtime.kind === DEFAULT_RUNTIME ? "" : ` --engine ${runtime.kind}`}`;
}

/**
 * Why `runtime`'s engine cannot run the engine tests, or undefined when it can (it holds `pgs-base:1`): no engine
 * answers, or it answers without the image (and why it could not be made, as the last `deno task test` found).
 * One `image inspect` when the image is there; a ping besides otherwise.
 */
export async function engineProblem(runtime: Runtime): Promise<string | undefined> {
  if (await runtime.inspectImage(BASE_IMAGE).catch(() => undefined)) return undefined;
  if (!await runtime.ping()) return `no ${runtime.kind} engine answers at ${runtime.engine}`;
  return missingImage(runtime);
}

/** Why tests cannot run on an engine that answers but lacks the image. */
export function missingImage(runtime: Runtime): string {
  const where = `no ${BASE_IMAGE} on the ${runtime.kind} engine at ${runtime.engine}`;
  const why = readStatus()[engineKey(runtime)];
  return why ? `${where}, and it could not be made: ${why}` : `${where}; make it with ${buildCommand(runtime)}`;
}

/** The engines the suite tests: every registered runtime's default one, and the second Docker engine when named. */
function enginesUnderTest(): Runtime[] {
  const second = Deno.env.get("PGS_DOCKER_HOST_2");
  return [
    ...runtimeNames().map((n) => createRuntime(n)),
    ...(second ? [createRuntime("docker", { host: second })] : []),
  ];
}

/** Runs `cmd` with stdout shown and stderr shown and kept; undefined on success, else its last line of stderr. */
async function run(cmd: string[], env: Record<string, string>, timeoutMs: number): Promise<string | undefined> {
  const child = new Deno.Command(cmd[0], { args: cmd.slice(1), env, stdout: "inherit", stderr: "piped" }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const out = await child.output().finally(() => clearTimeout(timer));
  const err = new TextDecoder().decode(out.stderr);
  if (err) Deno.stderr.writeSync(out.stderr);
  if (out.success) return undefined;
  const last = err.split("\n").map((l) => l.trim()).filter(Boolean).pop();
  return out.signal === "SIGKILL"
    ? `${cmd.join(" ")} was still running after ${timeoutMs / 60_000} min`
    : last ?? `${cmd.join(" ")} exited ${out.code}`;
}

/** Makes the image on `runtime`'s engine; undefined when it is there afterwards, else why not. */
async function make(runtime: Runtime, from?: Runtime): Promise<string | undefined> {
  const hostVar = runtime.kind === "podman" ? "CONTAINER_HOST" : "DOCKER_HOST";
  const env: Record<string, string> = runtime.host ? { [hostVar]: runtime.host } : {};
  let failed: string | undefined;
  if (from) {
    // A second Docker engine: the first one's copy (what .ci/run does), bounded like the script's podman copy.
    const script = 'docker save "$1" | DOCKER_HOST="$2" docker load -q';
    failed = await run(
      ["timeout", "600", "bash", "-o", "pipefail", "-c", script, "_", BASE_IMAGE, runtime.host!],
      from.host ? { DOCKER_HOST: from.host } : {},
      660_000,
    );
  } else if (runtime.kind === "docker" || runtime.kind === "podman") {
    failed = await run(["bash", BUILD_SCRIPT, BASE_IMAGE, "--engine", runtime.kind], env, 30 * 60_000);
  } else {
    return `scripts/build_base_image.sh makes it for docker and podman only, not ${runtime.kind}`;
  }
  if (failed) return failed.replace(/^build_base_image\.sh: /, "");
  return await runtime.inspectImage(BASE_IMAGE) ? undefined : `${buildCommand(runtime)} ran but the image is not there`;
}

/** Makes `pgs-base:1` on every engine under test that answers and lacks it; notes where it could not. */
async function main(): Promise<void> {
  const status: Record<string, string> = {};
  let firstDocker: Runtime | undefined;
  for (const runtime of enginesUnderTest()) {
    const required = REQUIRED_RUNTIMES.get(runtime.kind);
    if (await runtime.inspectImage(BASE_IMAGE).catch(() => undefined)) {
      if (runtime.kind === "docker") firstDocker ??= runtime;
      continue;
    }
    if (!await runtime.ping()) {
      const absent = `no ${runtime.kind} engine answers at ${runtime.engine}`;
      console.error(`base image: ${absent}: its tests ${required ? `fail (${required})` : "are ignored"}`);
      continue;
    }
    const copy = runtime.kind === "docker" && runtime.host && firstDocker?.host !== runtime.host
      ? firstDocker
      : undefined;
    console.error(`base image: ${BASE_IMAGE} is not on the ${runtime.kind} engine at ${runtime.engine}: making it`);
    const why = await make(runtime, copy);
    if (why === undefined) {
      console.error(`base image: made ${BASE_IMAGE} on the ${runtime.kind} engine at ${runtime.engine}`);
      if (runtime.kind === "docker") firstDocker ??= runtime;
      continue;
    }
    status[engineKey(runtime)] = why;
    console.error(
      `${required ? "error" : "note"}: base image: could not make ${BASE_IMAGE} on the ${runtime.kind} engine at ` +
        `${runtime.engine} (${why}): its tests ${required ? `fail (${required})` : "are ignored"}`,
    );
  }
  if (Object.keys(status).length) await Deno.writeTextFile(STATUS_FILE, JSON.stringify(status, null, 2) + "\n");
  else await Deno.remove(STATUS_FILE).catch(() => {});
}

if (import.meta.main) await main();
