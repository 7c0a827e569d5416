/**
 * hermes-agent's nine match strategies (tools/fuzzy_match.py `_strategy_*`), each `(content, pattern)` to the
 * `[start, end)` spans it finds in the original content, as hermes computes them: line-based strategies cover whole
 * lines (from the first line's start to the last line's end, its newline excluded), normalising ones map offsets back
 * through hermes' own position maps, quirks included. Offsets are UTF-16 units: every map here moves one unit at a
 * time and hermes' normalisations touch only BMP characters, so they agree with Python's code-point offsets on the
 * same text. Python's `str.strip()` whitespace set is used wherever hermes strips.
 */
import { SequenceMatcher } from "../../lib/harness/lang/py_difflib.ts";
import { PY_WHITESPACE, pyIsBlank, pyStrip } from "../../lib/harness/lang/python_values.ts";

/** A matched region: `[start, end)` in the original content. */
export type Span = [start: number, end: number];

/** A strategy: every span of `content` it takes `pattern` to match, in file order. */
export type Strategy = (content: string, pattern: string) => Span[];

const LSTRIP = new RegExp(`^[${PY_WHITESPACE}]+`);
const RSTRIP = new RegExp(`[${PY_WHITESPACE}]+$`);
/** Python's `str.lstrip()`. */
export const pyLstrip = (s: string): string => s.replace(LSTRIP, "");
/** Python's `str.rstrip()`. */
export const pyRstrip = (s: string): string => s.replace(RSTRIP, "");

/** UNICODE_MAP: typographic characters and their ASCII stand-ins (all BMP, all replacements ASCII). */
export const UNICODE_MAP: Readonly<Record<string, string>> = {
  "\u201c": '"',
  "\u201d": '"',
  "\u2018": "'",
  "\u2019": "'",
  "\u2014": "--",
  "\u2013": "-",
  "\u2026": "...",
  "\u00a0": " ",
  "\u2212": "-",
  ...Object.fromEntries(
    [..."\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"].map((c) => [c, " "]),
  ),
};
const UNICODE_RE = new RegExp(`[${Object.keys(UNICODE_MAP).join("")}]`, "g");

/** `_unicode_normalize`: every UNICODE_MAP character replaced (no replacement contains a key, so one pass is hermes'). */
export const unicodeNormalize = (s: string): string => s.replace(UNICODE_RE, (c) => UNICODE_MAP[c]);

/** `_build_orig_to_norm_map` over a sequence of characters: each index's offset in the normalised text, plus a sentinel. */
export function origToNormMap(chars: ArrayLike<string>): number[] {
  const out: number[] = [];
  let n = 0;
  for (let i = 0; i < chars.length; i++) {
    out.push(n);
    n += UNICODE_MAP[chars[i]]?.length ?? 1;
  }
  out.push(n);
  return out;
}

/** norm offset → first original index mapping to it (the inversion hermes does twice). */
export function invertNormMap(origToNorm: readonly number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < origToNorm.length - 1; i++) if (!m.has(origToNorm[i])) m.set(origToNorm[i], i);
  return m;
}

/** `_calculate_line_positions`: the span of lines `[s, e)`, the last line's newline excluded, capped at the length. */
function linePositions(lines: readonly string[], s: number, e: number, length: number): Span {
  let start = 0, end = 0;
  for (let k = 0; k < e; k++) {
    if (k < s) start += lines[k].length + 1;
    end += lines[k].length + 1;
  }
  return [start, Math.min(length, end - 1)];
}

/** `_find_normalized_matches`: windows whose normalised lines, joined, equal the normalised pattern. */
function normalizedLineMatches(content: string, lines: string[], norm: string[], pattern: string): Span[] {
  const n = pattern.split("\n").length;
  const out: Span[] = [];
  for (let i = 0; i + n <= norm.length; i++) {
    if (norm.slice(i, i + n).join("\n") === pattern) out.push(linePositions(lines, i, i + n, content.length));
  }
  return out;
}

/** Strategy 1, `exact`: non-overlapping occurrences, scanning on past each one (str.replace's occurrences). */
export const exact: Strategy = (content, pattern) => {
  const out: Span[] = [];
  // hermes' caller rejects an empty old_string first; an empty pattern would never advance.
  if (!pattern) return out;
  for (let p = content.indexOf(pattern); p >= 0; p = content.indexOf(pattern, p + pattern.length)) {
    out.push([p, p + pattern.length]);
  }
  return out;
};

