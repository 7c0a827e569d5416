/**
 * hermes-agent's `fuzzy_find_and_replace` (tools/fuzzy_match.py): the nine-strategy chain of hermes_strategies.ts,
 * the first strategy with any match deciding; its guards (a blank old_string, several matches without replace_all,
 * several similarity matches under replace_all, escape drift, an indent typo); and its replacement, which for a
 * non-exact match re-indents new_string onto the file's indent, turns literal `\t`/`\r` into the characters when the
 * matched text has them (exact matches too), and keeps the file's typographic characters after a unicode match.
 * Replacements run from the last span to the first. The tool layer (file_operations.py `patch_replace`) drops the
 * strategy name; its no-match wording (already-applied, "Did you mean") is exported here for the binding.
 *
 * Read at 02022048, the store's late-2026 revision of the file (the pin e6899c8 itself is not in the store), the same
 * generation as the file_operations.py the hermes binding follows (it unpacks the four-value result read here).
 */
import { SequenceMatcher } from "../../lib/harness/lang/py_difflib.ts";
import { pyRepr } from "../../lib/harness/lang/python_text.ts";
import { pyIsBlank, pyStrip } from "../../lib/harness/lang/python_values.ts";
import {
  invertNormMap,
  origToNormMap,
  pyRstrip,
  SIMILARITY_STRATEGIES,
  type Span,
  STRATEGIES,
  unicodeNormalize,
} from "./edit_strategies.ts";
import type { EditMatcher, Match, MatchRequest, Miss } from "../../lib/harness/tools/edit_match/types.ts";

const NAMES = STRATEGIES.map(([n]) => n);
const BY_NAME = new Map(STRATEGIES);

/** Code points, as Python counts and slices a str. */
const cps = (s: string) => Array.from(s);

/** `_format_match_locations`: `  L<line>: <stripped line>` for the first five spans, then `  ... and N more`. */
function locations(content: string, spans: Span[]): string {
  const rows = spans.slice(0, 5).map(([start]) => {
    const lineNo = (content.slice(0, start).match(/\n/g)?.length ?? 0) + 1;
    // rfind("\n", 0, start): JS lastIndexOf would look at index 0 for start 0.
    const ls = start > 0 ? content.lastIndexOf("\n", start - 1) + 1 : 0;
    let le = content.indexOf("\n", ls);
    if (le < 0) le = content.length;
    let snippet = pyStrip(content.slice(ls, le));
    if (cps(snippet).length > 80) snippet = cps(snippet).slice(0, 77).join("") + "...";
    return `  L${lineNo}: ${snippet}`;
  });
  if (spans.length > 5) rows.push(`  ... and ${spans.length - 5} more`);
  return rows.join("\n");
}

const regions = (content: string, spans: Span[]) => spans.map(([s, e]) => content.slice(s, e)).join("");

/** `_detect_escape_drift`: `\'` or `\"` in both strings but not in the matched text is transport damage. */
function escapeDrift(content: string, spans: Span[], old: string, neu: string): string | undefined {
  if (!neu.includes("\\'") && !neu.includes('\\"')) return;
  const matched = regions(content, spans);
  for (const suspect of ["\\'", '\\"']) {
    if (neu.includes(suspect) && old.includes(suspect) && !matched.includes(suspect)) {
      return `Escape-drift detected: old_string and new_string contain the literal sequence ${pyRepr(suspect)} but ` +
        "the matched region of the file does not. This is almost always a tool-call serialization artifact where an " +
        "apostrophe or quote got prefixed with a spurious backslash. Re-read the file with read_file and pass " +
        `old_string/new_string without backslash-escaping ${pyRepr(suspect[1])} characters.`;
    }
  }
}

/** `_leading_whitespace`: the run of spaces and tabs (only those) a line starts with. */
const indentOf = (line: string) => line.match(/^[ \t]*/)![0];
const OPENERS = [":", "{", "("];
const opens = (l: string) => OPENERS.some((o) => pyRstrip(l).endsWith(o));

/** `_detect_rogue_indent`: new lines deeper than old_string's deepest line, with no block opener in either string. */
function rogueIndent(old: string, neu: string): string | undefined {
  const ol = old.split("\n").filter((l) => !pyIsBlank(l)), nl = neu.split("\n").filter((l) => !pyIsBlank(l));
  if (!ol.length || !nl.length) return;
  const maxOld = Math.max(...ol.map((l) => indentOf(l).length));
  if (ol.some(opens) || nl.some(opens)) return;
  const deeper = nl.filter((l) => indentOf(l).length > maxOld);
  if (!deeper.length) return;
  const sample = cps(pyStrip(deeper[0])).slice(0, 60).join("");
  return `Suspicious indentation in new_string: ${deeper.length} line(s) indented deeper than old_string's max ` +
    `indent (${maxOld} spaces), but neither old_string nor new_string opens a nesting block (':', '{', '('). ` +
    `Likely a model indent typo — check the indentation of: ${pyRepr(sample)}`;
}

