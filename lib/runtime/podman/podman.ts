/**
 * podman as a `Runtime`: Docker's CLI driver with podman's `CliEngine`, and only what differs written here. A box's
 * working directory must exist before `podman run -w` (Docker makes it), so a box whose image lacks it runs from a
 * derived image whose WORKDIR it is (podman makes an image's own WORKDIR at start); a failed `run` is removed by
 * name; short names are pulled from Docker Hub; GPUs are CDI devices.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { Docker, labelArgs, lastWords, runArgs } from "../docker/mod.ts";
import { creatingContainer } from "../hygiene.ts";
import { type Box, type BoxPipe, type BoxSpec, BoxStartError } from "../runtime.ts";
import { PODMAN_ENGINE, podmanRunArgs, qualifiedRef } from "./engine.ts";
import { PodmanBox } from "./box.ts";
import { cdiGpuProblem } from "./gpus.ts";

const decoder = new TextDecoder();
/** In-process memo of workdir decisions; cleared past this size (snapshot tags are one per episode). */
const MEMO_MAX = 1000;

/** `path` normalized, without a trailing slash (`/` stays `/`). */
function folder(path: string): string {
  return posix.normalize(path).replace(/(.)\/+$/, "$1");
}

/** How a box of an image gets its working directory. */
interface WorkdirPlan {
  /** The image to run. */
  image: string;
  /** Whether `-w` stays (the folder exists in the image, or is `/`). */
  keepFlag: boolean;
}

/** A podman engine through the `podman` CLI; `host` is a CONTAINER_HOST value (default: local, rootful here). */
export class Podman extends Docker {
  #plans = new Map<string, Promise<WorkdirPlan>>();

  /** A client of the local podman, or of the service at `host` (a CONTAINER_HOST value). */
  constructor(host?: string, network?: string) {
    super(host, network ? { ...PODMAN_ENGINE, network } : PODMAN_ENGINE);
  }

  /** The container `id` as a podman box (`main` for a tied one). */
  override box(id: string, main?: BoxPipe): PodmanBox {
    return new PodmanBox(this, id, main);
  }

  /** `pull -q` of the name as Docker would resolve it (podman resolves no short name here). */
  override pullImage(ref: string, timeoutMs: number): Promise<boolean> {
    return super.pullImage(qualifiedRef(ref), timeoutMs);
  }

  /** Why boxes cannot have GPUs: podman gives them as CDI devices (`nvidia.com/gpu`), which must be generated. */
  override gpuProblem(): Promise<string | undefined> {
    return cdiGpuProblem(this.host);
  }

  /**
   * `podman run -d --name pgs-<uuid> ...` from an image holding the working directory (see `#plan`); a failed run
   * leaves a created container that only its name finds, so it is removed by name.
   */
  protected override async startBox(spec: BoxSpec): Promise<PodmanBox> {
    const stage = spec.stage ?? "start";
    if (spec.joins) spec = await sharedHosts(spec, spec.joins);
    const plan = await this.#plan(spec, stage);
    const name = `pgs-${crypto.randomUUID()}`;
    const argv = podmanRunArgs(runArgs(this.cli, { ...spec, image: plan.image }), name, plan.keepFlag);
    if (spec.pipe) return await this.startTied(argv, spec.pipe, stage) as PodmanBox;
    const r = await creatingContainer(this, () => this.call(argv));
    if (r.code !== 0 || r.timedOut) {
      await this.hygiene.remove(name);
      if (this.down) throw this.down;
      const last = lastWords(r.stderr) ?? `exit code ${r.code}`;
      const hint = /error setting rlimit/.test(r.stderr)
        ? " (podman's default ulimits are above this host's hard limits: set default_ulimits in " +
          "/etc/containers/containers.conf, see docs/runtimes.md)"
        : /container-init binary not found/.test(r.stderr)
        ? " (podman's --init needs catatonit: apt-get install catatonit)"
        : "";
      const why = r.timedOut ? "timed out after 120000 ms" : `failed: ${last}${hint}`;
      throw new BoxStartError(`podman run ${why}`, stage, r.stderr);
    }
    const id = decoder.decode(r.stdout).trim();
    this.hygiene.track(id);
    return this.box(id);
  }

  /**
   * Where a box of `spec.image` gets `spec.workdir`: the image itself when that is its WORKDIR (without `-w`: podman
   * refuses `-w` for a folder the image lacks, even its own WORKDIR, but makes the WORKDIR at start) or `/`;
   * otherwise `localhost/pgs-wd:<hash>`, the image with only its WORKDIR changed, made once per engine and content.
   */
  #plan(spec: BoxSpec, stage: string): Promise<WorkdirPlan> {
    const key = `${spec.image}\0${spec.workdir}`;
    let p = this.#plans.get(key);
    if (!p) {
      if (this.#plans.size >= MEMO_MAX) this.#plans.clear();
      p = this.#makePlan(spec, stage);
      p.catch(() => this.#plans.delete(key));
      this.#plans.set(key, p);
    }
    return p;
  }

  async #makePlan(spec: BoxSpec, stage: string): Promise<WorkdirPlan> {
    if (!spec.workdir) return { image: spec.image, keepFlag: true }; // the image's own: no `-w` at all
    const dir = folder(spec.workdir);
    if (dir === "/") return { image: spec.image, keepFlag: true };
    const facts = await this.inspectImage(spec.image);
    // An image the engine lacks fails in `run` with the engine's own words.
    if (!facts) return { image: spec.image, keepFlag: true };
    if (facts.workdir && folder(facts.workdir) === dir) return { image: spec.image, keepFlag: false };
    const tag = `localhost/pgs-wd:${createHash("sha256").update(`${facts.id}\0${dir}`).digest("hex").slice(0, 16)}`;
    if (await this.hasImage(tag)) return { image: tag, keepFlag: false };
    // Never started; `commit` keeps the image's config but for the WORKDIR (and the CMD, which pgs always gives).
    const created = await creatingContainer(
      this,
      () => this.call(["create", ...labelArgs("workdir-image", spec.task), spec.image, "true"]),
    );
    const cid = decoder.decode(created.stdout).trim();
    if (created.code !== 0) {
      throw new BoxStartError(`podman create of ${spec.image} failed: ${created.stderr}`, stage, created.stderr);
    }
    this.hygiene.track(cid);
    try {
      const commit = await this.call(["commit", "-q", "--change", `WORKDIR=${dir}`, cid, tag], { timeoutMs: 300_000 });
      if (commit.code !== 0) {
        const why = `cannot give ${spec.image} the working directory ${dir}: ${commit.stderr}`;
        throw new BoxStartError(why, stage, commit.stderr);
      }
    } finally {
      await this.hygiene.remove(cid);
    }
    return { image: tag, keepFlag: false };
  }
}

/**
 * A pod member's spec with the first member's `/etc/hosts` mounted over its own: podman gives a box that joins
 * another's network namespace a hosts file of its own, without the first member's `--add-host` names, and refuses
 * `--add-host` on the joining box. (A podman pod would not do either: podman 4.3 drops a pod's `--add-host` under
 * `--network none`.) The path is the engine host's, where a bind mount's source is read.
 */
async function sharedHosts(spec: BoxSpec, first: Box): Promise<BoxSpec> {
  const source = await first.hostsPath();
  if (!source) {
    throw new BoxStartError(`cannot read the hosts file of the pod's box ${first.id}`, spec.stage ?? "start", "");
  }
  return { ...spec, mounts: [...spec.mounts ?? [], { type: "bind", source, target: "/etc/hosts" }] };
}