/** Strategy 2, `line_trimmed`: every line stripped on both sides. */
export const lineTrimmed: Strategy = (content, pattern) => {
  const lines = content.split("\n");
  const pat = pattern.split("\n").map(pyStrip).join("\n");
  return normalizedLineMatches(content, lines, lines.map(pyStrip), pat);
};

/** Python's `x in ' \t'` for one character. */
const isBlankChar = (c: string | undefined) => c === " " || c === "\t";

/** `_map_normalized_positions`: hermes' best-effort map from the `[ \t]+` → `' '` text back to the original. */
function mapCollapsed(original: string, normalized: string, matches: Span[]): Span[] {
  const o2n: number[] = [];
  let oi = 0, ni = 0;
  while (oi < original.length && ni < normalized.length) {
    if (original[oi] === normalized[ni]) {
      o2n.push(ni++);
      oi++;
    } else if (isBlankChar(original[oi]) && normalized[ni] === " ") {
      // A collapsed run: the normalised space is passed only once the run's last blank is consumed.
      o2n.push(ni);
      oi++;
      if (oi < original.length && !isBlankChar(original[oi])) ni++;
    } else {
      // Extra whitespace (or a mismatch normalisation cannot produce): pinned to the current offset.
      o2n.push(ni);
      oi++;
    }
  }
  while (oi++ < original.length) o2n.push(normalized.length);
  const first = new Map<number, number>(), last = new Map<number, number>();
  o2n.forEach((n, i) => {
    if (!first.has(n)) first.set(n, i);
    last.set(n, i);
  });
  return matches.map(([ns, ne]): Span => {
    let start = first.get(ns);
    if (start === undefined) {
      start = o2n.findIndex((n) => n >= ns);
      if (start < 0) throw new Error("ValueError: min() arg is an empty sequence"); // as hermes' min() would raise
    }
    const l = last.get(ne - 1);
    let end = l !== undefined ? l + 1 : start + (ne - ns);
    // Trailing blanks are absorbed only when the normalised match itself ended in a space.
    if (ne < normalized.length && normalized[ne - 1] === " ") {
      while (end < original.length && isBlankChar(original[end])) end++;
    }
    return [start, Math.min(end, original.length)];
  });
}

const collapse = (s: string) => s.replace(/[ \t]+/g, " ");

/** Strategy 3, `whitespace_normalized`: runs of spaces and tabs collapsed to one space (newlines kept). */
export const whitespaceNormalized: Strategy = (content, pattern) => {
  const norm = collapse(content);
  const found = exact(norm, collapse(pattern));
  return found.length ? mapCollapsed(content, norm, found) : [];
};

/** Strategy 4, `indentation_flexible`: leading whitespace dropped from every line (after line_trimmed, never wins). */
export const indentationFlexible: Strategy = (content, pattern) => {
  const lines = content.split("\n");
  return normalizedLineMatches(content, lines, lines.map(pyLstrip), pattern.split("\n").map(pyLstrip).join("\n"));
};

/** Strategy 5, `escape_normalized`: literal `\n`, `\t`, `\r` in the pattern read as the characters, matched exactly. */
export const escapeNormalized: Strategy = (content, pattern) => {
  const un = pattern.replaceAll("\\n", "\n").replaceAll("\\t", "\t").replaceAll("\\r", "\r");
  return un === pattern ? [] : exact(content, un);
};

/** The first and last lines stripped, the middle kept. */
function stripEnds(lines: string[]): string[] {
  const out = [...lines];
  out[0] = pyStrip(out[0]);
  if (out.length > 1) out[out.length - 1] = pyStrip(out[out.length - 1]);
  return out;
}

/** Strategy 6, `trimmed_boundary`: only the first and last lines stripped (after line_trimmed, never wins). */
export const trimmedBoundary: Strategy = (content, pattern) => {
  const pat = stripEnds(pattern.split("\n")).join("\n");
  const n = pattern.split("\n").length;
  const lines = content.split("\n");
  const out: Span[] = [];
  for (let i = 0; i + n <= lines.length; i++) {
    if (stripEnds(lines.slice(i, i + n)).join("\n") === pat) out.push(linePositions(lines, i, i + n, content.length));
  }
  return out;
};