/** `_maybe_unescape_new_string`: literal `\t` / `\r` become the characters when the matched text holds them. */
function unescapeNew(neu: string, content: string, spans: Span[]): string {
  if (!neu.includes("\\t") && !neu.includes("\\r")) return neu;
  const matched = regions(content, spans);
  let out = neu;
  if (out.includes("\\t") && matched.includes("\t")) out = out.replaceAll("\\t", "\t");
  if (out.includes("\\r") && matched.includes("\r")) out = out.replaceAll("\\r", "\r");
  return out;
}

/**
 * `_preserve_unicode_in_replacement`: diff the normalised old_string against new_string (SequenceMatcher opcodes, in
 * code points) and rebuild from the file's own text for the equal runs, so unchanged typography survives. All the
 * spans' text is taken together, as hermes does; with one span that is the span.
 */
function preserveUnicode(content: string, spans: Span[], old: string, neu: string): string {
  const region = regions(content, spans);
  const normOld = unicodeNormalize(old);
  if (normOld !== unicodeNormalize(region)) return neu;
  const fr = cps(region), nw = cps(neu);
  const o2n = origToNormMap(fr), n2o = invertNormMap(o2n);
  const parts: string[] = [];
  for (const [tag, i1, i2, j1, j2] of new SequenceMatcher(normOld, neu).getOpcodes()) {
    if (tag === "equal") {
      const s = n2o.get(i1) ?? 0;
      let e = s;
      while (e < fr.length && o2n[e] < i2) e++;
      parts.push(fr.slice(s, e).join(""));
    } else if (tag !== "delete") parts.push(nw.slice(j1, j2).join(""));
  }
  return parts.join("");
}

/** `_first_meaningful_line`: the first non-blank line. */
const firstLine = (s: string) => s.split("\n").find((l) => !pyIsBlank(l));

/**
 * `_reindent_replacement`: when old_string's first non-blank line is indented differently from the matched text's,
 * each non-blank new line swaps old_string's base indent for the file's (a shallower line gets the file's base).
 * Equal base indents leave new_string as sent, literally.
 */
function reindent(region: string, old: string, neu: string): string {
  if (!neu) return neu;
  const of = firstLine(old), ff = firstLine(region);
  if (of === undefined || ff === undefined) return neu;
  const oi = indentOf(of), fi = indentOf(ff);
  if (oi === fi) return neu;
  return neu.split("\n").map((l) =>
    pyIsBlank(l) ? l : indentOf(l).startsWith(oi) ? fi + l.slice(oi.length) : fi + l.replace(/^[ \t]+/, "")
  ).join("\n");
}

/** `_apply_replacements`: last span first, each re-indented against its own matched text when the match was fuzzy. */
function apply(content: string, spans: Span[], neu: string, old: string | undefined): string {
  let out = content;
  for (const [s, e] of [...spans].sort((a, b) => b[0] - a[0])) {
    out = out.slice(0, s) + (old === undefined ? neu : reindent(content.slice(s, e), old, neu)) + out.slice(e);
  }
  return out;
}

const miss = (reason: string, error: string, more: Partial<Miss> = {}): Miss => ({
  ok: false,
  reason,
  ...more,
  detail: { error, ...more.detail },
});

/** hermes' error when no strategy matched. */
export const HERMES_NOT_FOUND = "Could not find a match for old_string in the file";

/** `fuzzy_find_and_replace(content, old, neu, all)` over `chain` (hermes' whole chain by default). */
function replace(req: MatchRequest, chain: readonly string[] = NAMES): Match | Miss {
  const { content, old, neu } = req, all = req.all === true;
  if (!old) return miss("empty", "old_string cannot be empty");
  if (pyIsBlank(old)) return miss("blank", "old_string is only whitespace — provide non-blank text to match");
  if (old === neu) return miss("identical", "old_string and new_string are identical");
  for (const name of chain) {
    const fn = BY_NAME.get(name);
    if (!fn) throw new Error(`hermes edit matcher: unknown strategy ${name}`);
    const spans = fn(content, old);
    if (!spans.length) continue;
    const n = spans.length, at = { count: n, strategy: name, detail: { spans } };
    if (n > 1 && !all) {
      return miss(
        "ambiguous",
        `Found ${n} matches for old_string. Provide more context to make it unique, or use replace_all=True. ` +
          `Matches:\n${locations(content, spans)}`,
        at,
      );
    }
    if (all && n > 1 && SIMILARITY_STRATEGIES.has(name)) {
      return miss(
        "approximate_replace_all",
        `Found ${n} approximate matches via the '${name}' strategy; replace_all only applies to exact matches. ` +
          "Provide the precise text (whitespace included) so an exact/line-trimmed match can be made.",
        at,
      );
    }
    if (name !== "exact") {
      const drift = escapeDrift(content, spans, old, neu);
      if (drift) return miss("escape_drift", drift, at);
      const typo = rogueIndent(old, neu);
      if (typo) return miss("rogue_indent", typo, at);
    }
    let eff = unescapeNew(neu, content, spans);
    if (name === "unicode_normalized") eff = preserveUnicode(content, spans, old, eff);
    return {
      ok: true,
      content: apply(content, spans, eff, name === "exact" ? undefined : old),
      count: n,
      strategy: name,
      detail: { spans },
    };
  }
  return miss("not_found", HERMES_NOT_FOUND);
}

