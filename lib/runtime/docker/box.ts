/** One container of a Docker-like engine as a `Box`: execs, tar copies (`cp`), state, restart, commit, removal. */
import type {
  ArchiveRead,
  Box,
  BoxExecOptions,
  BoxPipe,
  BoxState,
  Done,
  ExecProcess,
  ProcResult,
  Runtime,
} from "../runtime.ts";
import { execArgs } from "./args.ts";
import type { DockerCli } from "./cli.ts";

/** What a box needs of its engine: the runtime it belongs to, its CLI, and the engine's removal queue. */
export type BoxEngine = Runtime & Pick<DockerCli, "call" | "spawn" | "cli"> & {
  /** The removal queue (a tied box is removed by closing its pipe). */
  readonly hygiene: { remove(id: string, pipe?: BoxPipe): Promise<boolean> };
};

/** The bound of a call that names none. */
const DEFAULT_MS = 120_000;

/** A container of `runtime`, by id. */
export class DockerBox implements Box {
  /** The container `id` on `runtime`; `main` when it was started tied to a pipe. */
  constructor(readonly runtime: BoxEngine, readonly id: string, readonly main?: BoxPipe) {}

  /** `exec [-i] [-u] [-w] [-e...] ID argv`, bounded. */
  exec(argv: string[], opts: BoxExecOptions = {}): Promise<ProcResult> {
    const flags = execArgs({ ...opts, interactive: opts.stdin !== undefined });
    return this.runtime.call(["exec", ...flags, this.id, ...argv], {
      stdin: opts.stdin,
      timeoutMs: opts.timeoutMs ?? DEFAULT_MS,
    });
  }

  /** `exec -i ...` (stdin piped) or `exec ...` as a long-lived child process. */
  spawn(argv: string[], opts: { user?: string; workdir?: string; stdin?: boolean } = {}): ExecProcess {
    const flags = execArgs({ user: opts.user, workdir: opts.workdir, interactive: opts.stdin });
    return this.runtime.spawn(["exec", ...flags, this.id, ...argv], { stdin: opts.stdin });
  }

  /** `cp - ID:PARENT` with the archive on stdin. */
  async putArchive(
    parent: string,
    archive: Uint8Array | ReadableStream<Uint8Array>,
    timeoutMs?: number,
  ): Promise<Done> {
    const r = await this.runtime.call(["cp", "-", `${this.id}:${parent}`], { stdin: archive, timeoutMs });
    return r.code === 0 ? { ok: true } : { ok: false, error: r.stderr || `${this.#bin} cp exited ${r.code}` };
  }

  /** `cp ID:PATH -`, killed at `timeoutMs`. */
  getArchive(path: string, timeoutMs?: number): ArchiveRead {
    const child = this.runtime.spawn(["cp", `${this.id}:${path}`, "-"], { timeoutMs });
    const bin = this.#bin;
    const done = Promise.all([child.status, new Response(child.stderr).text()]).then(([status, err]) => {
      if (status.success) return { ok: true as const };
      const error = err.trim() || `${bin} cp exited ${status.code}`;
      return { ok: false as const, error, missing: /no such|could not find/i.test(err) };
    });
    return {
      stream: child.stdout,
      done,
      cancel: () => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      },
    };
  }

  /** `inspect --format {{.State.Running}} {{.State.ExitCode}}`. */
  async state(): Promise<BoxState> {
    const r = await this.runtime.call(["inspect", "--format", "{{.State.Running}} {{.State.ExitCode}}", this.id]);
    const [said, code] = new TextDecoder().decode(r.stdout).trim().split(" ");
    if (said === "true") return { status: "running", detail: "" };
    if (said === "false") return { status: "stopped", detail: "", exitCode: Number(code) };
    return { status: "unknown", detail: r.stderr || `inspect exit ${r.code}` };
  }

  /** `logs --tail N`, stdout and stderr together; "" when the engine cannot say. */
  async logs(lines: number): Promise<string> {
    const r = await this.runtime.call(["logs", "--tail", String(lines), this.id], { timeoutMs: 30_000 });
    if (r.code !== 0) return "";
    return (new TextDecoder().decode(r.stdout) + r.stderr).trim();
  }

  /** `inspect --format {{.HostsPath}}`: the file the engine mounts at `/etc/hosts`. */
  async hostsPath(): Promise<string | undefined> {
    const r = await this.runtime.call(["inspect", "--format", "{{.HostsPath}}", this.id], { timeoutMs: 30_000 });
    const path = new TextDecoder().decode(r.stdout).trim();
    return r.code === 0 && path ? path : undefined;
  }

  /** `start ID`. */
  async restart(): Promise<Done> {
    const r = await this.runtime.call(["start", this.id], { timeoutMs: 60_000 });
    return r.code === 0 ? { ok: true } : { ok: false, error: r.stderr.trim() };
  }

  /** `commit ID TAG`. */
  async snapshot(tag: string): Promise<Done> {
    const r = await this.runtime.call(["commit", this.id, tag], { timeoutMs: 300_000 });
    return r.code === 0 ? { ok: true } : { ok: false, error: r.stderr.trim() };
  }

  /**
   * `network disconnect none` + `network connect PUBLIC` to give the box the network; `network disconnect PUBLIC` to
   * take it away (a box on no network is left as it is).
   */
  async setNetwork(allow: boolean): Promise<Done> {
    const net = this.runtime.cli.network ?? this.runtime.cli.defaultNetwork;
    if (allow) {
      // Docker keeps a `--network none` box on the `none` network, which excludes every other.
      await this.runtime.call(["network", "disconnect", "none", this.id], { timeoutMs: 30_000 });
      const r = await this.runtime.call(["network", "connect", net, this.id], { timeoutMs: 30_000 });
      return r.code === 0 || /already exists|already attached/i.test(r.stderr)
        ? { ok: true }
        : { ok: false, error: r.stderr || `${this.#bin} network connect exited ${r.code}` };
    }
    const r = await this.runtime.call(["network", "disconnect", net, this.id], { timeoutMs: 30_000 });
    // A default network the engine does not have (dockerd --bridge=none) gave the box none to take away.
    return r.code === 0 || /is not connected|not connected to|not found/i.test(r.stderr)
      ? { ok: true }
      : { ok: false, error: r.stderr || `${this.#bin} network disconnect exited ${r.code}` };
  }

  /** Removes the container through the engine's removal queue (a tied one by closing its pipe). */
  remove(): Promise<boolean> {
    return this.runtime.hygiene.remove(this.id, this.main);
  }

  get #bin(): string {
    return this.runtime.cli.binary;
  }
}
