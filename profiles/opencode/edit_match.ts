/**
 * opencode 1.18.33's edit matching: after an exact miss its `edit` tool tries a chain of "replacers", each yielding
 * candidate spans of the file; the first candidate that occurs in the file (once, unless replaceAll) is replaced by
 * newString verbatim. Read from the JavaScript bundled in the 1.18.33 binary (the `replace` function and the nine
 * replacers it loops over), which differs from older sources in git: BlockAnchor's thresholds are 0.65/0.65 (not
 * 0.0/0.3), its anchored block must be within a quarter of oldString's line count, and a candidate spanning far
 * more than oldString is refused outright.
 */
import { levenshtein } from "../../lib/harness/lang/levenshtein.ts";
import type { EditMatcher, Match, MatchRequest, Miss } from "../../lib/harness/tools/edit_match/types.ts";

/** A replacer: the candidate spans (texts to look up in the file) for `find`, in the order opencode yields them. */
type Replacer = (content: string, find: string) => Generator<string, void, unknown>;

/** BlockAnchor's similarity floor with a single anchored candidate (the bundle's constant: 0.65). */
const SINGLE_CANDIDATE = 0.65;
/** BlockAnchor's similarity floor for the best of several anchored candidates (also 0.65 in 1.18.33). */
const MULTIPLE_CANDIDATES = 0.65;

/** The error strings opencode 1.18.33's edit tool throws, by the reason the matcher reports. */
export const OPENCODE_EDIT_MESSAGES: Readonly<Record<string, string>> = {
  not_found:
    "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.",
  ambiguous: "Found multiple matches for oldString. Provide more surrounding context to make the match unique.",
  oversized: "Refusing replacement because the matched span is much larger than oldString. Re-read the file and " +
    "provide the full exact oldString for the intended replacement.",
  identical: "No changes to apply: oldString and newString are identical.",
  empty: "oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write " +
    "for an intentional full-file replacement.",
};

/** Splits like opencode (on "\n" only), so a CRLF file's lines keep their "\r", which `trim()` then ignores. */
const lines = (t: string) => t.split("\n");

/** oldString's lines with one trailing empty line dropped (a final newline), as the line-wise replacers do. */
function searchLines(find: string): string[] {
  const s = lines(find);
  if (s[s.length - 1] === "") s.pop();
  return s;
}

/** Every window of `n` consecutive file lines, joined back (the file text those lines span). */
function* windows(content: string, n: number): Generator<string> {
  const ls = lines(content);
  for (let i = 0; i <= ls.length - n; i++) yield ls.slice(i, i + n).join("\n");
}

/** Exact: oldString itself. */
const simple: Replacer = function* (_content, find) {
  yield find;
};

/** Each run of file lines equal to oldString's lines after trimming both; yields the file's own lines. */
const lineTrimmed: Replacer = function* (content, find) {
  const ls = lines(content), s = searchLines(find);
  for (let i = 0; i <= ls.length - s.length; i++) {
    if (s.every((l, j) => ls[i + j].trim() === l.trim())) yield ls.slice(i, i + s.length).join("\n");
  }
};

/** Middle-line similarity of an anchored block (first/last lines matched), as opencode averages it. */
function middleSimilarity(ls: string[], s: string[], start: number, size: number, single: boolean): number {
  const check = Math.min(s.length - 2, size - 2);
  if (check <= 0) return 1; // only the anchors to go on: accepted
  let sim = 0;
  for (let j = 1; j < s.length - 1 && j < size - 1; j++) {
    const a = ls[start + j].trim(), b = s[j].trim();
    const max = Math.max(a.length, b.length);
    if (max === 0) continue; // blank on both sides: no score, but still in the denominator
    // The two branches sum differently (divide each term vs. divide the total); kept apart for identical floats.
    if (single) {
      sim += (1 - levenshtein(a, b) / max) / check;
      if (sim >= SINGLE_CANDIDATE) break;
    } else sim += 1 - levenshtein(a, b) / max;
  }
  return single ? sim : sim / check;
}

/**
 * 3+ line oldString (counted before dropping a final newline): blocks whose first and last lines match its first and
 * last (trimmed), the last being the first match at least two lines on, and whose size is within max(1, ⌊n/4⌋) lines
 * of oldString's; one candidate needs middle-line similarity ≥ 0.65, several yield the most similar (first on ties)
 * if ≥ 0.65.
 */
