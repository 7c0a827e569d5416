/**
 * pi 0.73.1's edit tool (edit.js, edit-diff.js): every edits[] entry is matched against the same original text, first
 * exactly, then "fuzzily" (both sides NFKC-normalised, trailing whitespace stripped per line, smart quotes, Unicode
 * dashes and special spaces made ASCII). When any edit needs the fuzzy match, the whole file is replaced by its
 * normalised form before the edits apply, so the written file is normalised everywhere, not just in the edited
 * regions. Around that sit pi's file rules: a leading BOM is stripped and put back, line endings are made LF for
 * matching and restored to the ending of the file's first line. Written from the facts of the 0.73.1 dist; the wording
 * of the outcomes is the profile's (profiles/pi/edit.ts).
 */
import type { EditMatcher, Match, MatchRequest, Miss } from "../../lib/harness/tools/edit_match/types.ts";

/** One edits[] entry as pi's schema names it. */
export interface PiEdit {
  oldText: string;
  newText: string;
}

/** The outcome of a whole edits[] call that applied. */
export interface PiApplied {
  ok: true;
  /** The file's new text as pi writes it: BOM and line endings restored. */
  content: string;
  /** The LF text the edits were applied to (normalised when fuzzy ran): pi diffs `base` against `next`. */
  base: string;
  /** The LF text after the edits (before endings and BOM are restored). */
  next: string;
  /** How many edits applied (all of them: pi applies all or none). */
  count: number;
  /** `fuzzy` when some edit needed the fuzzy match (and so the whole file was normalised), else `exact`. */
  strategy: string;
}

/** pi's strategy names: `exact` (indexOf) and `fuzzy` (indexOf in normalised text). */
const CHAIN = ["exact", "fuzzy"] as const;

const BOM = "\uFEFF";

/** normalizeToLF: CRLF and then lone CR become LF (so an old Mac file becomes an LF file). */
const toLF = (s: string) => s.replace(/\r\n/g, "\n").replace(/\r/g, "\n");

/**
 * detectLineEnding: the ending of the first line decides for the whole file. A mixed file thus comes back with one
 * ending everywhere, and a CR-only file (no LF at all) comes back as LF.
 */
function lineEnding(s: string): "\r\n" | "\n" {
  const lf = s.indexOf("\n");
  const crlf = s.indexOf("\r\n");
  return lf !== -1 && crlf !== -1 && crlf < lf ? "\r\n" : "\n";
}

/**
 * normalizeForFuzzyMatch, in pi's order: NFKC first (so ligatures, full-width letters, circled digits, `…` change
 * too), then each `\n`-line trimmed at its end with JS `trimEnd` (any Unicode whitespace, BOM included), then the
 * quote, dash and space classes below. Leading whitespace is never touched: tabs vs spaces or a changed indent miss.
 */
export function piNormalize(text: string): string {
  return text.normalize("NFKC")
    .split("\n").map((line) => line.trimEnd()).join("\n")
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, "-")
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " ");
}

/** Where fuzzyFindText found an oldText: its offset and length, and whether the fuzzy step was needed. */
interface Found {
  index: number;
  length: number;
  fuzzy: boolean;
}

/**
 * fuzzyFindText: exact indexOf first; failing that (and when the chain allows it) indexOf of the normalised oldText in
 * the normalised content, whose offset and length are in normalised space. An oldText that normalises to "" (only
 * trailing whitespace) is "found" at offset 0 with length 0 by that step, as in pi.
 */
function find(content: string, old: string, fuzzyOn: boolean): Found | undefined {
  const at = content.indexOf(old);
  if (at !== -1) return { index: at, length: old.length, fuzzy: false };
  if (!fuzzyOn) return undefined;
  const nOld = piNormalize(old);
  const nAt = piNormalize(content).indexOf(nOld);
  return nAt === -1 ? undefined : { index: nAt, length: nOld.length, fuzzy: true };
}

/**
 * countOccurrences: split count (non-overlapping). pi counts on normalised text even when the exact match succeeded,
 * so an exact, unique oldText is still a duplicate when a smart-quoted twin exists; an oldText normalising to ""
 * counts (normalised length - 1) occurrences. The exact-only chain counts the raw text instead.
 */
function count(content: string, old: string, fuzzyOn: boolean): number {
  return fuzzyOn ? piNormalize(content).split(piNormalize(old)).length - 1 : content.split(old).length - 1;
}

