/**
 * calculateReplacement (edit.js): how gemini finds `old_string`, strategy by strategy: exact (split count), flexible
 * (lines compared trimmed, the new block re-indented like the match), regex (tokens split at delimiters and joined by
 * `\s*`, anchored at a line's indentation), then fuzzy (windows within a weighted Levenshtein distance of 10%), each
 * keeping the file's trailing newline as it was. Ported from 0.61.0's bundle line by line.
 */
import { levenshtein } from "./unknown_tool.ts";

/** What a strategy found. */
export interface Replacement {
  /** The file's text after the replacement (unchanged when nothing matched). */
  newContent: string;
  /** How many places matched. */
  occurrences: number;
  /** old_string and new_string with CRLF made LF. */
  finalOld: string;
  finalNew: string;
  /** Set by the fuzzy strategy: the 1-based line ranges it replaced. */
  fuzzyRanges?: { start: number; end: number }[];
}

const lf = (s: string) => s.replace(/\r\n/g, "\n");

/** safeLiteralReplace: every occurrence, `$` taken literally. */
export function literalReplaceAll(s: string, old: string, neu: string): string {
  if (old === "" || !s.includes(old)) return s;
  return s.replaceAll(old, () => neu);
}

function restoreTrailingNewline(original: string, modified: string): string {
  const had = original.endsWith("\n");
  if (had && !modified.endsWith("\n")) return modified + "\n";
  if (!had && modified.endsWith("\n")) return modified.replace(/\n$/, "");
  return modified;
}

function applyIndentation(lines: string[], indent: string): string[] {
  if (lines.length === 0) return [];
  const ref = lines[0].match(/^([ \t]*)/)?.[1] ?? "";
  return lines.map((l) =>
    l.trim() === "" ? "" : l.startsWith(ref) ? indent + l.slice(ref.length) : indent + l.trimStart()
  );
}

/** `text.match(/.*(?:\n|$)/g).slice(0, -1)`: the lines with their line ends. */
const linesOf = (text: string) => text.match(/.*(?:\n|$)/g)?.slice(0, -1) ?? [];

function exact(content: string, old: string, neu: string, all: boolean): Replacement | null {
  const n = content.split(old).length - 1;
  if (!all && n > 1) return { newContent: content, occurrences: n, finalOld: old, finalNew: neu };
  if (n === 0) return null;
  const out = restoreTrailingNewline(content, literalReplaceAll(content, old, neu));
  return { newContent: out, occurrences: n, finalOld: old, finalNew: neu };
}

