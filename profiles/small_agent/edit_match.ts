/**
 * small-agent@1's recoverable edit (pgs's own small-model harness): an exact `Find:` still wins and must occur once.
 * A miss retries on whitespace-normalised lines (each line compared with runs of whitespace collapsed and its ends
 * trimmed), refuses a normalised match that hits more than one place, and re-indents the replacement to the line it
 * actually matched. When nothing matches, the miss carries the file's lines closest to Find's first line, so the next
 * attempt can copy real text instead of guessing again. Why: a small model usually knows the change and fails to
 * express it (a lost indent, a doubled space); a dead-end "not found" wastes its steps, a guessed fuzzy match would
 * edit the wrong line quietly.
 */
import { levenshtein } from "../../lib/harness/lang/levenshtein.ts";
import type { EditMatcher, Match, MatchRequest, Miss } from "../../lib/harness/tools/edit_match/types.ts";

/** A line of the file the miss points at: its 1-based number and its text (without the line end). */
export interface NumberedLine {
  /** 1-based line number. */
  line: number;
  /** The line's text, without its line end. */
  text: string;
}

const CHAIN = ["exact", "normalized_lines"] as const;

/** How many closest lines a miss offers at most, and at least when few are close. */
const CLOSEST_MAX = 5, CLOSEST_MIN = 3;
/** Similarity (1 - edit distance / length) a line needs to be offered beyond the first CLOSEST_MIN. */
const CLOSE_ENOUGH = 0.5;
/** Bounds that keep the closest-line search cheap on a big file (lines scanned, characters compared). */
const SCAN_LINES = 20_000, SCAN_CHARS = 200;

/** A line compared with runs of whitespace collapsed and its ends trimmed. */
export const normLine = (l: string): string => l.trim().replace(/\s+/g, " ");

const indentOf = (l: string) => /^[ \t]*/.exec(l)![0];

/** The file's lines with their line ends kept (`a\nb` → `a\n`, `b`). */
const splitKeep = (text: string) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
const stripEol = (l: string) => l.replace(/\r?\n$/, "");

/** 1-based line number of a character offset. */
const lineAt = (content: string, offset: number) => content.slice(0, offset).split("\n").length;

/** Every non-overlapping occurrence's offset, as `split` counts them. */
function occurrences(content: string, old: string): number[] {
  const at: number[] = [];
  for (let i = content.indexOf(old); i >= 0; i = content.indexOf(old, i + old.length)) at.push(i);
  return at;
}

/** Find's lines without the blank lines around them (a model often pads the section). */
function findLines(old: string): string[] {
  const lines = old.split(/\r?\n/);
  while (lines.length && lines[0].trim() === "") lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
  return lines;
}

/**
 * Re-indents the replacement by the shift between Find's first line and the line it matched: a line that starts
 * with Find's indent gets the matched indent in its place (tabs kept as the file has them); any other line moves by
 * the same number of characters, in the file's indent character.
 */
export function reindent(lines: string[], findIndent: string, fileIndent: string): string[] {
  const delta = fileIndent.length - findIndent.length;
  if (delta === 0 && findIndent === fileIndent) return lines;
  const unit = fileIndent[0] ?? findIndent[0] ?? " ";
  return lines.map((l) => {
    if (l.trim() === "") return l.trim();
    if (l.startsWith(findIndent)) return fileIndent + l.slice(findIndent.length);
    const own = indentOf(l).length;
    return unit.repeat(Math.max(0, own + delta)) + l.trimStart();
  });
}

