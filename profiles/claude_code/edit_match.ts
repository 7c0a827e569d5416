/**
 * claude-code 2.1.332's Edit near-miss rules, read from the JavaScript inside its native binary and confirmed by
 * recording the real harness against the stub (tests/golden/claude-code/near_miss.json).
 *
 * Before the tool runs, its input normaliser reads the file: new_string loses each line's trailing whitespace (not in
 * `.md`/`.mdx` files), and an old_string the file lacks is "desanitized" (`<fnr>` → `<function_results>`, ...) when
 * that form is in the file. The tool then looks for the *actual* file string: exact, else with curly quotes folded to
 * straight ones on both sides (same length, so the file's span is cut out at the same offset), else with `\uXXXX`
 * escapes swapped for their characters, either way. What is replaced is that actual string; new_string takes the
 * file's quote style (or escape style) when the match was not exact. Ambiguity counts exact occurrences of the actual
 * string, so other quote styles of the same text never count, and replace_all replaces only that one spelling.
 */
import type { EditMatcher, Match, MatchRequest, Miss } from "../../lib/harness/tools/edit_match/types.ts";

/** A request as claude-code's Edit sees it: the file's path decides whether new_string keeps trailing whitespace. */
export interface ClaudeCodeMatchRequest extends MatchRequest {
  /** The file's path; without one new_string is taken as given (no trailing-whitespace strip). */
  path?: string;
}

/** The tool's error texts by the `Miss.reason` this matcher reports (the binding adds "\nString: " + inputOld). */
export const CLAUDE_CODE_EDIT_MESSAGES: Readonly<Record<string, string>> = {
  not_found: "String to replace not found in file.",
  identical: "No changes to make: old_string and new_string are exactly the same.",
  exists: "Cannot create new file - file already exists.",
  // Thrown while applying (is_error, but not wrapped in <tool_use_error> in the recording).
  unchanged: "String not found in file. Failed to apply edit.",
};

/** Appended to not_found when old_string holds a non-ASCII character or a `\uXXXX` escape. */
export const ESCAPE_NOTE = "\n(note: Edit also tried swapping \\uXXXX escapes and their characters; neither form " +
  "matched, so the mismatch is likely elsewhere in old_string. Re-read the file and copy the exact surrounding text.)";

/** The tokens the API sanitizes in model output, and what the file holds instead (the bundle's table, in order). */
export const DESANITIZE: ReadonlyArray<readonly [string, string]> = [
  ["<fnr>", "<function_results>"],
  ["<n>", "<name>"],
  ["</n>", "</name>"],
  ["<o>", "<output>"],
  ["</o>", "</output>"],
  ["<e>", "<error>"],
  ["</e>", "</error>"],
  ["<s>", "<system>"],
  ["</s>", "</system>"],
  ["<r>", "<result>"],
  ["</r>", "</result>"],
  ["< META_START >", "<META_START>"],
  ["< META_END >", "<META_END>"],
  ["< EOT >", "<EOT>"],
  ["< META >", "<META>"],
  ["< SOS >", "<SOS>"],
  ["\n\nH:", "\n\nHuman:"],
  ["\n\nA:", "\n\nAssistant:"],
];

const [LSQ, RSQ, LDQ, RDQ] = ["\u2018", "\u2019", "\u201C", "\u201D"];
/** A `\uXXXX` escape written out in text. */
const ESCAPE = /\\u[0-9a-fA-F]{4}/;
/** A character outside ASCII (one UTF-16 unit; astral characters are two). */
const NON_ASCII = /[\u0080-\uffff]/;

/** Folds the four curly quotes to straight ones; length-preserving, so offsets carry over. */
export function normalizeQuotes(s: string): string {
  return s.replaceAll(LSQ, "'").replaceAll(RSQ, "'").replaceAll(LDQ, '"').replaceAll(RDQ, '"');
}

/** Drops each line's trailing whitespace (`\s`: NBSP too), keeping the line breaks (LF, CRLF or CR) as they are. */
export function stripTrailingWhitespace(s: string): string {
  return s.split(/(\r\n|\n|\r)/).map((p, i) => i % 2 === 0 ? p.replace(/\s+$/, "") : p).join("");
}

/** claude-code's markdown test: those files keep new_string's trailing whitespace (hard line breaks). */
export const isMarkdown = (path: string) => /\.(md|mdx)$/i.test(path);

/** Turns `\uXXXX` escapes into characters; an escaped backslash (`\\`) is skipped so `\\u0041` stays as written. */
function unescape(s: string): string {
  return s.replace(
    /(\\\\)|\\u([0-9a-fA-F]{4})/g,
    (m, bs, hex) => bs !== undefined ? m : String.fromCharCode(parseInt(hex, 16)),
  );
}

/** The length of `s` with every non-ASCII unit written as a 6-character `\uXXXX`. */
const escapedLength = (s: string) => s.length + 5 * [...s.matchAll(/[\u0080-\uffff]/g)].length;

/** Backslashes immediately before offset `at` (odd: the character at `at` is escaped). */
function backslashesBefore(s: string, at: number): number {
  let n = 0;
  while (s[at - 1 - n] === "\\") n++;
  return n;
}

