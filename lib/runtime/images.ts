/**
 * Task images: `docker_image` as is (after the `images` mapping), or `environment/Dockerfile` built once per content
 * hash and tagged by it, one build shared by every concurrent episode of the same content.
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import type { BuildOptions, ImageFacts, ImageHealthcheck, Runtime } from "./runtime.ts";
import type { ComposeService } from "../task/compose_types.ts";
import { InfraError } from "../base/errors.ts";
import type { Task, TaskStep } from "../task/task.ts";
import type { EnvironmentConfig } from "../task/task_config.ts";
import { buildWorkdirImage, type WorkdirLayer } from "./workdir_image.ts";
import { buildFailure } from "./build_error.ts";

/** What an image gives an episode: its reference and its default user. */
export interface ImageInfo {
  /** The image reference episodes run. */
  ref: string;
  /** The image's USER ("" means root). */
  user: string;
  /** The image's architecture as Docker names it (`amd64`, `arm64`, ...; "" when unknown). */
  arch?: string;
  /** The image's WORKDIR ("" when it sets none). */
  workdir?: string;
  /** Whether the image sets an ENTRYPOINT (default: unknown, treated as set). */
  entrypoint?: boolean;
  /** The image's HEALTHCHECK (default: none). */
  healthcheck?: ImageHealthcheck;
}

/** Hashes a build context: every file's path, mode and content, sorted, so equal contexts share one image. */
export async function contextHash(dir: string): Promise<string> {
  const h = createHash("sha256");
  const walk = async (abs: string) => {
    const entries: Deno.DirEntry[] = [];
    for await (const e of Deno.readDir(abs)) entries.push(e);
    entries.sort((a, b) => a.name < b.name ? -1 : 1);
    for (const e of entries) {
      const p = join(abs, e.name);
      const st = await Deno.lstat(p);
      const rel = relative(dir, p);
      if (st.isSymlink) h.update(`l ${rel} ${await Deno.readLink(p)}\0`);
      else if (st.isDirectory) {
        h.update(`d ${rel}\0`);
        await walk(p);
      } else if (st.isFile) {
        h.update(`f ${rel} ${(st.mode ?? 0) & 0o111 ? "x" : "-"} ${st.size}\0`);
        h.update(await Deno.readFile(p));
      }
    }
  };
  await walk(dir);
  return h.digest("hex");
}

/**
 * The tag pgs builds the context `dir` as, without building: `<repo>:<16 hex>` of the context's hash (with `opts`,
 * when it has a Dockerfile, args or target, hashed in). `pgs-env` for `environment/`, `pgs-svc` for a sidecar's build.
 */
export async function buildTag(dir: string, opts: BuildOptions = {}, repo = "pgs-env"): Promise<string> {
  const extra = opts.dockerfile || opts.args || opts.target ? JSON.stringify(opts) : "";
  const context = await contextHash(dir);
  const hash = extra ? createHash("sha256").update(context).update(extra).digest("hex") : context;
  return `${repo}:${hash.slice(0, 16)}`;
}

/** The build options of a sidecar's `build` (its tag's, `buildTag`, and the engine's). */
export function serviceBuildOptions(b: NonNullable<ComposeService["build"]>): BuildOptions {
  return { dockerfile: b.dockerfile, args: b.args, ...(b.target ? { target: b.target } : {}) };
}

/** Resolves and builds task images on one engine, caching per process. */
export class ImageStore {
  #builds = new Map<string, Promise<ImageInfo>>();
  #present = new Map<string, Promise<ImageInfo>>();
  /** What the engine said of each image it has, asked once (an image it lacks is asked again: it may be made). */
  #facts = new Map<string, Promise<ImageFacts | undefined>>();
  #workdirs = new Map<string, Promise<string | undefined>>();

  /** A store on `runtime`; `images` maps task image → replacement (default none). */
  constructor(readonly runtime: Runtime, readonly images: Record<string, string> = {}) {}

  /** The image an episode of `task` runs (and its isolated verifier starts from). */
  resolve(task: Task): Promise<ImageInfo> {
    const img = task.config.environment.dockerImage;
    if (img) return this.#inspect(this.images[img] ?? img, task);
    return this.#build(task, task.paths.environmentDir, "environment/Dockerfile");
  }

  /**
   * A separate verifier's image, as Harbor picks it (a step's: `[steps.verifier.environment]` first): the verifier
   * environment's docker_image (else `[environment]`'s), else the Dockerfile of its context, `tests/` (a step's
   * `steps/<name>/tests/` when that exists).
   */
  resolveVerifier(task: Task, step?: TaskStep): Promise<ImageInfo> {
    const img = separateVerifierEnv(task, step).dockerImage;
    if (img) return this.#inspect(this.images[img] ?? img, task);
    const context = step?.verifierContext ?? task.paths.testsDir;
    return this.#build(task, context, `${relative(task.dir, context)}/Dockerfile`);
  }

