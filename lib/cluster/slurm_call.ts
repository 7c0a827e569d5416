/**
 * The Slurm CLIs called with argv arrays, every call bounded: `slurmCall` (a `SlurmError` in one line naming the command
 * and Slurm's last words), `slurmCallSync` for exit handlers, and `slurmAvailable`, whether Slurm answers here.
 */
import { InfraError } from "../base/errors.ts";
import { lastWords } from "./slurm_hostlist.ts";

/** A Slurm CLI failed, gave no answer within its bound, or is missing: one line naming the command. */
export class SlurmError extends InfraError {
  /** Always "SlurmError". */
  override name = "SlurmError";
  /** `command` (as typed) failed; `detail` says how, with Slurm's last words. */
  constructor(readonly command: string, readonly detail: string) {
    super(`${command}: ${detail}`, "slurm");
  }
}

/** What a finished Slurm CLI call printed. */
export interface SlurmResult {
  /** Exit code (a kill on timeout throws instead). */
  code: number;
  /** Standard output, decoded. */
  stdout: string;
  /** Standard error, decoded. */
  stderr: string;
}

/** The bound of a call that names none. */
export const SLURM_CALL_MS = 30_000;
const decoder = new TextDecoder();
/** `cmd args` as a user would type it, for messages. */
export const shown = (cmd: string, args: string[]): string =>
  [cmd, ...args].map((a) => /[\s'"%*]/.test(a) ? `'${a}'` : a).join(" ");

/** Runs `cmd args` bounded by `timeoutMs`; throws SlurmError when it is missing, times out, or (unless `anyCode`) fails. */
export async function slurmCall(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; anyCode?: boolean; env?: Record<string, string> } = {},
): Promise<SlurmResult> {
  const timeoutMs = opts.timeoutMs ?? SLURM_CALL_MS;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd, { args, env: opts.env, stdin: "null", stdout: "piped", stderr: "piped" }).spawn();
  } catch (e) {
    throw new SlurmError(shown(cmd, args), e instanceof Deno.errors.NotFound ? `${cmd} not found on PATH` : String(e));
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  const out = await child.output().finally(() => clearTimeout(timer));
  const r = { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
  if (timedOut) throw new SlurmError(shown(cmd, args), `no answer within ${+(timeoutMs / 1000).toFixed(1)} s`);
  if (r.code !== 0 && !opts.anyCode) {
    throw new SlurmError(shown(cmd, args), `exited ${r.code}: ${lastWords(r.stderr + "\n" + r.stdout) || "no output"}`);
  }
  return r;
}

/** `cmd args` run synchronously under `timeout -s KILL` (for exit handlers); never throws. */
export function slurmCallSync(cmd: string, args: string[], timeoutSec = 10): void {
  try {
    new Deno.Command("timeout", {
      args: ["-s", "KILL", String(timeoutSec), cmd, ...args],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
  } catch {
    try {
      new Deno.Command(cmd, { args, stdin: "null", stdout: "null", stderr: "null" }).outputSync();
    } catch { /* nothing more to do in an exit handler */ }
  }
}

/** Whether `name` is an executable file in a folder of `path` (default PATH). */
export function onPath(name: string, path = Deno.env.get("PATH") ?? ""): boolean {
  for (const dir of path.split(":")) {
    try {
      const st = Deno.statSync(`${dir || "."}/${name}`);
      if (st.isFile && ((st.mode ?? 0o111) & 0o111)) return true;
    } catch { /* not here */ }
  }
  return false;
}

/**
 * Why Slurm cannot be used here (no srun/sinfo, no configuration, no controller answering sinfo in 10 s), or undefined;
 * `env` (default the process's) gives PATH and SLURM_CONF.
 */
export async function slurmAvailable(env: Record<string, string> = Deno.env.toObject()): Promise<string | undefined> {
  for (const cli of ["srun", "sinfo", "salloc", "squeue", "scancel"]) {
    if (!onPath(cli, env.PATH ?? "")) return `no Slurm: ${cli} is not on PATH`;
  }
  const conf = env.SLURM_CONF;
  const exists = (p: string) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  };
  if (conf && !exists(conf)) return `no Slurm: SLURM_CONF=${conf} does not exist`;
  if (!conf && !exists("/etc/slurm/slurm.conf") && !exists("/etc/slurm-llnl/slurm.conf")) {
    return "no Slurm: SLURM_CONF is unset and there is no /etc/slurm/slurm.conf";
  }
  try {
    await slurmCall("sinfo", ["-h", "-o", "%P"], { timeoutMs: 10_000, env });
  } catch (e) {
    return `no Slurm controller answers: ${(e as Error).message}`;
  }
  return undefined;
}