/** The text in `content` that is `old` with each non-ASCII unit written as `\uXXXX` (hex in either case), or null. */
function findEscaped(old: string, content: string): string | null {
  if (backslashesBefore(old, old.length) % 2 === 1) return null;
  // Offsets (in the escaped form) whose backslash must not itself be escaped in the file.
  const checks = old[0] === "\\" ? [0] : [];
  let source = "", at = 0;
  for (let i = 0; i < old.length; i++) {
    const code = old.charCodeAt(i);
    if (code < 128) {
      at += 1;
      source += old[i].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      continue;
    }
    checks.push(at);
    at += 6;
    const hex = [...code.toString(16).padStart(4, "0")];
    source += "\\\\u" + hex.map((d) => d >= "a" ? `[${d}${d.toUpperCase()}]` : d).join("");
  }
  let re: RegExp;
  try {
    re = new RegExp(source, "g");
  } catch {
    return null; // claude-code logs and skips the search when the engine refuses the pattern
  }
  for (let m = re.exec(content); m !== null; m = re.exec(content)) {
    const c = m.index;
    // The first real escape wins, and only if it is also the first place that exact text occurs.
    if (checks.every((f) => backslashesBefore(content, c + f) % 2 === 0)) {
      return content.indexOf(m[0]) === c ? m[0] : null;
    }
    re.lastIndex = c + 1;
  }
  return null;
}

/** What the input normaliser and the tool make of the request before looking for old_string. */
export interface NormalizedInput {
  /** old_string as the tool uses it (and echoes it in the transcript, and quotes it after "String: "). */
  old: string;
  /** new_string as the tool uses it. */
  neu: string;
  /** The sanitized tokens swapped back, when old_string was desanitized. */
  desanitized?: string[];
}

/**
 * claude-code's input normalisation (run on every Edit call before validation, so "No changes to make" is decided on
 * its output): new_string's trailing whitespace stripped outside markdown, then, when `desanitized` is in `chain` and
 * the file lacks old_string but holds its desanitized form, both strings desanitized with the same replacements.
 */
export function normalizeEditInput(req: ClaudeCodeMatchRequest, chain: readonly string[]): NormalizedInput {
  const neu = req.path !== undefined && !isMarkdown(req.path) ? stripTrailingWhitespace(req.neu) : req.neu;
  if (!chain.includes("desanitized") || req.content.includes(req.old)) return { old: req.old, neu };
  let old = req.old;
  const applied: [string, string][] = [];
  for (const [from, to] of DESANITIZE) {
    const before = old;
    old = old.replaceAll(from, to);
    if (old !== before) applied.push([from, to]);
  }
  if (applied.length === 0 || !req.content.includes(old)) return { old: req.old, neu };
  const out = applied.reduce((s, [from, to]) => s.replaceAll(from, to), neu);
  return { old, neu: out, desanitized: applied.map(([from]) => from) };
}

/** claude-code's findActualString: the file's own text for `old` and the strategy that found it, within `chain`. */
export function findActualString(
  content: string,
  old: string,
  chain: readonly string[],
): { actual: string; strategy: string } | null {
  if (content.includes(old)) return { actual: old, strategy: "exact" };
  if (chain.includes("quote_normalized")) {
    const at = normalizeQuotes(content).indexOf(normalizeQuotes(old));
    if (at !== -1) return { actual: content.substring(at, at + old.length), strategy: "quote_normalized" };
  }
  if (chain.includes("unicode_unescaped") && ESCAPE.test(old)) {
    const u = unescape(old);
    if (u !== old && content.includes(u)) return { actual: u, strategy: "unicode_unescaped" };
  }
  if (chain.includes("unicode_escaped") && NON_ASCII.test(old)) {
    if (escapedLength(old) > content.length || !content.includes("\\u")) return null;
    const e = findEscaped(old, content);
    if (e !== null) return { actual: e, strategy: "unicode_escaped" };
  }
  return null;
}

/** Whether a quote at `i` opens: at the start, or after whitespace, an opening bracket or a dash. */
function opens(chars: string[], i: number): boolean {
  return i === 0 || [" ", "\t", "\n", "\r", "(", "[", "{", "\u2014", "\u2013"].includes(chars[i - 1]);
}

/**
 * claude-code's preserveQuoteStyle: when the match was not exact and the actual string holds curly double (single)
 * quotes, new_string's straight double (single) quotes become curly. `"` opens (“) by `opens`, else closes (”); `'`
 * between two letters is an apostrophe (’), else opens (‘) or closes (’) like `"`.
 */
export function preserveQuoteStyle(old: string, actual: string, neu: string): string {
  if (old === actual) return neu;
  const double = actual.includes(LDQ) || actual.includes(RDQ), single = actual.includes(LSQ) || actual.includes(RSQ);
  let out = neu;
  if (double) {
    const cs = [...out];
    out = cs.map((c, i) => c === '"' ? (opens(cs, i) ? LDQ : RDQ) : c).join("");
  }
  if (single) {
    const cs = [...out], letter = (c: string | undefined) => c !== undefined && /\p{L}/u.test(c);
    out = cs.map((c, i) => c !== "'" ? c : letter(cs[i - 1]) && letter(cs[i + 1]) ? RSQ : opens(cs, i) ? LSQ : RSQ)
      .join("");
  }
  return out;
}

