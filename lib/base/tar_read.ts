/**
 * A small streaming tar reader for what `docker cp CONTAINER:PATH -` writes (ustar with pax or GNU long names): each
 * member's header, and its content only when the caller wants it, so a large tree streams through in bounded memory.
 */

/** One member of an archive. */
export interface TarMember {
  /** Its path in the archive, `/`-separated, without a trailing slash. */
  name: string;
  /** What it is; `other` for devices, fifos and hard links. */
  type: "file" | "dir" | "symlink" | "other";
  /** Permission bits. */
  mode: number;
  /** Content length in bytes (files). */
  size: number;
  /** Link target (symlinks and hard links). */
  linkname: string;
}

/** What `readTar` does with a file's content: keep it whole, or only pass it through `sink` (hashing, counting). */
export type ContentChoice = "keep" | "skip" | ((chunk: Uint8Array) => void);

import { paxRecords, tarField as field, tarOctal as octal } from "./tar_header.ts";

/** The largest pax or GNU long-name header read (the tar guard's bound too). */
const MAX_EXTENSION = 1 << 20;

/** Reads exact byte counts from a stream, keeping at most one chunk of look-ahead. */
class Blocks {
  #chunks: Uint8Array[] = [];
  #have = 0;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async #fill(n: number): Promise<boolean> {
    while (this.#have < n) {
      const { value, done } = await this.reader.read();
      if (done) return false;
      this.#chunks.push(value);
      this.#have += value.length;
    }
    return true;
  }

  /**
   * Exactly `n` bytes, or null when the stream ends first. With `view`, a view of the chunk when one chunk holds them
   * all (no copy, but it keeps the whole chunk alive: only for bytes that are not kept).
   */
  async take(n: number, view = false): Promise<Uint8Array | null> {
    const first = this.#chunks[0];
    if (view && first && first.length >= n) {
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
      this.#have -= n;
      return first.subarray(0, n);
    }
    if (!await this.#fill(n)) return null;
    const out = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const c = this.#chunks[0];
      const k = Math.min(c.length, n - off);
      out.set(c.subarray(0, k), off);
      off += k;
      if (k === c.length) this.#chunks.shift();
      else this.#chunks[0] = c.subarray(k);
    }
    this.#have -= n;
    return out;
  }

  /** Passes `n` bytes to `each` chunk by chunk; false when the stream ends first. */
  async pass(n: number, each: (c: Uint8Array) => void): Promise<boolean> {
    while (n > 0) {
      if (!this.#chunks.length && !await this.#fill(1)) return false;
      const c = this.#chunks[0];
      const k = Math.min(c.length, n);
      each(c.subarray(0, k));
      if (k === c.length) this.#chunks.shift();
      else this.#chunks[0] = c.subarray(k);
      this.#have -= k;
      n -= k;
    }
    return true;
  }
}

/**
 * Reads the archive in `stream`, calling `visit` for each member; for a file, `visit`'s answer says what happens to
 * its content (`keep`: it is passed as the second argument of `onContent`). Throws on a truncated archive.
 */
export async function readTar(
  stream: ReadableStream<Uint8Array>,
  visit: (m: TarMember) => ContentChoice,
  onContent: (m: TarMember, data: Uint8Array) => void = () => {},
): Promise<void> {
  const blocks = new Blocks(stream.getReader());
  let longName: string | undefined, longLink: string | undefined;
  let pax: Record<string, string> = {}, paxSeen = false;
  for (;;) {
    const h = await blocks.take(512, true);
    if (!h) throw new Error("truncated tar archive (no end blocks)");
    if (h[0] === 0 && allZero(h)) return;
    const flag = String.fromCharCode(h[156] || 0x30);
    const size = pax.size !== undefined ? Number(pax.size) : octal(h, 124, 12);
    const padded = Math.ceil(size / 512) * 512;
    if (flag === "x" || flag === "g" || flag === "L" || flag === "K") {
      // A path is at most 4 KiB: a larger extension header is not a copy of a tree, and is not held.
      if (size > MAX_EXTENSION) throw new Error(`a tar extension header of ${size} bytes`);
      const data = await blocks.take(padded);
      if (!data) throw new Error("truncated tar archive");
      const body = data.subarray(0, size);
      if (flag === "x") pax = paxRecords(body), paxSeen = true;
      else if (flag === "L") longName = field(body, 0, body.length);
      else if (flag === "K") longLink = field(body, 0, body.length);
      continue;
    }
    // Fields are decoded only when present: most members have no prefix, and only links a target.
    const prefix = h[345] ? field(h, 345, 155) : "";
    let name = pax.path ?? longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    name = name.replace(/\/+$/, "");
    const type = flag === "0" || flag === "7" ? "file" : flag === "5" ? "dir" : flag === "2" ? "symlink" : "other";
    const m: TarMember = {
      name,
      type,
      mode: octal(h, 100, 8) & 0o7777,
      size,
      linkname: pax.linkpath ?? longLink ?? (h[157] ? field(h, 157, 100) : ""),
    };
    if (paxSeen) pax = {}, paxSeen = false;
    longName = longLink = undefined;
    const choice = visit(m);
    if (type === "file" && choice === "keep") {
      const data = await blocks.take(padded);
      if (!data) throw new Error("truncated tar archive");
      onContent(m, data.subarray(0, size));
      continue;
    }
    const sink = typeof choice === "function" && type === "file" ? choice : undefined;
    let left = size;
    const ok = await blocks.pass(padded, (c) => {
      if (sink && left > 0) sink(c.subarray(0, Math.min(left, c.length)));
      left -= c.length;
    });
    if (!ok) throw new Error("truncated tar archive");
  }
}

/** Whether every byte of `h` is 0 (an end block). */
function allZero(h: Uint8Array): boolean {
  for (let i = 0; i < h.length; i++) if (h[i] !== 0) return false;
  return true;
}