const blockAnchor: Replacer = function* (content, find) {
  if (lines(find).length < 3) return;
  const ls = lines(content), s = searchLines(find);
  const first = s[0].trim(), last = s[s.length - 1].trim();
  const slack = Math.max(1, Math.floor(s.length * 0.25));
  const found: [number, number][] = [];
  for (let i = 0; i < ls.length; i++) {
    if (ls[i].trim() !== first) continue;
    for (let j = i + 2; j < ls.length; j++) {
      if (ls[j].trim() !== last) continue;
      if (Math.abs(j - i + 1 - s.length) <= slack) found.push([i, j]);
      break; // only the first closing anchor counts, even if its size is out of range
    }
  }
  if (found.length === 0) return;
  if (found.length === 1) {
    const [i, j] = found[0];
    if (middleSimilarity(ls, s, i, j - i + 1, true) >= SINGLE_CANDIDATE) yield ls.slice(i, j + 1).join("\n");
    return;
  }
  let best: [number, number] | undefined, bestSim = -1;
  for (const [i, j] of found) {
    const sim = middleSimilarity(ls, s, i, j - i + 1, false);
    if (sim > bestSim) [bestSim, best] = [sim, [i, j]];
  }
  if (best && bestSim >= MULTIPLE_CANDIDATES) yield ls.slice(best[0], best[1] + 1).join("\n");
};

/** Runs of whitespace as one space, ends trimmed. */
const squash = (t: string) => t.replace(/\s+/g, " ").trim();

/**
 * Whitespace-insensitive: each file line equal to oldString once both are squashed; else, a line containing it,
 * the part matched by oldString's words joined with `\s+`; then (multi-line oldString) windows of its line count.
 */
const whitespaceNormalized: Replacer = function* (content, find) {
  const want = squash(find), ls = lines(content);
  for (const line of ls) {
    if (squash(line) === want) yield line;
    else if (squash(line).includes(want)) {
      const pattern = find.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+");
      const m = line.match(new RegExp(pattern));
      if (m) yield m[0];
    }
  }
  const n = lines(find).length;
  if (n > 1) { for (const w of windows(content, n)) if (squash(w) === want) yield w; }
};

/** The text with its common leading whitespace removed from non-blank lines (blank lines kept as they are). */
function dedent(t: string): string {
  const ls = lines(t), solid = ls.filter((l) => l.trim().length > 0);
  if (solid.length === 0) return t;
  const min = Math.min(...solid.map((l) => l.match(/^(\s*)/)![1].length));
  return ls.map((l) => l.trim().length === 0 ? l : l.slice(min)).join("\n");
}

/** Windows of oldString's line count (a final newline counts) equal to it once both are dedented. */
const indentationFlexible: Replacer = function* (content, find) {
  const want = dedent(find);
  for (const w of windows(content, lines(find).length)) if (dedent(w) === want) yield w;
};