/**
 * The escape half of claude-code's new_string transform: when the actual string is old_string with `\uXXXX` escapes,
 * new_string's non-ASCII characters are escaped too (a character seen in the match keeps the file's hex, others use
 * the case most of the file's hex letters had); when old_string's escapes were unescaped to match, so are new_string's.
 */
export function preserveEscapes(old: string, actual: string, neu: string): string {
  if (old === actual) return neu;
  if (NON_ASCII.test(old) && escapedLength(old) === actual.length && findEscaped(old, actual) !== null) {
    const hexOf = new Map<number, string>();
    let upper = 0, lower = 0, c = 0;
    for (let u = 0; u < old.length; u++) {
      const code = old.charCodeAt(u);
      if (code < 128) {
        c += 1;
        continue;
      }
      const hex = actual.slice(c + 2, c + 6);
      hexOf.set(code, hex);
      for (const d of hex) (d >= "a" && d <= "f") ? lower++ : (d >= "A" && d <= "F") ? upper++ : 0;
      c += 6;
    }
    return neu.replace(/[\u0080-\uffff]/g, (ch) => {
      const known = hexOf.get(ch.charCodeAt(0));
      if (known !== undefined) return "\\u" + known;
      const hex = ch.charCodeAt(0).toString(16).padStart(4, "0");
      return "\\u" + (upper > lower ? hex.toUpperCase() : hex);
    });
  }
  if (ESCAPE.test(old) && unescape(old) === actual) return unescape(neu);
  return neu;
}

const occurrences = (content: string, s: string) => content.split(s).length - 1;

/** An `EditMatcher` whose `replace` also takes the file's path. */
export interface ClaudeCodeEditMatcher extends EditMatcher {
  /** Runs the chain (or the given prefix of it) on one request; `path` turns on the trailing-whitespace strip. */
  replace(req: ClaudeCodeMatchRequest, chain?: readonly string[]): Match | Miss;
}

/** claude-code 2.1.332's Edit matcher. */
export const CLAUDE_CODE_EDIT: ClaudeCodeEditMatcher = {
  name: "claude-code@2.1.332",
  chain: ["exact", "desanitized", "quote_normalized", "unicode_unescaped", "unicode_escaped"],
  sources: [
    "npm:@anthropic-ai/claude-code@2.1.332:bin/claude.exe (the Edit tool's normalizeToolInput case, input " +
    "normaliser, findActualString, preserveQuoteStyle, escape helpers and applyEdits, read with strings)",
    "tests/golden/claude-code/near_miss.json (32 Edit calls recorded against the stub, with the files before and after)",
  ],
  replace(req: ClaudeCodeMatchRequest, chain: readonly string[] = CLAUDE_CODE_EDIT.chain): Match | Miss {
    const { content, all = false } = req;
    const input = normalizeEditInput(req, chain), { old, neu } = input;
    const base = { inputOld: old, inputNew: neu, ...(input.desanitized && { desanitized: input.desanitized }) };
    const first = input.desanitized ? "desanitized" : "exact";
    if (old === neu) return { ok: false, reason: "identical", detail: base };
    if (old === "") {
      // Only an empty (or blank) file can be "created" over; its whole text becomes new_string.
      if (content.trim() !== "") return { ok: false, reason: "exists", detail: base };
      if (neu === content) return { ok: false, reason: "unchanged", strategy: first, detail: base };
      return { ok: true, content: neu, count: 1, strategy: first, detail: { ...base, actualOld: "", actualNew: neu } };
    }
    const found = findActualString(content, old, chain);
    if (!found) {
      // The note claims the escape swaps were tried: only true when the chain has them.
      const note = chain.some((s) => s.startsWith("unicode_")) && (ESCAPE.test(old) || NON_ASCII.test(old));
      return { ok: false, reason: "not_found", detail: { ...base, escapeNote: note } };
    }
    const { actual } = found, strategy = found.strategy === "exact" ? first : found.strategy;
    const at = content.indexOf(actual);
    if (!all && content.indexOf(actual, at + actual.length) !== -1) {
      return {
        ok: false,
        reason: "ambiguous",
        count: occurrences(content, actual),
        strategy,
        detail: { ...base, actualOld: actual },
      };
    }
    const actualNew = preserveEscapes(old, actual, preserveQuoteStyle(old, actual, neu));
    // Deleting text also deletes the newline after it, when the file has one there.
    const target = actualNew === "" && !actual.endsWith("\n") && content.includes(actual + "\n")
      ? actual + "\n"
      : actual;
    const after = all ? content.replaceAll(target, () => actualNew) : content.replace(target, () => actualNew);
    const detail = { ...base, actualOld: actual, actualNew, ...(target !== actual && { deletedNewline: true }) };
    if (after === content) return { ok: false, reason: "unchanged", strategy, detail };
    return { ok: true, content: after, count: all ? occurrences(content, target) : 1, strategy, detail };
  },
};
