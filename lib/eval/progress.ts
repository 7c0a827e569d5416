/**
 * Eval progress on stderr: a bar redrawn in place on a terminal (done/total, pass rate so far, episodes per minute,
 * errors), one line per finished episode otherwise.
 */
import { DEFAULT_PASS_THRESHOLD } from "./records/summary.ts";
import type { Trajectory } from "./records/trajectory.ts";

/** Progress reporting for a run of `total` episodes (`already` of them done by an earlier run). */
export class Progress {
  #done = 0;
  #passes = 0;
  #scored = 0;
  #errors = 0;
  #t0 = performance.now();
  readonly #tty: boolean;
  #ticker?: ReturnType<typeof setInterval>;

  /** `total` episodes, `already` done before; `write` and `tty` default to stderr and whether it is a terminal. */
  constructor(
    readonly total: number,
    readonly already = 0,
    readonly passThreshold = DEFAULT_PASS_THRESHOLD,
    private write: (s: string) => void = (s) => Deno.stderr.writeSync(new TextEncoder().encode(s)),
    tty?: boolean,
  ) {
    this.#tty = tty ?? Deno.stderr.isTerminal();
    if (this.#tty) {
      this.#draw();
      // Redrawn every second too, so the rate stays true while long episodes run.
      const ticker = setInterval(() => this.#draw(), 1000);
      Deno.unrefTimer(ticker);
      this.#ticker = ticker;
    }
  }

  /** Counts a finished episode and shows it. */
  episode(t: Trajectory): void {
    this.#done++;
    if (t.reward === null) this.#errors++;
    else {
      this.#scored++;
      if (t.reward >= this.passThreshold) this.#passes++;
    }
    if (this.#tty) this.#draw();
    else this.write(this.line(t) + "\n");
  }

  /** The line shown for an episode when not on a terminal. */
  line(t: Trajectory): string {
    const n = `${this.already + this.#done}/${this.total}`;
    const secs = `${(t.timings.total_ms / 1000).toFixed(1)}s`;
    if (t.reward === null) {
      // An infrastructure error has no reward and no exit of its own to show: its stage and its first line instead.
      const err = t.error ? `  ${t.error.split("\n")[0].slice(0, 160)}` : "";
      return `${n} ${t.task} ${t.profile} #${t.sample} infra_error${t.infra_stage ? ` [${t.infra_stage}]` : ""} ` +
        `${secs}${err}`;
    }
    const r = `reward=${Math.round(t.reward * 1000) / 1000}`;
    return `${n} ${t.task} ${t.profile} #${t.sample} ${r} ${t.exit_status} ${t.turns} turns ${secs}`;
  }

  /** Ends the bar's line. */
  close(): void {
    clearInterval(this.#ticker);
    if (this.#tty) this.write("\n");
  }

  #draw(): void {
    const done = this.already + this.#done;
    const width = 30;
    const fill = this.total ? Math.round((done / this.total) * width) : width;
    const min = (performance.now() - this.#t0) / 60_000;
    const rate = min > 0 ? (this.#done / min).toFixed(1) : "0";
    const pass = this.#scored ? `${((this.#passes / this.#scored) * 100).toFixed(0)}%` : "–";
    this.write(
      `\r[${"#".repeat(fill)}${
        ".".repeat(width - fill)
      }] ${done}/${this.total}  pass ${pass}  ${rate} ep/min  errors ${this.#errors}\x1b[K`,
    );
  }
}