/** Backslash escapes a model may have doubled: \n \t \r \' \" \` \\ \$ and backslash-newline. */
const resolveEscapes = (t: string) =>
  t.replace(/\\(n|t|r|'|"|`|\\|\n|\$)/g, (_m, c: string) => ({ n: "\n", t: "\t", r: "\r" } as const)[c as "n"] ?? c);

/** oldString with its escapes resolved, if the file has it; then windows of its line count that resolve to it. */
const escapeNormalized: Replacer = function* (content, find) {
  const want = resolveEscapes(find);
  if (content.includes(want)) yield want;
  for (const w of windows(content, lines(want).length)) if (resolveEscapes(w) === want) yield w;
};

/** oldString with its ends trimmed (only if that changes it), then windows of its line count that trim to that. */
const trimmedBoundary: Replacer = function* (content, find) {
  const want = find.trim();
  if (want === find) return;
  if (content.includes(want)) yield want;
  for (const w of windows(content, lines(find).length)) if (w.trim() === want) yield w;
};

/**
 * 3+ line oldString: for each file line matching its first line (trimmed), the block up to the first later line
 * (two or more on) matching its last; yielded if the same size and at least half of the non-blank middle lines are
 * equal after trimming (or none is non-blank).
 */
const contextAware: Replacer = function* (content, find) {
  if (lines(find).length < 3) return;
  const s = searchLines(find), ls = lines(content);
  const first = s[0].trim(), last = s[s.length - 1].trim();
  for (let i = 0; i < ls.length; i++) {
    if (ls[i].trim() !== first) continue;
    for (let j = i + 2; j < ls.length; j++) {
      if (ls[j].trim() !== last) continue;
      const block = ls.slice(i, j + 1);
      if (block.length === s.length) {
        let seen = 0, same = 0;
        for (let k = 1; k < block.length - 1; k++) {
          const a = block[k].trim(), b = s[k].trim();
          if (a.length > 0 || b.length > 0) {
            seen++;
            if (a === b) same++;
          }
        }
        if (seen === 0 || same / seen >= 0.5) yield block.join("\n");
      }
      break;
    }
  }
};

/** oldString once per exact occurrence (so it only ever adds ambiguity or a replaceAll of the exact text). */
const multiOccurrence: Replacer = function* (content, find) {
  for (let at = content.indexOf(find); at !== -1; at = content.indexOf(find, at + find.length)) yield find;
};

/** The replacers by name (opencode's `XxxReplacer` in snake_case), in the order opencode tries them. */
const REPLACERS: Readonly<Record<string, Replacer>> = {
  simple,
  line_trimmed: lineTrimmed,
  block_anchor: blockAnchor,
  whitespace_normalized: whitespaceNormalized,
  indentation_flexible: indentationFlexible,
  escape_normalized: escapeNormalized,
  trimmed_boundary: trimmedBoundary,
  context_aware: contextAware,
  multi_occurrence: multiOccurrence,
};

/** opencode's guard against a fuzzy span swallowing much more than oldString (checked on the first found candidate). */
function oversized(span: string, find: string): boolean {
  const n = lines(find).length;
  if (lines(span).length >= Math.max(n + 3, n * 2)) return true;
  if (n === 1) return false;
  return span.trim().length > Math.max(find.trim().length + 500, find.trim().length * 4);
}

/** Non-overlapping occurrences, as `String.prototype.replaceAll` counts them ("" matches at every position). */
function occurrences(content: string, s: string): number {
  if (s === "") return content.length + 1;
  let n = 0;
  for (let at = content.indexOf(s); at !== -1; at = content.indexOf(s, at + s.length)) n++;
  return n;
}

/** opencode 1.18.33's edit matcher: the nine replacers of its `edit` tool, simple (exact) first. */
export const OPENCODE_EDIT: EditMatcher = {
  name: "opencode@1.18.33",
  chain: Object.keys(REPLACERS),
  sources: ["npm:opencode-linux-x64@1.18.33:bin/opencode"],
  replace(req: MatchRequest, chain: readonly string[] = OPENCODE_EDIT.chain): Match | Miss {
    const { content, old, neu } = req;
    // The replace function's own guards come first (the tool also checks them on the raw arguments).
    if (old === neu) return { ok: false, reason: "identical" };
    if (old === "") return { ok: false, reason: "empty" };
    let ambiguousIn: string | undefined, found = false;
    for (const name of chain) {
      const replacer = REPLACERS[name];
      if (!replacer) throw new Error(`opencode edit matcher: unknown strategy ${name}`);
      for (const span of replacer(content, old)) {
        const at = content.indexOf(span);
        if (at === -1) continue;
        found = true;
        if (oversized(span, old)) return { ok: false, reason: "oversized", strategy: name, detail: { matched: span } };
        const detail = { matched: span };
        if (req.all) {
          // A string pattern, so `$&`, `$$`, `` $` `` and `$'` in newString are expanded, as opencode's replaceAll does.
          const count = occurrences(content, span);
          return { ok: true, content: content.replaceAll(span, neu), count, strategy: name, detail };
        }
        if (at !== content.lastIndexOf(span)) {
          ambiguousIn ??= name; // opencode moves on to the next candidate; the first ambiguous replacer is kept
          continue;
        }
        // Spliced, not String.replace: newString goes in literally, with no `$` expansion and no re-indentation.
        return {
          ok: true,
          content: content.slice(0, at) + neu + content.slice(at + span.length),
          count: 1,
          strategy: name,
          detail,
        };
      }
    }
    return found ? { ok: false, reason: "ambiguous", strategy: ambiguousIn } : { ok: false, reason: "not_found" };
  },
};