  /**
   * The image `base` with the working directory in it (see `workdir_image.ts`), made once per process and content;
   * undefined when a VOLUME of `base` covers it.
   */
  withWorkdir(base: string, layer: WorkdirLayer, task: Task): Promise<string | undefined> {
    const key = [base, layer.hostDir, layer.dest, layer.uid, layer.gid].join("\0");
    let p = this.#workdirs.get(key);
    if (!p) {
      p = buildWorkdirImage(this.runtime, base, layer, task.name, (ref) => this.#factsOf(ref));
      p.catch(() => this.#workdirs.delete(key));
      this.#workdirs.set(key, p);
    }
    return p;
  }

  #factsOf(ref: string): Promise<ImageFacts | undefined> {
    let p = this.#facts.get(ref);
    if (!p) {
      p = this.runtime.inspectImage(ref);
      this.#facts.set(ref, p);
      p.then((f) => f ?? this.#facts.delete(ref), () => this.#facts.delete(ref));
    }
    return p;
  }

  #inspect(ref: string, task: Task): Promise<ImageInfo> {
    let p = this.#present.get(ref);
    if (!p) {
      p = (async () => {
        let facts = await this.#factsOf(ref);
        if (!facts) {
          // Not local: a registry may have it. Bounded by the build timeout so an offline host fails fast enough.
          const pulled = await this.runtime.pullImage(ref, task.config.environment.buildTimeoutSec * 1000);
          facts = pulled ? await this.runtime.inspectImage(ref) : undefined;
          if (!facts) {
            throw new InfraError(
              `${task.name}: image ${ref} is not on the ${engineWord(this.runtime)} engine and could not be pulled` +
                (ref === "pgs-base:1"
                  ? ` (build it with scripts/build_base_image.sh${
                    this.runtime.kind === "docker" ? "" : ` --engine ${this.runtime.kind}`
                  })`
                  : ""),
              "image",
            );
          }
        }
        const { arch, user, workdir, entrypoint, healthcheck } = facts;
        return { ref, arch, user, workdir, entrypoint, ...(healthcheck ? { healthcheck } : {}) };
      })();
      p.catch(() => this.#present.delete(ref));
      this.#present.set(ref, p);
    }
    return p;
  }

  /**
   * A pod sidecar's image (`lib/runtime/pod.ts`): its `build` made once per context, Dockerfile, args and target
   * (tagged `pgs-svc:<hash>`), else its `image` after the `images` mapping, pulled when the engine lacks it.
   */
  resolveService(task: Task, service: ComposeService): Promise<ImageInfo> {
    const b = service.build;
    if (!b) {
      if (!service.image) {
        throw new InfraError(`${task.name}: service ${service.name} has neither image nor build`, "image");
      }
      return this.#inspect(this.images[service.image] ?? service.image, task);
    }
    const opts = serviceBuildOptions(b);
    const shown = `${relative(task.dir, join(b.context, b.dockerfile))} (service ${service.name})`;
    return this.#build(task, b.context, shown, opts, "pgs-svc");
  }

  #build(task: Task, dir: string, dockerfile: string, opts: BuildOptions = {}, repo = "pgs-env"): Promise<ImageInfo> {
    const extra = opts.dockerfile || opts.args || opts.target ? JSON.stringify(opts) : "";
    const key = `${dir}\0${extra}`;
    let p = this.#builds.get(key);
    if (!p) {
      p = (async () => {
        const tag = await buildTag(dir, opts, repo);
        const mapped = this.images[tag] ?? tag;
        if (mapped !== tag || await this.runtime.inspectImage(tag)) return this.#inspect(mapped, task);
        const timeoutMs = task.config.environment.buildTimeoutSec * 1000;
        const r = await this.runtime.buildImage(dir, tag, timeoutMs, opts);
        const kind = this.runtime.kind;
        if (!r.ok && r.timedOut) {
          throw new InfraError(
            `${task.name}: ${kind} build timed out after ${task.config.environment.buildTimeoutSec} s ` +
              `(environment.build_timeout_sec)`,
            "build",
          );
        }
        if (!r.ok) {
          const text = await Deno.readTextFile(join(dir, opts.dockerfile ?? "Dockerfile")).catch(() => "");
          throw new InfraError(
            `${task.name}: ${kind} build of ${dockerfile} failed: ${buildFailure(r.stderr, text)}`,
            "build",
          );
        }
        return this.#inspect(tag, task);
      })();
      p.catch(() => this.#builds.delete(key));
      this.#builds.set(key, p);
    }
    return p;
  }
}

/** How messages name the runtime's engine: "Docker" for docker, else the runtime's name. */
function engineWord(runtime: Runtime): string {
  return runtime.kind === "docker" ? "Docker" : runtime.kind;
}

/** The environment a separate verifier runs with (Harbor's order): the step's, the task's `[verifier.environment]`, else `[environment]`. */
export function separateVerifierEnv(task: Task, step?: TaskStep): EnvironmentConfig {
  return step?.config.verifier.environment ?? task.config.verifier.environment ?? task.config.environment;
}
