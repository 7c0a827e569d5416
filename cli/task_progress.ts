/**
 * The live progress of a command over a task set (`harbor check`, `harbor audit`): `[done/total] N <what>` on a
 * terminal, each task's line as it ends (on stderr, unless JSON is asked for and stderr is not a terminal).
 */

/** A reward as a task line shows it: three decimals at most, `-` when there is none. */
export function rewardText(r: number | null | undefined): string {
  return r === null || r === undefined ? "-" : String(Math.round(r * 1000) / 1000);
}

/** Counts tasks as they end and prints their lines; `finish()` clears the progress line. */
export class TaskProgress {
  /** Tasks ended. */
  done = 0;
  /** Tasks ended badly (invalid, hackable, ...). */
  bad = 0;
  readonly #tty = Deno.stderr.isTerminal();
  readonly #enc = new TextEncoder();

  /** A progress over `total` tasks, the bad ones counted as `what` (e.g. "invalid"); `quiet`: no per-task lines. */
  constructor(readonly total: number, readonly what: string, readonly quiet = false) {
    this.#draw();
  }

  /** One task ended: `bad` says how, `line` is what to print for it. */
  ended(bad: boolean, line: string): void {
    this.done++;
    if (bad) this.bad++;
    this.#clear();
    if (!this.quiet || this.#tty) console.error(line);
    this.#draw();
  }

  /** Clears the progress line. */
  finish(): void {
    this.#clear();
  }

  #draw(): void {
    if (this.#tty) {
      Deno.stderr.writeSync(this.#enc.encode(`\r\x1b[K[${this.done}/${this.total}] ${this.bad} ${this.what}`));
    }
  }

  #clear(): void {
    if (this.#tty) Deno.stderr.writeSync(this.#enc.encode("\r\x1b[K"));
  }
}
