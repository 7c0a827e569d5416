/**
 * Slurm allocations and long-lived job steps (issue #42), through the Slurm CLIs (salloc, srun, squeue, sinfo, scontrol,
 * scancel) driven with argv arrays. Every call is bounded, and fails with one line naming the command and Slurm's last
 * words. Everything started is recorded, so that an exit handler can end it all synchronously with `stopAllSync`; the
 * library installs no signal handler.
 */
import { SlurmStep } from "./slurm_step.ts";
import {
  onPath,
  shown,
  SLURM_CALL_MS,
  slurmAvailable,
  slurmCall,
  slurmCallSync,
  SlurmError,
  type SlurmResult,
} from "./slurm_call.ts";
import {
  expandHostlist,
  lastWords,
  nodeDead,
  parseNodeStates,
  parseSallocJobId,
  parseSteps,
} from "./slurm_hostlist.ts";

export { SLURM_CALL_MS, slurmAvailable, slurmCall, slurmCallSync, SlurmError, type SlurmResult, SlurmStep };

/** What `SlurmAllocation.request` asks salloc for. */
export interface SlurmRequest {
  /** Number of nodes (`-N`). */
  nodes: number;
  /** Partition (`-p`). */
  partition?: string;
  /** Time limit, as salloc takes it (`-t`: minutes, `H:MM:SS`, `D-H`). */
  time?: string;
  /** The job's name (default "pgs"). */
  jobName?: string;
  /** How long to wait for the allocation to be granted (default 10 min); the pending job is cancelled after it. */
  waitMs?: number;
  /** Aborts the wait; the pending job is cancelled. */
  signal?: AbortSignal;
}

/** Pending reasons (`squeue -o %r`) that no wait clears: the request can never be granted as asked. */
const NEVER_GRANTED =
  /^(PartitionConfig|PartitionNodeLimit|PartitionTimeLimit|BadConstraints|AccountNotAllowed|QOS\w*Limit|InvalidAccount|InvalidQOS)/;
/** How often a pending request's reason is read. */
const POLL_MS = 2_000;

/** Every allocation with live steps or that pgs owns, for `stopAllSync`. */
const live = new Set<SlurmAllocation>();
/** salloc processes not yet done, with their job id once printed (pending or granted). */
const waiting = new Set<{ child: Deno.ChildProcess; jobId?: string }>();

/** A Slurm job whose nodes run pgs's steps: one pgs asked for (released by pgs) or one it runs inside (never released). */
export class SlurmAllocation {
  #steps = new Set<SlurmStep>();
  #released = false;

  private constructor(
    /** The job id. */
    readonly jobId: string,
    /** True when pgs asked for this job (and so cancels it on release). */
    readonly owned: boolean,
  ) {}

  /** The job pgs runs inside (`jobId`, default SLURM_JOB_ID): release() stops pgs's steps and never cancels it. */
  static attach(jobId: string | undefined = Deno.env.get("SLURM_JOB_ID")): SlurmAllocation {
    if (!jobId || !/^\d+$/.test(jobId)) {
      throw new SlurmError("attach", `SLURM_JOB_ID is ${jobId ? `"${jobId}"` : "unset"}`);
    }
    return new SlurmAllocation(jobId, false);
  }

