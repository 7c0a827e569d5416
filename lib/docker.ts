/** The `docker` CLI, driven with argv arrays (never shell strings), one engine per instance. */
import { InfraError } from "./errors.ts";

/** What a finished `docker` call returned. */
export interface DockerResult {
  /** The CLI's exit code. */
  code: number;
  /** Stdout as written. */
  stdout: Uint8Array;
  /** Stderr decoded and trimmed. */
  stderr: string;
  /** Stderr as written (not decoded, not trimmed). */
  stderrRaw: Uint8Array;
  /** True when the call was killed at its timeout. */
  timedOut: boolean;
}

/** Options of one `docker` call. */
export interface DockerCallOptions {
  /** Bytes written to the CLI's stdin (default: none, stdin is closed). */
  stdin?: Uint8Array | ReadableStream<Uint8Array>;
  /** Kill the CLI after this many milliseconds (default: no limit). */
  timeoutMs?: number;
  /** Aborts the call. */
  signal?: AbortSignal;
}

const decoder = new TextDecoder();

/** A Docker engine reached through the CLI; `host` is a DOCKER_HOST value (default: the environment's). */
export class Docker {
  /** A client of the engine at `host` (default: the environment's DOCKER_HOST). */
  constructor(readonly host?: string) {}

  /** The environment the CLI runs with: DOCKER_HOST pinned when this client names an engine. */
  env(): Record<string, string> {
    return this.host ? { DOCKER_HOST: this.host } : {};
  }

  /** Starts `docker ...args` as a child process with piped stdio (for long-lived sessions). */
  spawn(args: string[], stdio: { stdin?: boolean } = {}): Deno.ChildProcess {
    return new Deno.Command("docker", {
      args,
      env: this.env(),
      stdin: stdio.stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  }

  /** Runs `docker ...args` to completion; never throws on a non-zero exit (see `ok`). */
  async call(args: string[], opts: DockerCallOptions = {}): Promise<DockerResult> {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command("docker", {
        args,
        env: this.env(),
        stdin: opts.stdin ? "piped" : "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (e) {
      throw new InfraError(`cannot run the docker CLI: ${(e as Error).message}`, "docker", { cause: e });
    }
    let timedOut = false;
    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    };
    const timer = opts.timeoutMs !== undefined
      ? setTimeout(() => {
        timedOut = true;
        kill();
      }, opts.timeoutMs)
      : undefined;
    opts.signal?.addEventListener("abort", kill, { once: true });
    try {
      if (opts.stdin instanceof Uint8Array) {
        const w = child.stdin.getWriter();
        await w.write(opts.stdin).catch(() => {});
        await w.close().catch(() => {});
      } else if (opts.stdin) {
        await opts.stdin.pipeTo(child.stdin).catch(() => {});
      }
      const out = await child.output();
      const stderr = decoder.decode(out.stderr).trim();
      return { code: out.code, stdout: out.stdout, stderr, stderrRaw: out.stderr, timedOut };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", kill);
    }
  }

  /** Runs `docker ...args` and returns its stdout as text; a failure throws InfraError naming `stage`. */
  async ok(args: string[], stage: string, opts: DockerCallOptions = {}): Promise<string> {
    const r = await this.call(args, opts);
    if (r.timedOut) throw new InfraError(`docker ${args[0]} timed out after ${opts.timeoutMs} ms`, stage);
    if (r.code !== 0) {
      const why = r.stderr.split("\n").filter((l) => l.trim()).pop() ?? `exit code ${r.code}`;
      throw new InfraError(`docker ${args[0]} failed: ${why}`, stage);
    }
    return decoder.decode(r.stdout);
  }

  /** True when the engine answers. */
  async ping(): Promise<boolean> {
    try {
      const r = await this.call(["version", "--format", "{{.Server.Version}}"], { timeoutMs: 10_000 });
      return r.code === 0;
    } catch {
      return false;
    }
  }

  /** True when the image exists in this engine. */
  async hasImage(image: string): Promise<boolean> {
    const r = await this.call(["image", "inspect", "--format", "{{.Id}}", image]);
    return r.code === 0;
  }
}