function flexible(content: string, old: string, neu: string, rawNew: string): Replacement | null {
  const source = linesOf(content);
  const search = old.split("\n").map((l) => l.trim());
  const replace = neu.split("\n");
  let n = 0;
  for (let i = 0; i <= source.length - search.length; i++) {
    const win = source.slice(i, i + search.length);
    if (!win.every((l, k) => l.trim() === search[k])) continue;
    n++;
    const indent = win[0].match(/^([ \t]*)/)?.[1] ?? "";
    let text = applyIndentation(replace, indent).join("\n");
    if (rawNew !== "" && win[win.length - 1].endsWith("\n") && !text.endsWith("\n")) text += "\n";
    source.splice(i, search.length, text);
  }
  if (n === 0) return null;
  return { newContent: restoreTrailingNewline(content, source.join("")), occurrences: n, finalOld: old, finalNew: neu };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function regex(content: string, old: string, neu: string, all: boolean): Replacement | null {
  let processed = old;
  for (const d of ["(", ")", ":", "[", "]", "{", "}", ">", "<", "="]) processed = processed.split(d).join(` ${d} `);
  const toks = processed.split(/\s+/).filter(Boolean);
  if (toks.length === 0) return null;
  const pattern = `^([ \t]*)${toks.map(escapeRegex).join("\\s*")}`;
  const matches = content.match(new RegExp(pattern, "gm"));
  if (!matches) return null;
  const newLines = neu.split("\n");
  const out = content.replace(
    new RegExp(pattern, all ? "gm" : "m"),
    (_m, indent: string) => applyIndentation(newLines, indent || "").join("\n"),
  );
  return {
    newContent: restoreTrailingNewline(content, out),
    occurrences: matches.length,
    finalOld: old,
    finalNew: neu,
  };
}

const THRESHOLD = 0.1, WS_PENALTY = 0.1;

function fuzzy(content: string, rawOld: string, old: string, neu: string): Replacement | null {
  if (rawOld.length < 10) return null;
  const source = linesOf(lf(content));
  const search = linesOf(old).map((l) => l.trimEnd());
  if (source.length * rawOld.length ** 2 > 4e8 || search.length === 0) return null;
  const n = search.length, block = search.join("\n");
  const strip = (s: string) => s.replace(/\s/g, "");
  const candidates: { index: number; score: number }[] = [];
  for (let i = 0; i <= source.length - n; i++) {
    const win = source.slice(i, i + n).map((l) => l.trimEnd()).join("\n");
    if (Math.abs(win.length - block.length) / block.length > THRESHOLD / WS_PENALTY) continue;
    const raw = levenshtein(win, block), norm = levenshtein(strip(win), strip(block));
    const score = (norm + (raw - norm) * WS_PENALTY) / block.length;
    if (score <= THRESHOLD) candidates.push({ index: i, score });
  }
  if (candidates.length === 0) return null;
  candidates.sort((x, y) => x.score - y.score || x.index - y.index);
  const picked: typeof candidates = [];
  for (const c of candidates) if (!picked.some((m) => Math.abs(m.index - c.index) < n)) picked.push(c);
  const fuzzyRanges = picked.map((m) => ({ start: m.index + 1, end: m.index + n })).sort((x, y) => x.start - y.start);
  picked.sort((x, y) => y.index - x.index);
  const newLines = neu.split("\n");
  for (const m of picked) {
    const indent = source[m.index].match(/^([ \t]*)/)?.[1] ?? "";
    let text = applyIndentation(newLines, indent).join("\n");
    if (source[m.index + n - 1].endsWith("\n")) text += "\n";
    source.splice(m.index, n, text);
  }
  return {
    newContent: restoreTrailingNewline(content, source.join("")),
    occurrences: picked.length,
    finalOld: old,
    finalNew: neu,
    fuzzyRanges,
  };
}

/** calculateReplacement: the first strategy that matches, else no occurrence. */
export function calculateReplacement(content: string, oldString: string, newString: string, all: boolean): Replacement {
  const old = lf(oldString), neu = lf(newString);
  const none = { newContent: content, occurrences: 0, finalOld: old, finalNew: neu };
  if (old === "") return none;
  return exact(content, old, neu, all) ?? flexible(content, old, neu, newString) ?? regex(content, old, neu, all) ??
    fuzzy(content, oldString, old, neu) ?? none;
}

/** getErrorReplaceResult's raw message, or null when the replacement may be written. */
export function replaceError(filePath: string, r: Replacement, all: boolean): string | null {
  if (r.occurrences === 0) {
    return `Could not find an exact match for 'old_string' in '${filePath}'. If previous edits modified the file or ` +
      "you are modifying lines outside your recent read window, please use ReadFile to inspect the target lines " +
      "before retrying with an exact 'old_string'.";
  }
  if (!all && r.occurrences !== 1) {
    return `Failed to edit, Expected 1 occurrence but found ${r.occurrences} for old_string in file: ${filePath}. ` +
      "If you intended to replace multiple occurrences, set 'allow_multiple' to true.";
  }
  if (r.finalOld === r.finalNew) {
    return `No changes to apply. The old_string and new_string are identical in file: ${filePath}`;
  }
  return null;
}

/** getFuzzyMatchFeedback: where a fuzzy match was applied, or null. */
export function fuzzyFeedback(r: Replacement): string | null {
  if (!r.fuzzyRanges?.length) return null;
  const ranges = r.fuzzyRanges.map((x) => x.start === x.end ? `${x.start}` : `${x.start}-${x.end}`).join(", ");
  return `Applied fuzzy match at line${r.fuzzyRanges.length > 1 ? "s" : ""} ${ranges}.`; // (source)
}