function miss(reason: string, index?: number, more: Partial<Miss> = {}, detail: Record<string, unknown> = {}): Miss {
  return { ok: false, reason, ...more, detail: index === undefined ? detail : { index, ...detail } };
}

/**
 * pi's whole edits[] logic on a file's raw text (its edit.js execute around applyEditsToNormalizedContent): BOM off,
 * LF, empty-oldText check, match every edit against the original, normalise the whole text when any edit needed the
 * fuzzy step and match again there, duplicates, overlaps (between sorted neighbours), apply back to front, identical
 * check against that base, then line endings and BOM restored. `chain` `["exact"]` drops the fuzzy step (and the
 * normalised counting) but keeps pi's BOM and line-ending handling. Misses: `empty_old`, `not_found`, `ambiguous`
 * (`count`), `overlap` (`detail.indices` = [earlier, later] in file order), `identical`; `detail.index` is the edit's (none for identical).
 */
export function piApplyEdits(
  content: string,
  edits: readonly PiEdit[],
  chain: readonly string[] = CHAIN,
): PiApplied | Miss {
  const fuzzyOn = chain.includes("fuzzy");
  // The model never sends the invisible BOM, so it is stripped before matching and re-added on write.
  const bom = content.startsWith(BOM) ? BOM : "";
  const text = content.slice(bom.length);
  const ending = lineEnding(text);
  const original = toLF(text);
  // oldText and newText are LF-normalised too; newText is otherwise inserted verbatim (never fuzzy-normalised).
  const lfEdits = edits.map((e) => ({ oldText: toLF(e.oldText), newText: toLF(e.newText) }));
  const empty = lfEdits.findIndex((e) => e.oldText.length === 0);
  if (empty !== -1) return miss("empty_old", empty);
  // First pass only decides the base: one fuzzy edit switches every edit to the normalised text.
  const anyFuzzy = lfEdits.some((e) => find(original, e.oldText, fuzzyOn)?.fuzzy === true);
  const base = anyFuzzy ? piNormalize(original) : original;
  const spans: { edit: number; at: number; len: number; neu: string }[] = [];
  for (const [i, e] of lfEdits.entries()) {
    const f = find(base, e.oldText, fuzzyOn);
    if (!f) return miss("not_found", i);
    const n = count(base, e.oldText, fuzzyOn);
    if (n > 1) return miss("ambiguous", i, { count: n, strategy: f.fuzzy ? "fuzzy" : "exact" });
    spans.push({ edit: i, at: f.index, len: f.length, neu: e.newText });
  }
  // Stable sort by offset; only neighbours are compared, and the first clash in file order is reported.
  spans.sort((a, b) => a.at - b.at);
  for (let k = 1; k < spans.length; k++) {
    const [prev, cur] = [spans[k - 1], spans[k]];
    if (prev.at + prev.len > cur.at) return miss("overlap", prev.edit, {}, { indices: [prev.edit, cur.edit] });
  }
  let next = base;
  for (let k = spans.length - 1; k >= 0; k--) {
    const s = spans[k];
    next = next.slice(0, s.at) + s.neu + next.slice(s.at + s.len);
  }
  // Compared with the (possibly normalised) base, not the file: a fuzzy edit whose newText equals the normalised
  // match is "identical" although writing would have changed the file.
  if (next === base) return miss("identical", undefined, { strategy: anyFuzzy ? "fuzzy" : "exact" });
  const restored = ending === "\r\n" ? next.replace(/\n/g, "\r\n") : next;
  return {
    ok: true,
    content: bom + restored,
    base,
    next,
    count: edits.length,
    strategy: anyFuzzy ? "fuzzy" : "exact",
  };
}

/**
 * pi's matcher: one request is a one-entry edits[] call (pi has no replace_all; `all` is ignored). The Match's
 * `detail` carries pi's diff texts (`base`, `next`).
 */
export const PI_EDIT: EditMatcher = {
  name: "pi@0.73.1",
  chain: CHAIN,
  sources: ["npm:@mariozechner/pi-coding-agent@0.73.1:dist/core/tools/{edit,edit-diff}.js"],
  replace(req: MatchRequest, chain: readonly string[] = CHAIN): Match | Miss {
    const r = piApplyEdits(req.content, [{ oldText: req.old, newText: req.neu }], chain);
    if (!r.ok) return r;
    return { ok: true, content: r.content, count: 1, strategy: r.strategy, detail: { base: r.base, next: r.next } };
  },
};
