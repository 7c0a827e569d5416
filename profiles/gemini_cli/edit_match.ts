/**
 * gemini-cli 0.61.0's calculateReplacement (edit.js): how `replace` finds old_string, strategy by strategy: exact (split
 * count), flexible (lines compared trimmed, the new block re-indented like the match), regex (tokens split at
 * delimiters and joined by `\s*`, anchored at a line's indentation), then fuzzy (windows within a weighted Levenshtein
 * distance of 10%), each keeping the file's trailing newline as it was. Ported from the bundle line by line; the
 * wording of its outcomes is the profile's (profiles/gemini_cli/replace_errors.ts).
 */
import { levenshtein } from "../../lib/harness/lang/levenshtein.ts";
import type { EditMatcher, Match, MatchRequest, Miss } from "../../lib/harness/tools/edit_match/types.ts";

/** What a strategy found. */
interface Replacement {
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
function literalReplaceAll(s: string, old: string, neu: string): string {
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

const STRATEGIES: Record<string, (content: string, raw: MatchRequest, old: string, neu: string) => Replacement | null> =
  {
    exact: (c, r, old, neu) => exact(c, old, neu, r.all === true),
    flexible: (c, r, old, neu) => flexible(c, old, neu, r.neu),
    regex: (c, r, old, neu) => regex(c, old, neu, r.all === true),
    fuzzy: (c, r, old, neu) => fuzzy(c, r.old, old, neu),
  };

/**
 * gemini-cli's replace: the first strategy of the chain that finds old_string decides; several occurrences without
 * allow_multiple are a miss (`ambiguous`). `detail` carries finalOld/finalNew (CRLF made LF: gemini compares them for
 * its "identical" error) and, from the fuzzy strategy, the 1-based line ranges it replaced.
 */
export const GEMINI_CLI_EDIT: EditMatcher = {
  name: "gemini-cli@0.61.0",
  chain: ["exact", "flexible", "regex", "fuzzy"],
  sources: ["npm:@google/gemini-cli@0.61.0:bundle/chunk-JDPZ4CE3.js (calculateReplacement and its strategies)"],
  replace(req: MatchRequest, chain = GEMINI_CLI_EDIT.chain): Match | Miss {
    const old = lf(req.old), neu = lf(req.neu);
    const detail = { finalOld: old, finalNew: neu };
    if (old === "") return { ok: false, reason: "not_found", detail };
    for (const name of chain) {
      const r = STRATEGIES[name](req.content, req, old, neu);
      if (!r) continue;
      const more = { ...detail, ...(r.fuzzyRanges ? { fuzzyRanges: r.fuzzyRanges } : {}) };
      if (req.all !== true && r.occurrences !== 1) {
        return { ok: false, reason: "ambiguous", count: r.occurrences, strategy: name, detail: more };
      }
      return { ok: true, content: r.newContent, count: r.occurrences, strategy: name, detail: more };
    }
    return { ok: false, reason: "not_found", detail };
  },
};