  /** A new job from `salloc -N n --no-kill --no-shell`, waited for up to `waitMs`; cancelled by release(). */
  static async request(req: SlurmRequest): Promise<SlurmAllocation> {
    const args = ["-N", String(req.nodes), "--no-kill", "--no-shell", `--job-name=${req.jobName ?? "pgs"}`];
    if (req.partition) args.push("-p", req.partition);
    if (req.time) args.push("-t", req.time);
    const cmd = shown("salloc", args);
    const waitMs = req.waitMs ?? 600_000;
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command("salloc", { args, stdin: "null", stdout: "piped", stderr: "piped" }).spawn();
    } catch (e) {
      throw new SlurmError(cmd, e instanceof Deno.errors.NotFound ? "salloc not found on PATH" : String(e));
    }
    const entry: { child: Deno.ChildProcess; jobId?: string } = { child };
    waiting.add(entry);
    let stderr = "";
    const reading = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        stderr += chunk;
        const ids = parseSallocJobId(stderr);
        entry.jobId ??= ids.pending ?? ids.granted;
      }
    })();
    const stdout = child.stdout.pipeTo(new WritableStream());
    let why: string | undefined;
    const giveUp = (reason: string) => {
      why ??= reason;
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
    };
    let reason = "";
    const timer = setTimeout(() => giveUp(`not granted within ${Math.round(waitMs / 1000)} s`), waitMs);
    const poll = setInterval(async () => { // a pending job whose reason cannot clear by itself fails now
      if (!entry.jobId || why) return;
      const r = await slurmCall("squeue", ["-j", entry.jobId, "-h", "-o", "%r"], { timeoutMs: 10_000, anyCode: true })
        .catch(() => undefined);
      reason = r?.stdout.trim() || reason;
      if (NEVER_GRANTED.test(reason)) giveUp("cannot be granted as asked");
    }, POLL_MS);
    const onAbort = () => giveUp("aborted while waiting");
    req.signal?.addEventListener("abort", onAbort);
    if (req.signal?.aborted) onAbort();
    try {
      const status = await child.status;
      await Promise.all([reading, stdout]);
      const ids = parseSallocJobId(stderr);
      if (!why && status.code === 0 && ids.granted) {
        const a = new SlurmAllocation(ids.granted, true);
        live.add(a);
        return a;
      }
      const id = ids.granted ?? ids.pending;
      if (id) await slurmCall("scancel", [id], { timeoutMs: 10_000, anyCode: true }).catch(() => undefined);
      throw new SlurmError(
        cmd,
        why
          ? `${why}${id ? ` (job ${id}${reason ? ` pending: ${reason};` : ""} cancelled)` : ""}`
          : `exited ${status.code}: ${lastWords(stderr) || "no output"}`,
      );
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      req.signal?.removeEventListener("abort", onAbort);
      waiting.delete(entry);
    }
  }

  /** True once release() ran. */
  get released(): boolean {
    return this.#released;
  }

  /** The steps started here that have not exited. */
  get steps(): SlurmStep[] {
    return [...this.#steps];
  }

  /** The job's node list now, compact as Slurm prints it (`squeue -j J -h -o %N`: "n[1-2]"). */
  async nodeList(): Promise<string> {
    const r = await slurmCall("squeue", ["-j", this.jobId, "-h", "-o", "%N"], { timeoutMs: 10_000 });
    const list = r.stdout.trim().split("\n")[0]?.trim() ?? "";
    if (list === "") throw new SlurmError(`squeue -j ${this.jobId}`, `job ${this.jobId} is not running (no nodes)`);
    return list;
  }

  /** The job's nodes now, expanded by `scontrol show hostnames` (or here, where scontrol is missing). */
  async nodes(list?: string): Promise<string[]> {
    list ??= await this.nodeList();
    if (!/[[,]/.test(list)) return [list];
    if (!onPath("scontrol")) return expandHostlist(list);
    const h = await slurmCall("scontrol", ["show", "hostnames", list], { timeoutMs: 10_000 });
    return h.stdout.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  }

  /** The job's nodes that still respond (`sinfo -N`: not `*` (not responding), not down or failed). */
  async aliveNodes(): Promise<string[]> {
    const list = await this.nodeList();
    const nodes = await this.nodes(list);
    const r = await slurmCall("sinfo", ["-N", "-h", "-n", list, "-o", "%N %t"], { timeoutMs: 10_000 });
    const states = parseNodeStates(r.stdout);
    return nodes.filter((n) => states.has(n) && !nodeDead(states.get(n)!));
  }

  /** The job's steps now (`squeue -s -j J`): step ids with their node lists. */
  async listSteps(): Promise<{ stepId: string; nodes: string }[]> {
    const r = await slurmCall("squeue", ["-s", "-j", this.jobId, "-h", "-o", "%i %N"], { timeoutMs: 10_000 });
    return parseSteps(r.stdout);
  }

  /** Starts `argv` as one step on `node` (`srun --jobid=J -N1 -n1 -w NODE --overlap ...`), with `env` added. */
  startStep(node: string, argv: string[], env: Record<string, string> = {}): SlurmStep {
    if (this.#released) throw new SlurmError(`srun -w ${node}`, `job ${this.jobId} was released`);
    const step = new SlurmStep(this.jobId, node, argv, env);
    this.#steps.add(step);
    live.add(this);
    step.exited.finally(() => this.#steps.delete(step));
    return step;
  }

  /** Stops every step (SIGTERM, then after `graceMs` SIGKILL) and, if pgs asked for the job, cancels it; idempotent. */
  async release(graceMs = 5_000): Promise<void> {
    this.#released = true;
    await Promise.all([...this.#steps].map((s) => s.stop(graceMs)));
    if (this.owned && live.has(this)) {
      const r = await slurmCall("scancel", [this.jobId], { timeoutMs: 10_000, anyCode: true });
      if (r.code !== 0 && !/Invalid job id|already completing or completed/i.test(r.stderr)) {
        throw new SlurmError(`scancel ${this.jobId}`, `exited ${r.code}: ${lastWords(r.stderr) || "no output"}`);
      }
    }
    live.delete(this);
  }

  /** Synchronous release for an exit handler: SIGTERM to every step, SIGKILL after `graceMs`, scancel J if owned. */
  releaseSync(graceMs = 1_000): void {
    this.#released = true;
    const steps = [...this.#steps];
    for (const s of steps) s.signalSync("TERM");
    if (steps.length && graceMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, graceMs);
    for (const s of steps) s.signalSync("KILL");
    if (this.owned) slurmCallSync("scancel", [this.jobId]);
    live.delete(this);
  }
}

/** Ends everything this process started under Slurm, synchronously (for an exit handler): steps, owned jobs, pending salloc. */
export function stopAllSync(graceMs = 1_000): void {
  for (const w of [...waiting]) {
    try {
      w.child.kill("SIGKILL");
    } catch { /* gone */ }
    if (w.jobId) slurmCallSync("scancel", [w.jobId]);
  }
  for (const a of [...live]) a.releaseSync(graceMs);
}
