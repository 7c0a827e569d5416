/**
 * Python's `difflib.SequenceMatcher` (CPython 3.11 `Lib/difflib.py`) with `isjunk=None` and the default
 * `autojunk=True`: the matching blocks, opcodes and `ratio()` harnesses written in Python score text with. Strings are
 * compared as Python sees them, code point by code point (an astral character is one element, not two UTF-16 units),
 * so ratios and opcode offsets are in code points.
 */
import { pyChars } from "./python_text.ts";

/** A run of `size` equal elements at `a[i]` and `b[j]`. */
export type MatchBlock = readonly [i: number, j: number, size: number];

/** An opcode as `get_opcodes()` yields it: `[tag, i1, i2, j1, j2]`. */
export type Opcode = readonly ["replace" | "delete" | "insert" | "equal", number, number, number, number];

type Seq = string | readonly string[];

/** `SequenceMatcher(None, a, b)` over two strings. */
export class SequenceMatcher {
  readonly #a: Seq;
  readonly #b: Seq;
  readonly #b2j = new Map<string, number[]>();
  #blocks?: MatchBlock[];

  constructor(a: string, b: string) {
    this.#a = pyChars(a);
    this.#b = pyChars(b);
    // __chain_b: every element's positions in b, ascending.
    for (let j = 0; j < this.#b.length; j++) {
      const e = this.#b[j];
      const idx = this.#b2j.get(e);
      if (idx) idx.push(j);
      else this.#b2j.set(e, [j]);
    }
    // autojunk: in a b of 200+ elements, an element occurring more than len(b)//100 + 1 times is "popular" and
    // dropped from the index (it can still extend a match, as in find_longest_match below).
    const n = this.#b.length;
    if (n >= 200) {
      const ntest = Math.floor(n / 100) + 1;
      for (const [e, idx] of [...this.#b2j]) if (idx.length > ntest) this.#b2j.delete(e);
    }
  }

  /** `find_longest_match(alo, ahi, blo, bhi)`: the longest equal run, earliest in a then b on ties. */
  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): MatchBlock {
    const a = this.#a, b = this.#b;
    let besti = alo, bestj = blo, bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.#b2j.get(a[i]) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) [besti, bestj, bestsize] = [i - k + 1, j - k + 1, k];
      }
      j2len = next;
    }
    // With no junk function the junk set is empty, so only the "non-junk" extension passes run; they are what lets
    // popular elements (absent from b2j) join the ends of a match.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--, bestj--, bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
      bestsize++;
    }
    return [besti, bestj, bestsize];
  }

  /** `get_matching_blocks()`: non-adjacent equal runs in order, ending with the `[len(a), len(b), 0]` sentinel. */
  getMatchingBlocks(): MatchBlock[] {
    if (this.#blocks) return this.#blocks;
    const la = this.#a.length, lb = this.#b.length;
    const queue: [number, number, number, number][] = [[0, la, 0, lb]];
    const found: MatchBlock[] = [];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const x = this.findLongestMatch(alo, ahi, blo, bhi);
      const [i, j, k] = x;
      if (k) {
        found.push(x);
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    found.sort((p, q) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2]);
    const out: MatchBlock[] = [];
    let [i1, j1, k1] = [0, 0, 0];
    for (const [i2, j2, k2] of found) {
      if (i1 + k1 === i2 && j1 + k1 === j2) k1 += k2;
      else {
        if (k1) out.push([i1, j1, k1]);
        [i1, j1, k1] = [i2, j2, k2];
      }
    }
    if (k1) out.push([i1, j1, k1]);
    out.push([la, lb, 0]);
    return this.#blocks = out;
  }

  /** `get_opcodes()`: how to turn a into b. */
  getOpcodes(): Opcode[] {
    let i = 0, j = 0;
    const out: Opcode[] = [];
    for (const [ai, bj, size] of this.getMatchingBlocks()) {
      const tag = i < ai && j < bj ? "replace" : i < ai ? "delete" : j < bj ? "insert" : "";
      if (tag) out.push([tag, i, ai, j, bj]);
      [i, j] = [ai + size, bj + size];
      if (size) out.push(["equal", ai, i, bj, j]);
    }
    return out;
  }

  /** `ratio()`: 2·M / T, M the matched elements and T both lengths; 1.0 for two empty sequences. */
  ratio(): number {
    const m = this.getMatchingBlocks().reduce((n, blk) => n + blk[2], 0);
    const t = this.#a.length + this.#b.length;
    return t ? 2.0 * m / t : 1.0;
  }
}
