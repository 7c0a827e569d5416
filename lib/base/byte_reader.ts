/** Buffered reads of lines, exact byte counts and mark-delimited parts from a byte stream (the exec channel's framing). */

/** Reads `\n`-terminated lines, exact byte counts and mark-delimited parts from a stream, binary-safe. */
export class ByteReader {
  #buf = new Uint8Array(0);
  #done = false;
  /** A reader over `reader`'s chunks. */
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async #fill(): Promise<boolean> {
    if (this.#done) return false;
    const { value, done } = await this.reader.read();
    if (done) {
      this.#done = true;
      return false;
    }
    const next = new Uint8Array(this.#buf.length + value.length);
    next.set(this.#buf);
    next.set(value, this.#buf.length);
    this.#buf = next;
    return true;
  }

  /** The next line without its newline, or null at the end of the stream. */
  async readLine(): Promise<string | null> {
    let from = 0;
    for (;;) {
      const nl = this.#buf.indexOf(10, from);
      if (nl >= 0) {
        const line = new TextDecoder().decode(this.#buf.subarray(0, nl));
        this.#buf = this.#buf.slice(nl + 1);
        return line;
      }
      from = this.#buf.length;
      if (!await this.#fill()) return null;
    }
  }

  /** The next line, or null at its end or when none comes within `ms` (the reader is then mid-line: drop it). */
  async readLineWithin(ms: number): Promise<string | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        this.readLine(),
        new Promise<null>((r) => timer = setTimeout(() => r(null), ms)),
      ]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Exactly `n` bytes, or null if the stream ends first. */
  async readExact(n: number): Promise<Uint8Array | null> {
    while (this.#buf.length < n) {
      if (!await this.#fill()) return null;
    }
    const out = this.#buf.slice(0, n);
    this.#buf = this.#buf.slice(n);
    return out;
  }

  /** Reads and drops everything up to the end of the stream (so that its writer never blocks on a full pipe). */
  async drain(): Promise<void> {
    this.#buf = new Uint8Array(0);
    try {
      while (!(await this.reader.read()).done) { /* dropped */ }
    } catch { /* ended */ }
    this.#done = true;
  }

  /** The bytes before the next occurrence of `mark` (which is consumed), or null if the stream ends first. */
  async readUntil(mark: Uint8Array): Promise<Uint8Array | null> {
    let from = 0;
    for (;;) {
      const at = indexOfBytes(this.#buf, mark, from);
      if (at >= 0) {
        const out = this.#buf.slice(0, at);
        this.#buf = this.#buf.slice(at + mark.length);
        return out;
      }
      // A mark may straddle the next chunk: search again from just before the end.
      from = Math.max(0, this.#buf.length - mark.length + 1);
      if (!await this.#fill()) return null;
    }
  }
}

/** The index of the first `needle` in `hay` at or after `from`, or -1. */
export function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  if (needle.length === 0) return from <= hay.length ? from : -1;
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(needle[0], from); i >= 0 && i <= last; i = hay.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
