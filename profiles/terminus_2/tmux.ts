/**
 * A persistent tmux pane in the episode container, driven by keystrokes, with deterministic waits: after keys are
 * sent, the pane is polled until its shell has no child process and the screen is stable, for at most a duration.
 */
import { shQuote, text } from "../../lib/runtime/channel.ts";
import type { ExecEnv } from "../../lib/runtime/exec_env.ts";
import { OpError } from "../../lib/harness/tools/ops.ts";

/** Pane options. */
export interface TmuxOptions {
  /** Session name (default "pgs"). */
  session?: string;
  /** Columns × rows (default 160 × 40, as terminus-2). */
  width?: number;
  height?: number;
  /** The pane's command (default `bash --login`). */
  command?: string;
}

/** What a wait saw. */
export interface WaitResult {
  /** True when the pane went idle and stable before the deadline. */
  settled: boolean;
  waitedMs: number;
}

const POLL_MS = 100;

/** A tmux pane in a container. */
export class Tmux {
  private constructor(readonly box: ExecEnv, readonly session: string) {}

  /** Starts the pane (history kept); raises `unsupported` when the image has no tmux. */
  static async start(box: ExecEnv, opts: TmuxOptions = {}): Promise<Tmux> {
    const s = opts.session ?? "pgs";
    const r = await box.exec(
      `command -v tmux >/dev/null || exit 127\n` +
        `export TERM=xterm-256color SHELL=/bin/bash\n` +
        `tmux new-session -x ${opts.width ?? 160} -y ${opts.height ?? 40} -d -s ${shQuote(s)} ` +
        `${shQuote(opts.command ?? "bash --login")} && tmux set-option -g history-limit 10000000 >/dev/null`,
      { shell: "sh", timeoutSec: 30 },
    );
    if (r.exitCode === 127) throw new OpError("unsupported", { op: "tmux", needs: "tmux" });
    if (r.exitCode !== 0) throw new OpError("failed", { op: "tmux", message: text(r.stderr).trim() });
    const t = new Tmux(box, s);
    await t.wait(5);
    return t;
  }

  /** Sends keys as tmux `send-keys` takes them: text is typed, names like `Enter` or `C-c` are keys. */
  async keys(keys: string[]): Promise<void> {
    const args = keys.map(shQuote).join(" ");
    const r = await this.box.exec(`tmux send-keys -t ${shQuote(this.session)} -- ${args}`, {
      shell: "sh",
      timeoutSec: 30,
    });
    if (r.exitCode !== 0) throw new OpError("failed", { op: "keys", message: text(r.stderr).trim() });
  }

  /** Types text literally (newlines included), without key-name interpretation. */
  async type(literal: string): Promise<void> {
    const r = await this.box.exec(`tmux send-keys -t ${shQuote(this.session)} -l -- ${shQuote(literal)}`, {
      shell: "sh",
      timeoutSec: 30,
    });
    if (r.exitCode !== 0) throw new OpError("failed", { op: "type", message: text(r.stderr).trim() });
  }

  async #probe(): Promise<{ busy: boolean; screen: string }> {
    const s = shQuote(this.session);
    const r = await this.box.exec(
      `p=$(tmux display -p -t ${s} '#{pane_pid}') || exit 3\n` +
        `k=$(cat /proc/$p/task/*/children 2>/dev/null | tr -d ' \\n')\n` +
        `[ -n "$k" ] && echo busy || echo idle\ntmux capture-pane -p -t ${s}`,
      { shell: "sh", timeoutSec: 30 },
    );
    if (r.exitCode !== 0) throw new OpError("failed", { op: "wait", message: text(r.stderr).trim() });
    const out = text(r.stdout);
    const nl = out.indexOf("\n");
    return { busy: out.slice(0, nl) === "busy", screen: out.slice(nl + 1) };
  }

  /** Polls until the pane's shell has no child and the screen is unchanged over one poll, or `maxSec` passes. */
  async wait(maxSec: number): Promise<WaitResult> {
    const t0 = performance.now();
    let last: string | undefined;
    for (;;) {
      const p = await this.#probe();
      if (!p.busy && p.screen === last) return { settled: true, waitedMs: performance.now() - t0 };
      last = p.screen;
      if (performance.now() - t0 >= maxSec * 1000) return { settled: false, waitedMs: performance.now() - t0 };
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** The visible screen, or the whole scrollback with `history`. */
  async capture(history = false): Promise<string> {
    const r = await this.box.exec(`tmux capture-pane -p ${history ? "-S - " : ""}-t ${shQuote(this.session)}`, {
      shell: "sh",
      timeoutSec: 30,
    });
    if (r.exitCode !== 0) throw new OpError("failed", { op: "capture", message: text(r.stderr).trim() });
    return text(r.stdout);
  }
}
