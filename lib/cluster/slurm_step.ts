/**
 * One long-lived Slurm job step on one node (a `pgs worker`): its srun child, its ready line, its step id, and how it
 * ends (`scancel -s TERM J.S`, then `scancel J.S` and a kill of srun). Made by `SlurmAllocation.startStep`.
 */
import { parseStepLaunch, srunVerbose } from "./slurm_hostlist.ts";
import { slurmCall, slurmCallSync, SlurmError } from "./slurm_call.ts";

const STDOUT_KEPT = 200;
const STDERR_KEPT = 40;

/** How a step's srun ended. */
export interface StepExit {
  /** srun's exit code (the task's, or 128+signal). */
  code: number;
  /** The signal that ended srun itself, if one did. */
  signal: Deno.Signal | null;
}

/** A step running `argv` on `node` of job `jobId`, through a child `srun` (in its own session: Ctrl-C does not reach it). */
export class SlurmStep {
  /** The srun process. */
  readonly child: Deno.ChildProcess;
  /** Resolves when srun has exited (and its output is read). */
  readonly exited: Promise<StepExit>;
  #stdout: string[] = [];
  #stderr: string[] = [];
  #stepId?: string;
  #exit?: StepExit;
  #wake = new Set<() => void>();
  #stopping?: Promise<StepExit>;

  /** Spawns `srun -v --jobid=J -N1 -n1 -w NODE --overlap --kill-on-bad-exit=0 --export=ALL ARGV...` with `env` added. */
  constructor(readonly jobId: string, readonly node: string, argv: string[], env: Record<string, string> = {}) {
    const args = [
      "-v",
      `--jobid=${jobId}`,
      "-N1",
      "-n1",
      "-w",
      node,
      "--overlap",
      "--kill-on-bad-exit=0",
      "--export=ALL",
      `--job-name=pgs-${node}`,
      ...argv,
    ];
    const cmd = new Deno.Command("srun", {
      args,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    });
    let child: Deno.ChildProcess;
    try {
      child = cmd.spawn();
    } catch (e) {
      throw new SlurmError(`srun -w ${node}`, e instanceof Deno.errors.NotFound ? "srun not found on PATH" : String(e));
    }
    this.child = child;
    const out = this.#lines(this.child.stdout, (l) => this.#keep(this.#stdout, l, STDOUT_KEPT));
    const err = this.#lines(this.child.stderr, (l) => {
      this.#stepId ??= parseStepLaunch(l);
      if (!srunVerbose(l)) this.#keep(this.#stderr, l, STDERR_KEPT);
    });
    this.exited = (async () => {
      const s = await child.status;
      await Promise.all([out, err]).catch(() => undefined); // a broken pipe ends the reading, not the step
      this.#exit = { code: s.code, signal: s.signal };
      this.#notify();
      return this.#exit;
    })();
  }

  /** The step id ("J.S") once srun has printed it, else undefined. */
  get stepId(): string | undefined {
    return this.#stepId;
  }

  /** srun's exit once it has exited, else undefined. */
  get exit(): StepExit | undefined {
    return this.#exit;
  }

  /** The last lines of the step's stderr (srun's own progress lines left out), joined with " | ". */
  stderrTail(lines = 3): string {
    return this.#stderr.slice(-lines).join(" | ");
  }

  /** The step id ("J.S"), waiting up to `timeoutMs` for srun to print it; rejects if srun exits first. */
  waitStepId(timeoutMs = 30_000): Promise<string> {
    return this.#until(() => this.#stepId, timeoutMs, "step id");
  }

  /** The first stdout line starting with `prefix`, waiting up to `timeoutMs`; rejects with the stderr tail if it exits first. */
  readyLine(prefix: string, timeoutMs = 60_000): Promise<string> {
    return this.#until(() => this.#stdout.find((l) => l.startsWith(prefix)), timeoutMs, `line starting "${prefix}"`);
  }

  /** Ends the step: `scancel -s TERM J.S`, after `graceMs` `scancel J.S` and SIGKILL to srun; idempotent. */
  stop(graceMs = 5_000): Promise<StepExit> {
    this.#stopping ??= (async () => {
      if (this.#exit) return this.#exit;
      const id = this.#stepId;
      if (id) await this.#scancel(["-s", "TERM", id]);
      else this.#kill("SIGTERM"); // no step yet: srun ends the task when it is terminated
      if (await this.#exitedWithin(graceMs)) return this.#exit!;
      if (this.#stepId) await this.#scancel([this.#stepId]);
      if (await this.#exitedWithin(2_000)) return this.#exit!;
      this.#kill("SIGKILL");
      return await this.exited;
    })();
    return this.#stopping;
  }

  /** Synchronous signal for an exit handler: TERM is `scancel -s TERM J.S`, KILL is `scancel J.S` and SIGKILL to srun. */
  signalSync(sig: "TERM" | "KILL"): void {
    if (this.#exit) return;
    if (sig === "TERM") {
      if (this.#stepId) slurmCallSync("scancel", ["-s", "TERM", this.#stepId]);
      else this.#kill("SIGTERM");
      return;
    }
    if (this.#stepId) slurmCallSync("scancel", [this.#stepId]);
    this.#kill("SIGKILL");
  }

  /** A bounded scancel whose failure is no error here: a step already gone says "Invalid job id specified". */
  async #scancel(args: string[]): Promise<void> {
    await slurmCall("scancel", args, { timeoutMs: 10_000, anyCode: true }).catch(() => undefined);
  }

  #kill(sig: Deno.Signal): void {
    try {
      this.child.kill(sig);
    } catch { /* already gone */ }
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((r) => timer = setTimeout(() => r(false), ms)),
    ]);
    clearTimeout(timer);
    return done;
  }

  #until<T>(get: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const v = get();
        if (v !== undefined) return done(() => resolve(v));
        if (this.#exit) {
          const how = this.#exit.signal ? `signal ${this.#exit.signal}` : `code ${this.#exit.code}`;
          const why = this.stderrTail() || "no stderr";
          done(() =>
            reject(new SlurmError(`srun -w ${this.node}`, `exited (${how}) before printing its ${what}: ${why}`))
          );
        }
      };
      const timer = setTimeout(() => {
        const why = this.stderrTail() || "no stderr";
        done(() => reject(new SlurmError(`srun -w ${this.node}`, `no ${what} within ${timeoutMs / 1000} s: ${why}`)));
      }, timeoutMs);
      const done = (fin: () => void) => {
        clearTimeout(timer);
        this.#wake.delete(check);
        fin();
      };
      this.#wake.add(check);
      check();
    });
  }

  #notify(): void {
    for (const w of [...this.#wake]) w();
  }

  #keep(buf: string[], line: string, max: number): void {
    buf.push(line);
    if (buf.length > max) buf.splice(0, buf.length - max);
    this.#notify();
  }

  async #lines(stream: ReadableStream<Uint8Array>, onLine: (l: string) => void): Promise<void> {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const p of parts) onLine(p.replace(/\r$/, ""));
    }
    if (rest !== "") onLine(rest);
  }
}
