/**
 * Docker as a `Runtime`: the CLI driver (`cli.ts`) plus images, boxes and hygiene, all through argv built here and in
 * `args.ts`. Another docker-like CLI (podman) reuses it with its own `CliEngine` and overrides only what differs.
 */
import { creatingContainer } from "../hygiene.ts";
import {
  type BoxPipe,
  type BoxSpec,
  BoxStartError,
  type BuildOptions,
  type BuildOutcome,
  type Done,
  type ImageFacts,
  type Runtime,
} from "../runtime.ts";
import { buildArgs, imageHealthcheck, labelArgs, runArgs } from "./args.ts";
import { DockerBox } from "./box.ts";
import { DockerCli, lastWords } from "./cli.ts";
import { type CliEngine, DOCKER_ENGINE } from "./engine.ts";
import { gpuProblem } from "./gpus.ts";
import { DockerHygiene, volumeName } from "./hygiene.ts";
import { launchPiped, pipedFailed, pipedStartError } from "./piped.ts";
import { belowImageSize, diskBoundLine, probeDiskBound, refusesDiskBound, type StorageFacts } from "./storage.ts";
import { warnOnce } from "../../base/warn.ts";

const decoder = new TextDecoder();

/** A Docker engine reached through the CLI; `host` is a DOCKER_HOST value (default: the environment's). */
export class Docker extends DockerCli implements Runtime {
  /** This engine's tracked boxes, removal queue and sweep. */
  readonly hygiene: DockerHygiene;
  #diskBound?: Promise<{ facts: StorageFacts; problem?: string }>;

  /** A client of the engine at `host` (default: the environment's) through `cli` (default: the docker CLI). */
  constructor(host?: string, cli: CliEngine = DOCKER_ENGINE) {
    super(host, cli);
    this.hygiene = new DockerHygiene(this, this);
  }

  /** The registry name (`docker`, or the engine's). */
  get kind(): string {
    return this.cli.kind;
  }

  /** The container `id` of this engine as a `Box` (one pgs did not start is not tracked); `main` for a tied one. */
  box(id: string, main?: BoxPipe): DockerBox {
    return new DockerBox(this, id, main);
  }

  /** `image inspect` of id, architecture, USER, WORKDIR and VOLUMEs; undefined when the engine lacks the image. */
  async inspectImage(ref: string): Promise<ImageFacts | undefined> {
    const r = await this.call(["image", "inspect", "--format", "{{.Id}} {{.Architecture}} {{json .Config}}", ref]);
    if (r.code !== 0) return undefined;
    const [id, arch, ...rest] = decoder.decode(r.stdout).trim().split(" ");
    const config = JSON.parse(rest.join(" ") || "null") ?? {};
    return {
      id,
      arch: arch ?? "",
      user: String(config.User ?? ""),
      workdir: String(config.WorkingDir ?? ""),
      volumes: Object.keys(config.Volumes ?? {}),
      entrypoint: Array.isArray(config.Entrypoint) && config.Entrypoint.length > 0,
      ...imageHealthcheck(config.Healthcheck),
    };
  }

  /** `pull -q REF`, bounded. */
  async pullImage(ref: string, timeoutMs: number): Promise<boolean> {
    return (await this.call(["pull", "-q", ref], { timeoutMs })).code === 0;
  }

  /** `build -q --force-rm -t TAG [-f FILE] [--build-arg K=V...] [--target T] DIR`, bounded. */
  async buildImage(contextDir: string, tag: string, timeoutMs: number, opts: BuildOptions = {}): Promise<BuildOutcome> {
    // --force-rm: the legacy builder keeps the container of a failed RUN step otherwise, an orphan per attempt.
    const r = await this.call(["build", "-q", "--force-rm", "-t", tag, ...buildArgs(contextDir, opts), contextDir], {
      timeoutMs,
    });
    return r.code === 0 && !r.timedOut ? { ok: true } : { ok: false, timedOut: r.timedOut, stderr: r.stderr };
  }

  /** `create` (never started) + `cp -` + `commit`, then the container removed. */
  async commitArchive(base: string, archive: Uint8Array, tag: string, task: string): Promise<Done> {
    // The command only satisfies images without a CMD; `commit` keeps the base's config otherwise.
    const created = await creatingContainer(
      this,
      () => this.call(["create", ...labelArgs("workdir-image", task), base, "true"]),
    );
    const cid = decoder.decode(created.stdout).trim();
    if (created.code !== 0) return { ok: false, error: `cannot create a container of ${base}: ${created.stderr}` };
    this.hygiene.track(cid);
    const box = this.box(cid);
    try {
      const put = await box.putArchive("/", archive);
      if (!put.ok) return { ok: false, error: `cannot copy the workdir into ${base}: ${put.error}` };
      const commit = await box.snapshot(tag);
      if (!commit.ok) return { ok: false, error: `cannot commit the workdir image: ${commit.error}` };
      return { ok: true };
    } finally {
      await box.remove();
    }
  }

  /** `rmi -f REF`; never throws. */
  async removeImage(ref: string): Promise<void> {
    await this.call(["rmi", "-f", ref]).catch(() => {});
  }

  /** Why this engine cannot give containers GPUs (no nvidia runtime), or undefined. */
  gpuProblem(): Promise<string | undefined> {
    return gpuProblem(this);
  }

