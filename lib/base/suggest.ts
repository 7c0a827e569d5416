/** "Did you mean": the known name closest to a mistyped one, shared by every lookup that lists valid names. */

/** Levenshtein distance between `a` and `b`. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The candidate closest to `name` in edits, compared case-insensitively, or undefined when none is close: within a
 * third of the longer length (at least `minEdits`, default 2), or one name a prefix of the other. Ties go to the
 * earlier candidate.
 */
export function closest(name: string, candidates: readonly string[], minEdits = 2): string | undefined {
  const n = name.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const l = c.toLowerCase();
    const d = distance(n, l);
    const close = d <= Math.max(minEdits, Math.floor(Math.max(n.length, l.length) / 3)) || l.startsWith(n) ||
      n.startsWith(l);
    if (close && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/**
 * `; did you mean "X"?` for the closest candidate, or "" when none is close; `minEdits` (default 2) is the edits always
 * allowed whatever the length (1 for short keys, where 2 edits reach unrelated names).
 */
export function didYouMean(name: string, candidates: readonly string[], minEdits = 2): string {
  const c = closest(name, candidates, minEdits);
  return c === undefined ? "" : `; did you mean ${JSON.stringify(c)}?`;
}