/** The file's lines most like `probe` (normalised), best first; at least CLOSEST_MIN when the file has them. */
export function closestLines(content: string, probe: string): NumberedLine[] {
  const key = normLine(probe).slice(0, SCAN_CHARS);
  if (key === "") return [];
  const scored: { line: number; text: string; score: number }[] = [];
  splitKeep(content).slice(0, SCAN_LINES).forEach((raw, i) => {
    const text = stripEol(raw), n = normLine(text).slice(0, SCAN_CHARS);
    if (n === "") return;
    scored.push({ line: i + 1, text, score: 1 - levenshtein(n, key) / Math.max(n.length, key.length) });
  });
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  return scored.slice(0, CLOSEST_MAX).filter((s, i) => i < CLOSEST_MIN || s.score >= CLOSE_ENOUGH)
    .map(({ line, text }) => ({ line, text }));
}

function exact(req: MatchRequest, old: string): Match | Miss | null {
  const at = occurrences(req.content, old);
  if (at.length === 0) return null;
  const lines = at.map((o) => lineAt(req.content, o));
  if (at.length > 1) return { ok: false, reason: "ambiguous", count: at.length, strategy: "exact", detail: { lines } };
  const content = req.content.slice(0, at[0]) + req.neu + req.content.slice(at[0] + old.length);
  const span = req.neu === "" ? 0 : req.neu.split("\n").length;
  return { ok: true, content, count: 1, strategy: "exact", detail: { line: lines[0], lines: span, shift: 0 } };
}

function normalized(req: MatchRequest): Match | Miss | null {
  const find = findLines(req.old);
  if (find.length === 0) return null;
  const want = find.map(normLine);
  const file = splitKeep(req.content);
  const starts: number[] = [];
  for (let i = 0; i + want.length <= file.length; i++) {
    if (want.every((w, k) => normLine(file[i + k]) === w)) starts.push(i);
  }
  if (starts.length === 0) return null;
  if (starts.length > 1) {
    const lines = starts.map((i) => i + 1);
    return { ok: false, reason: "ambiguous", count: starts.length, strategy: "normalized_lines", detail: { lines } };
  }
  const i = starts[0], win = file.slice(i, i + want.length);
  const eol = win[0].endsWith("\r\n") ? "\r\n" : "\n";
  const last = win[win.length - 1];
  const endsLine = last.endsWith("\n");
  // One trailing newline of the section is its line end, not an extra blank line.
  const neu = req.neu.replace(/\r?\n$/, "");
  const fileIndent = indentOf(win[0]), findIndent = indentOf(find[0]);
  const repl = req.neu === "" ? [] : reindent(neu.split(/\r?\n/), findIndent, fileIndent);
  const text = repl.length ? repl.join(eol) + (endsLine ? eol : "") : "";
  const content = file.slice(0, i).join("") + text + file.slice(i + want.length).join("");
  const shift = fileIndent.length - findIndent.length;
  return {
    ok: true,
    content,
    count: 1,
    strategy: "normalized_lines",
    detail: { line: i + 1, lines: repl.length, shift },
  };
}

/**
 * small-agent@1's edit: `exact` (a unique substring), then `normalized_lines` (whole lines, whitespace-normalised,
 * unique, the replacement re-indented). A match's `detail` has `line` (where the replaced text starts), `lines` (how
 * many lines replaced it) and `shift` (the re-indent, in characters); an `ambiguous` miss has `lines` (where each
 * candidate starts); a `not_found` miss has `closest` (`NumberedLine[]`, best first); an empty Find is `empty_old`.
 */
export const SMALL_AGENT_EDIT: EditMatcher = {
  name: "small-agent@1",
  chain: CHAIN,
  sources: ["pgs: small-agent's own recoverable edit (docs: small-model-harness lessons)"],
  replace(req: MatchRequest, chain: readonly string[] = CHAIN): Match | Miss {
    if (req.old.trim() === "") return { ok: false, reason: "empty_old" };
    for (const name of chain) {
      const r = name === "exact" ? exact(req, req.old) : name === "normalized_lines" ? normalized(req) : null;
      if (r) return r;
    }
    const probe = findLines(req.old)[0] ?? "";
    return { ok: false, reason: "not_found", detail: { closest: closestLines(req.content, probe) } };
  },
};