  /** Why this engine cannot bound a box's disk (its storage driver, from `info`, asked once), or undefined. */
  async diskBoundProblem(): Promise<string | undefined> {
    return (await (this.#diskBound ??= probeDiskBound(this))).problem;
  }

  /**
   * Starts a box (`startBox`) with its disk bound where this engine enforces one; where it cannot, unbounded, said
   * once per run. A bound below the image's own size is a BoxStartError naming the task.
   */
  async start(spec: BoxSpec): Promise<DockerBox> {
    const box = await this.#startBounded(spec);
    const l = spec.limits;
    if (!l.switchable || l.network || this.cli.connectsFromNone) return box;
    // Started on the public network so that it can be given it later (see `BoxLimits.switchable`): taken away now,
    // before anything but the box's main process runs.
    const off = await box.setNetwork(false);
    if (off.ok) return box;
    await box.remove();
    if (this.down) throw this.down;
    throw new BoxStartError(
      `${this.cli.binary} network disconnect failed: ${off.error}`,
      spec.stage ?? "start",
      off.error,
    );
  }

  async #startBounded(spec: BoxSpec): Promise<DockerBox> {
    const mb = spec.limits.storageMb;
    if (!mb) return await this.startBox(spec);
    const unbounded = { ...spec, limits: { ...spec.limits, storageMb: undefined } };
    const problem = await this.diskBoundProblem();
    if (problem) {
      warnOnce(problem, `disk-bound:${this.kind}:${this.engine}`);
      return await this.startBox(unbounded);
    }
    try {
      return await this.startBox(spec);
    } catch (e) {
      if (!(e instanceof BoxStartError)) throw e;
      if (refusesDiskBound(e.detail)) {
        // The driver looked able (overlay on XFS, podman's btrfs) but refuses the flag: so for the rest of the run.
        const { facts } = await this.#diskBound!;
        const line = diskBoundLine(this.kind, this.engine, facts, `it refuses --storage-opt: ${lastWords(e.detail)}`);
        this.#diskBound = Promise.resolve({ facts, problem: line });
        warnOnce(line, `disk-bound:${this.kind}:${this.engine}`);
        return await this.startBox(unbounded);
      }
      if (belowImageSize(e.detail)) {
        const why = `${spec.task}: storage_mb = ${mb} is below what the image ${spec.image} itself takes on this ` +
          `engine (its bound counts the image's own bytes): ${lastWords(e.detail)}`;
        throw new BoxStartError(why, e.stage, why);
      }
      throw e;
    }
  }

  /** `run -d ...`; a container created but not started is removed, and the failure is a BoxStartError. */
  protected async startBox(spec: BoxSpec): Promise<DockerBox> {
    const stage = spec.stage ?? "start";
    if (spec.pipe) return await this.startTied(runArgs(this.cli, spec), spec.pipe, stage);
    const r = await creatingContainer(this, () => this.call(runArgs(this.cli, spec)));
    const id = decoder.decode(r.stdout).trim();
    if (r.code !== 0 || r.timedOut) {
      if (/^[0-9a-f]{64}$/.test(id)) await this.hygiene.remove(id); // created but not started
      if (this.down) throw this.down;
      const why = r.timedOut ? `timed out after 120000 ms` : `failed: ${lastWords(r.stderr) ?? `exit code ${r.code}`}`;
      throw new BoxStartError(`${this.cli.binary} run ${why}`, stage, r.stderr);
    }
    this.hygiene.track(id);
    return this.box(id);
  }

  /** Starts a box tied to a pipe from its `run -i --rm` argv; what a failed start created is removed. */
  protected async startTied(
    argv: string[],
    pipe: { ready: string; keep?: boolean },
    stage: string,
  ): Promise<DockerBox> {
    const r = await creatingContainer(this, () => launchPiped(this, argv, pipe.ready, !pipe.keep));
    if (pipedFailed(r)) {
      if (r.id) await this.hygiene.remove(r.id);
      if (this.down) throw this.down;
      if (r.timedOut) await this.assertAnswering(`${this.cli.binary} run`);
      throw pipedStartError(this.cli.binary, r, stage);
    }
    this.hygiene.track(r.id);
    return this.box(r.id, r.pipe);
  }

  /** `volume create` with this process's labels, named for its owner (`volumeName`) so that a sweep finds it. */
  async createVolume(task: string): Promise<string> {
    const name = volumeName();
    await creatingContainer(
      this,
      () => this.ok(["volume", "create", ...labelArgs("volume", task), name], "volume"),
    );
    this.hygiene.trackVolume(name);
    return name;
  }

  /** `volume rm -f NAME...`; never throws. */
  removeVolumes(names: string[]): Promise<boolean> {
    return this.hygiene.removeVolumes(names);
  }

  /** Removes containers, then volumes, left on this host by dead pgs processes (by label); once per client. */
  sweepOrphans(): Promise<string[]> {
    return this.hygiene.sweepOrphans();
  }

  /** Removes every container of this process on this engine. */
  removeOwn(): Promise<void> {
    return this.hygiene.removeOwn();
  }

  /** Removes the tracked containers synchronously (exit). */
  removeOwnSync(): void {
    this.hygiene.removeOwnSync();
  }

  /** Containers this process started here and has not removed. */
  tracked(): string[] {
    return this.hygiene.tracked();
  }
}
