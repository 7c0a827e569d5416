/**
 * A local runtime: commands run as host subprocesses in a temp folder, each in its own session (`setsid`) so that a
 * timeout kills its whole process group, with the channel's caps and exit codes. It has no limits and no isolation:
 * it exists for tests of tool wording that need no container semantics, and as the smallest example of `ExecEnv`.
 */
import { join } from "node:path";
import type { ExecEnv, ExecOptions, ExecResult } from "./exec_env.ts";

/** Options of `LocalExecEnv.create`. */
export interface LocalEnvOptions {
  /** Files to write into the working directory first: relative path → contents (default none). */
  files?: Record<string, string>;
  /** A host folder whose contents are copied into the working directory first (default none). */
  copyFrom?: string;
}

const DEFAULT_TIMEOUT_SEC = 600;
const DEFAULT_CAP = 1 << 20;
/** Scripts longer than this go through a file: one argv string may hold at most 128 KiB on Linux (MAX_ARG_STRLEN). */
const ARGV_SCRIPT_MAX = 64 * 1024;

/** An `ExecEnv` in a fresh temp folder on the host: `<root>/work` is the working directory, `<root>/tmp` scratch. */
export class LocalExecEnv implements ExecEnv {
  /** Never set: a host subprocess cannot stop its runtime. */
  dead = false;
  #removed = false;
  /** Process groups started here; a command's background children (a server) live on until `remove()`. */
  readonly #groups = new Set<number>();

  private constructor(readonly id: string, readonly root: string) {}

  /** The working directory. */
  get workdir(): string {
    return join(this.root, "work");
  }

  /** The scratch folder private to this environment. */
  get scratch(): string {
    return join(this.root, "tmp");
  }

  /** Makes the temp folder and fills its working directory. */
  static async create(opts: LocalEnvOptions = {}): Promise<LocalExecEnv> {
    const root = await Deno.makeTempDir({ prefix: "pgs_local_" });
    const env = new LocalExecEnv(`local-${crypto.randomUUID().replaceAll("-", "")}`, root);
    for (const d of [env.workdir, env.scratch, join(root, "home")]) await Deno.mkdir(d, { recursive: true });
    if (opts.copyFrom) {
      const r = await new Deno.Command("cp", { args: ["-a", `${opts.copyFrom}/.`, env.workdir] }).output();
      if (!r.success) {
        throw new Error(`LocalExecEnv: cannot copy ${opts.copyFrom}: ${new TextDecoder().decode(r.stderr)}`);
      }
    }
    for (const [rel, data] of Object.entries(opts.files ?? {})) {
      const p = join(env.workdir, rel);
      await Deno.mkdir(join(p, ".."), { recursive: true });
      await Deno.writeTextFile(p, data);
    }
    return env;
  }

  /** Runs `script` under `/bin/sh -c` or `bash -lc` in its own session; the group is killed at the timeout. */
  async exec(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    if (this.#removed) throw new Error("LocalExecEnv: exec after remove()");
    const t0 = performance.now();
    const cap = opts.maxOutputBytes ?? DEFAULT_CAP;
    const shell = opts.shell === "sh" ? ["/bin/sh", "-c"] : ["bash", "-lc"];
    // Merging is done by the shell, as the channel does, so the interleaving is the writer's.
    const body = opts.mergeStderr ? `exec 2>&1\n${script}` : script;
    // A long script (a large file written through printf) is sourced from a file by the same shell, so `exit` and the
    // exit status mean what they mean under -c.
    const file = body.length > ARGV_SCRIPT_MAX ? join(this.root, `script-${crypto.randomUUID()}.sh`) : undefined;
    if (file) await Deno.writeTextFile(file, body);
    const child = new Deno.Command("setsid", {
      args: [...shell, file ? `. '${file}'` : body],
      cwd: opts.cwd ?? this.workdir,
      env: { HOME: join(this.root, "home"), TMPDIR: this.scratch },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#groups.add(child.pid);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, (opts.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000);
    try {
      const [out, err, status] = await Promise.all([drain(child.stdout, cap), drain(child.stderr, cap), child.status]);
      return {
        exitCode: timedOut ? 137 : status.code,
        stdout: out.kept,
        stderr: err.kept,
        stdoutBytes: out.total,
        stderrBytes: err.total,
        timedOut,
        durationMs: performance.now() - t0,
      };
    } finally {
      clearTimeout(timer);
      if (file) await Deno.remove(file).catch(() => {});
    }
  }

  /** Removes the temp folder; safe to call twice. */
  async remove(): Promise<void> {
    if (this.#removed) return;
    this.#removed = true;
    for (const pid of this.#groups) killGroup(pid);
    await Deno.remove(this.root, { recursive: true }).catch(() => {});
  }

  /** `await using env = await LocalExecEnv.create()` removes the folder at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.remove();
  }
}

/** Kills the process group led by `pid` (setsid made it a session and group leader); a gone group is fine. */
function killGroup(pid: number): void {
  try {
    Deno.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Reads a stream to its end, keeping the first `cap` bytes and counting the rest. */
async function drain(stream: ReadableStream<Uint8Array>, cap: number): Promise<{ kept: Uint8Array; total: number }> {
  const chunks: Uint8Array[] = [];
  let kept = 0, total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (kept < cap) {
      const part = chunk.subarray(0, cap - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  const outBytes = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) outBytes.set(c, (at += c.length) - c.length);
  return { kept: outBytes, total };
}
