/** The JSONL recorder: one line per request body, appended in arrival order, never interleaved. */

const NL = 0x0a;
const CR = 0x0d;

/** The JSONL line (without its newline) recording a body: the raw bytes when they are one line of a JSON object, else
 * the body's UTF-8 text as a JSON string. */
export function recordLine(body: Uint8Array): Uint8Array {
  if (body.length && !body.includes(NL) && !body.includes(CR) && isJsonObject(body)) return body;
  return new TextEncoder().encode(JSON.stringify(new TextDecoder().decode(body)));
}

function isJsonObject(body: Uint8Array): boolean {
  try {
    const v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Where lines go: a file opened for appending (or any writer, in tests). */
export interface LineSink {
  write(p: Uint8Array): Promise<number>;
  close(): void;
}

/** Appends recorded bodies to a JSONL file; each line is written whole before the next starts. */
export class Recorder {
  #sink: LineSink;
  #tail: Promise<void> = Promise.resolve();
  #count = 0;

  /** Records through `sink`, one line per request. */
  constructor(sink: LineSink) {
    this.#sink = sink;
  }

  /** Opens `path` for appending (creating it). */
  static async open(path: string): Promise<Recorder> {
    return new Recorder(await Deno.open(path, { append: true, create: true, write: true }));
  }

  /** How many bodies have been recorded. */
  get count(): number {
    return this.#count;
  }

  /** Records one body; resolves once its line is written. Calls are serialised in call order. */
  append(body: Uint8Array): Promise<void> {
    const rec = recordLine(body);
    const line = new Uint8Array(rec.length + 1);
    line.set(rec);
    line[rec.length] = NL;
    const done = this.#tail.then(() => this.#writeAll(line));
    this.#tail = done.catch(() => {});
    return done;
  }

  async #writeAll(line: Uint8Array): Promise<void> {
    for (let off = 0; off < line.length;) off += await this.#sink.write(line.subarray(off));
    this.#count++;
  }

  /** Waits for pending lines, then closes the file. */
  async close(): Promise<void> {
    await this.#tail;
    this.#sink.close();
  }
}