/** hermes' patch matcher (`fuzzy_find_and_replace`); `Miss.detail.error` is hermes' error string. */
export const HERMES_EDIT: EditMatcher = {
  name: "hermes@main-e6899c8",
  chain: NAMES,
  sources: [
    "NousResearch/hermes-agent@020220480df0b52a65af63344034b0622b780f76:tools/fuzzy_match.py",
    "NousResearch/hermes-agent@000429aaabb04a747d2541554d39394cab850bf0:tools/file_operations.py",
  ],
  replace,
};

/**
 * `is_already_applied`: the edit is already in the file (new_string of 8+ stripped characters present exactly, and
 * old_string equal to it or gone). patch_replace checks it before reporting any matcher error and then answers a
 * success without a write.
 */
export function hermesAlreadyApplied(content: string, old: string, neu: string): boolean {
  if (!neu || cps(pyStrip(neu)).length < 8 || !content.includes(neu)) return false;
  return old === neu || !content.includes(old);
}

// Python's line boundaries for str.splitlines() (built from text: the set includes control characters).
const BREAKS = "\\n\\r\\v\\f\\x1c\\x1d\\x1e\\x85\\u2028\\u2029";
const SPLIT = new RegExp(`\\r\\n|[${BREAKS}]`), ENDS_BROKEN = new RegExp(`[${BREAKS}]$`);

/** Python's `str.splitlines()` (no keepends): every Python line boundary, no empty last piece. */
function splitlines(s: string): string[] {
  if (!s) return [];
  const parts = s.split(SPLIT);
  if (ENDS_BROKEN.test(s)) parts.pop();
  return parts;
}

/** `_visualize_whitespace`: the leading run shown as → (tab) and · (space). */
const visualize = (l: string) => indentOf(l).replace(/\t/g, "→").replace(/ /g, "·") + l.slice(indentOf(l).length);

/**
 * `format_no_match_hint` for a not-found miss (`find_closest_lines`): "\n\nDid you mean one of these sections?\n"
 * and up to three numbered snippets around the lines most like old_string's first non-blank line (ratio > 0.3),
 * with a whitespace diagnosis when the best line differs only in whitespace; "" when nothing scores.
 */
export function hermesNoMatchHint(content: string, old: string): string {
  if (!old || !content) return "";
  const ol = splitlines(old), cl = splitlines(content);
  if (!ol.length || !cl.length) return "";
  const anchor = pyStrip(ol.find((l) => !pyIsBlank(l)) ?? "");
  if (!anchor) return "";
  const scored: [number, number][] = [];
  cl.forEach((line, i) => {
    const st = pyStrip(line);
    if (!st) return;
    const r = new SequenceMatcher(anchor, st).ratio();
    if (r > 0.3) scored.push([r, i]);
  });
  if (!scored.length) return "";
  const top = scored.sort((a, b) => b[0] - a[0]).slice(0, 3); // stable, as Python's sort
  const seen = new Set<string>(), parts: string[] = [];
  for (const [, idx] of top) {
    const start = Math.max(0, idx - 2), end = Math.min(cl.length, idx + ol.length + 2);
    if (seen.has(`${start},${end}`)) continue;
    seen.add(`${start},${end}`);
    parts.push(cl.slice(start, end).map((l, j) => `${String(start + j + 1).padStart(4)}| ${l}`).join("\n"));
  }
  let out = parts.join("\n---\n");
  const best = cl[top[0][1]];
  if (pyStrip(best) === anchor && best !== ol[0]) {
    out += `\n\nWhitespace difference detected (→ = tab, · = space):\n  file has: ${visualize(best)}\n` +
      `  you sent: ${visualize(ol[0])}\nUse the exact whitespace shown in 'file has'.`;
  }
  return "\n\nDid you mean one of these sections?\n" + out;
}