/** Strategy 7, `unicode_normalized`: exact, else line_trimmed, on both texts normalised, mapped back. */
export const unicodeNormalized: Strategy = (content, pattern) => {
  const nc = unicodeNormalize(content), np = unicodeNormalize(pattern);
  if (nc === content && np === pattern) return [];
  let found = exact(nc, np);
  if (!found.length) found = lineTrimmed(nc, np);
  if (!found.length) return [];
  const o2n = origToNormMap(content);
  const starts = invertNormMap(o2n);
  const out: Span[] = [];
  for (const [ns, ne] of found) {
    const s = starts.get(ns);
    if (s === undefined) continue; // a match starting inside an expansion is dropped, as hermes drops it
    let e = s;
    while (e < o2n.length - 1 && o2n[e] < ne) e++;
    out.push([s, e]);
  }
  return out;
};

/**
 * Strategy 8, `block_anchor` (similarity-based): 2+ lines whose stripped first and last lines equal the pattern's
 * (both unicode-normalised); the middle's SequenceMatcher ratio must reach 0.50 when one window is a candidate, 0.70
 * when several are. A two-line pattern needs only its anchors.
 */
export const blockAnchor: Strategy = (content, pattern) => {
  const pl = unicodeNormalize(pattern).split("\n");
  if (pl.length < 2) return [];
  const n = pl.length, first = pyStrip(pl[0]), last = pyStrip(pl[n - 1]);
  const cl = unicodeNormalize(content).split("\n");
  const candidates: number[] = [];
  for (let i = 0; i + n <= cl.length; i++) {
    if (pyStrip(cl[i]) === first && pyStrip(cl[i + n - 1]) === last) candidates.push(i);
  }
  const threshold = candidates.length === 1 ? 0.50 : 0.70;
  const middle = pl.slice(1, -1).join("\n");
  const orig = content.split("\n"); // offsets from the original lines: an expansion would shift them
  return candidates
    .filter((i) => n <= 2 || new SequenceMatcher(cl.slice(i + 1, i + n - 1).join("\n"), middle).ratio() >= threshold)
    .map((i) => linePositions(orig, i, i + n, content.length));
};

/** A pair's SequenceMatcher ratio, 1.0 for equal strings without scoring. */
const sim = (a: string, b: string) => a === b ? 1.0 : new SequenceMatcher(a, b).ratio();

/**
 * Strategy 9, `context_aware` (similarity-based, last resort): windows of the pattern's line count whose stripped
 * first and last lines score ≥ 0.80 against the pattern's, and every non-blank pattern line ≥ 0.80 against its line.
 */
export const contextAware: Strategy = (content, pattern) => {
  const pl = pattern.split("\n"), cl = content.split("\n");
  const n = pl.length;
  if (n > cl.length) return [];
  const first = pyStrip(pl[0]), last = pyStrip(pl[n - 1]);
  const out: Span[] = [];
  for (let i = 0; i + n <= cl.length; i++) {
    if (sim(first, pyStrip(cl[i])) < 0.80 || sim(last, pyStrip(cl[i + n - 1])) < 0.80) continue;
    if (pl.every((p, k) => pyIsBlank(p) || sim(pyStrip(p), pyStrip(cl[i + k])) >= 0.80)) {
      out.push(linePositions(cl, i, i + n, content.length));
    }
  }
  return out;
};

/** The chain in hermes' order, by hermes' names (the first is exact matching). */
export const STRATEGIES: readonly (readonly [string, Strategy])[] = [
  ["exact", exact],
  ["line_trimmed", lineTrimmed],
  ["whitespace_normalized", whitespaceNormalized],
  ["indentation_flexible", indentationFlexible],
  ["escape_normalized", escapeNormalized],
  ["trimmed_boundary", trimmedBoundary],
  ["unicode_normalized", unicodeNormalized],
  ["block_anchor", blockAnchor],
  ["context_aware", contextAware],
];

/** The strategies whose matches only approximately resemble old_string (refused under replace_all when several). */
export const SIMILARITY_STRATEGIES: ReadonlySet<string> = new Set(["block_anchor", "context_aware"]);
