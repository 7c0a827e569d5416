/**
 * A set of paths held as 64-bit hashes in one typed array (8 bytes a slot, at most half full), so that the tar guard's
 * memory per symlink is a few bytes, not a string's; a full set refuses more (`add` returns false).
 */

/** The most paths a set takes by default: its table is then 8 MiB. */
export const PATH_SET_MAX = 500_000;

const enc = new TextEncoder();

/** Two 32-bit hashes of `s`'s UTF-8 bytes (FNV-1a, and a murmur-style mix); never both 0 (the empty slot). */
function hash2(s: string): [number, number] {
  let a = 0x811c9dc5, b = 0x9747b28c;
  for (const byte of enc.encode(s)) {
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x5bd1e995);
    b ^= b >>> 13;
  }
  a >>>= 0, b >>>= 0;
  return a === 0 && b === 0 ? [1, 0] : [a, b];
}

/** A growing, open-addressed set of path hashes (a false match is one chance in 2^64 per lookup and entry). */
export class PathSet {
  #slots = new Uint32Array(2 * 1024);
  #size = 0;

  /** A set that takes at most `max` paths (default `PATH_SET_MAX`). */
  constructor(readonly max = PATH_SET_MAX) {}

  /** How many paths it holds. */
  get size(): number {
    return this.#size;
  }

  /** Adds `path`; false when the set is full and `path` is not in it already. */
  add(path: string): boolean {
    const [a, b] = hash2(path);
    if (this.#find(a, b) >= 0) return true;
    if (this.#size >= this.max) return false;
    if (2 * (this.#size + 1) > this.#slots.length / 2) this.#grow();
    this.#insert(a, b);
    this.#size++;
    return true;
  }

  /** Whether `path` is in the set. */
  has(path: string): boolean {
    const [a, b] = hash2(path);
    return this.#find(a, b) >= 0;
  }

  #find(a: number, b: number): number {
    const n = this.#slots.length / 2;
    for (let i = a % n;; i = (i + 1) % n) {
      const [x, y] = [this.#slots[2 * i], this.#slots[2 * i + 1]];
      if (x === 0 && y === 0) return -1;
      if (x === a && y === b) return i;
    }
  }

  #insert(a: number, b: number): void {
    const n = this.#slots.length / 2;
    let i = a % n;
    while (this.#slots[2 * i] !== 0 || this.#slots[2 * i + 1] !== 0) i = (i + 1) % n;
    this.#slots[2 * i] = a;
    this.#slots[2 * i + 1] = b;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.#insert(old[i], old[i + 1]);
  }
}
