/**
 * getDiffContextSnippet (diff-utils.js): the new text's changed lines with 5 lines of context around each change,
 * merged, `...` marking what is left out. The changes come from a line diff (jsdiff's diffLines there; a Myers diff
 * over the same line tokens here, so alignments can differ only where several minimal diffs exist: approx. there).
 */

/** jsdiff's line tokens: each line with its own line end. */
function tokens(text: string): string[] {
  const out: string[] = [];
  const parts = text.split(/(\n|\r\n)/);
  for (let i = 0; i < parts.length; i += 2) {
    const t = parts[i] + (parts[i + 1] ?? "");
    if (t) out.push(t);
  }
  return out;
}

/** Index pairs (old, new) of the lines both texts keep, in order (Myers; a huge middle counts as replaced). */
function common(a: string[], b: string[]): [number, number][] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const keep: [number, number][] = [];
  for (let i = 0; i < pre; i++) keep.push([i, i]);
  const x = a.slice(pre, a.length - suf), y = b.slice(pre, b.length - suf);
  for (const [i, j] of myers(x, y)) keep.push([pre + i, pre + j]);
  for (let k = suf; k > 0; k--) keep.push([a.length - k, b.length - k]);
  return keep;
}

const MAX_EDIT = 4000;

function myers(a: string[], b: string[]): [number, number][] {
  const n = a.length, m = b.length, max = Math.min(n + m, MAX_EDIT), off = max + 1;
  if (n === 0 || m === 0) return [];
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) x++, y++;
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, off, d);
    }
  }
  return [];
}

function backtrack(trace: Int32Array[], a: string[], b: string[], off: number, dEnd: number): [number, number][] {
  const pairs: [number, number][] = [];
  let x = a.length, y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d], k = x - y;
    const down = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]);
    const pk = down ? k + 1 : k - 1, px = v[off + pk], py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) pairs.push([--x, --y]);
    x = px, y = py;
  }
  while (x > 0 && y > 0) pairs.push([--x, --y]);
  return pairs.reverse();
}

/** The snippet of `after` around what changed from `before` (`context` lines each side). */
export function diffContextSnippet(before: string, after: string, context = 5): string {
  if (!before) return after;
  const a = tokens(before), b = tokens(after);
  const ranges: { start: number; end: number }[] = [];
  let oi = 0, ni = 0;
  for (const [i, j] of [...common(a, b), [a.length, b.length] as [number, number]]) {
    if (i > oi && j === ni) ranges.push({ start: ni, end: ni });
    if (j > ni) ranges.push({ start: ni, end: j });
    oi = i + 1, ni = j + 1;
  }
  const lines = after.split(/\r?\n/);
  if (ranges.length === 0) return after;
  const expanded = ranges.map((r) => ({
    start: Math.max(0, r.start - context),
    end: Math.min(lines.length, r.end + context),
  })).sort((x, y) => x.start - y.start);
  const merged = [expanded[0]];
  for (const r of expanded.slice(1)) {
    const cur = merged[merged.length - 1];
    if (r.start <= cur.end) cur.end = Math.max(cur.end, r.end);
    else merged.push(r);
  }
  const out: string[] = [];
  let lastEnd = 0;
  for (const r of merged) {
    if (r.start > lastEnd) out.push("...");
    out.push(lines.slice(r.start, r.end).join("\n"));
    lastEnd = r.end;
  }
  if (lastEnd < lines.length) out.push("...");
  return out.join("\n");
}
