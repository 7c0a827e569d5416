/**
 * The exec channel's killer: a root shell kept beside the channel's server in each container (KILLER_SERVER), which
 * kills a timed-out command and everything it started with builtins only. A fresh exec (`docker exec`) needs a free pid,
 * which a fork bomb may deny for as long as it runs; the resident shell needs none. Without it (it did not start), each
 * kill goes through its own exec of KILL_SCRIPT.
 */
import { ByteReader } from "../base/byte_reader.ts";
import { KILL_SCRIPT, KILLER_SERVER } from "./channel_script.ts";
import type { Box, ExecProcess } from "./runtime.ts";

/** The outcome of one kill: whether nothing is left, and the command's start time to pass on the next attempt. */
export interface KillResult {
  /** True once no process of the command is left (zombies included). */
  clean: boolean;
  /** The command's start time as the kill read it ("" or "-" when unknown). */
  start: string;
}

const enc = new TextEncoder();
const READY_MS = 15_000;
const ANSWER_MS = 30_000;

function startOf(line: string | null | undefined): string | undefined {
  return line?.match(/^PGS-KILL (\S+)$/m)?.[1];
}

/** The ready line of the resident killer. */
export const KILLER_READY = "PGS-KILLER";

/** Kills channel commands in one container. */
export class ChannelKiller {
  #proc?: ExecProcess;
  #reader?: ByteReader;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  /** True while the resident killer is the box's own main process (`Box.main`), not an exec of ours. */
  #onMain = false;

  /** A killer for `box`; it starts with `start()`. */
  constructor(readonly box: Box) {}

  /**
   * Starts the resident shell and waits (up to 15 s) until it is ready; without it, kills use one exec each. A box
   * whose main process is the killer (started with `killerMain`) needs no exec: its pipe is the killer's.
   */
  async start(): Promise<void> {
    if (this.#proc || this.#onMain) return;
    const main = this.box.main;
    if (main?.hello === KILLER_READY && !main.busy) {
      main.busy = true; // its stdin must stay open: closing it would end the box
      [this.#reader, this.#writer, this.#onMain] = [main.reader, main.writer, true];
      return;
    }
    let proc: ExecProcess;
    try {
      proc = this.box.spawn(["/bin/sh", "-c", KILLER_SERVER], { user: "0", stdin: true });
    } catch {
      return; // the engine is down: an exec fails the same way
    }
    proc.stderr.pipeTo(new WritableStream()).catch(() => {});
    const reader = new ByteReader(proc.stdout.getReader());
    if (await reader.readLineWithin(READY_MS) !== KILLER_READY) return this.#kill(proc);
    proc.status.then(() => this.#proc === proc && this.#forget()).catch(() => {});
    [this.#proc, this.#reader, this.#writer] = [proc, reader, proc.stdin.getWriter()];
  }

  /** Kills command `pid` and every process it started, once; `start` is what an earlier attempt returned. */
  async kill(pid: string, start = ""): Promise<KillResult> {
    const resident = await this.#ask(pid, start);
    if (resident) return resident;
    const argv = ["/bin/sh", "-c", KILL_SCRIPT, "kill", pid];
    if (start) argv.push(start);
    const r = await this.box.exec(argv, { user: "0", timeoutMs: ANSWER_MS }).catch(() => null);
    return { clean: r?.code === 0, start: (r && startOf(new TextDecoder().decode(r.stdout))) ?? start };
  }

  /** One kill through the resident shell; null when it is not there or did not answer in time (it is then dropped). */
  async #ask(pid: string, start: string): Promise<KillResult | null> {
    const [reader, writer] = [this.#reader, this.#writer];
    if (!reader || !writer) return null;
    const release = this.#onMain ? this.box.main?.hold() : undefined;
    try {
      await writer.write(enc.encode(`${pid} ${start || "-"}\n`));
      const first = await reader.readLineWithin(ANSWER_MS);
      const rc = (await reader.readLineWithin(ANSWER_MS))?.match(/^PGS-KILLED (\d+)$/)?.[1];
      if (rc !== undefined) return { clean: rc === "0", start: startOf(first) ?? start };
    } catch {
      /* dropped below */
    } finally {
      release?.();
    }
    if (this.#proc) this.#kill(this.#proc);
    else this.#forget(); // the box's main process did not answer: kills go through execs from now on
    return null;
  }

  #forget(): void {
    [this.#proc, this.#reader, this.#writer] = [undefined, undefined, undefined];
  }

  #kill(proc: ExecProcess): void {
    try {
      proc.kill("SIGKILL");
    } catch { /* gone */ }
    if (proc === this.#proc) this.#forget();
  }

  /** Ends the resident shell (killed if it has not gone within 2 s). */
  async close(): Promise<void> {
    const [proc, writer] = [this.#proc, this.#writer];
    this.#forget();
    // The box's own main process stays: it ends with the box.
    if (this.#onMain) return;
    if (!proc) return;
    await writer?.close().catch(() => {});
    const t = setTimeout(() => this.#kill(proc), 2000);
    await proc.status.catch(() => {});
    clearTimeout(t);
  }
}
