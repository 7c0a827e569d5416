/**
 * Where a chunk's lines are in a file, found as codex 0.171.0 finds them
 * (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/apply-patch/src/seek_sequence.rs): four passes of
 * decreasing strictness (exact, trailing whitespace ignored, both ends trimmed, then typographic dashes, quotes and
 * spaces folded to ASCII), each scanning from `start`; the first position found wins, so an ambiguous context applies
 * at its first occurrence. A chunk marked end-of-file is only tried at the very end.
 */
import { rustTrim, rustTrimEnd } from "../../../lib/harness/lang/rust_str.ts";

const FOLD: Record<string, string> = {};
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212") FOLD[c] = "-";
for (const c of "\u2018\u2019\u201A\u201B") FOLD[c] = "'";
for (const c of "\u201C\u201D\u201E\u201F") FOLD[c] = '"';
for (const c of "\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000") FOLD[c] = " ";

function fold(s: string): string {
  let out = "";
  for (const c of rustTrim(s)) out += FOLD[c] ?? c;
  return out;
}

const PASSES: ((s: string) => string)[] = [(s) => s, rustTrimEnd, rustTrim, fold];

/** The index where `pattern` starts in `lines` at or after `start`, or -1. */
export function seekSequence(lines: string[], pattern: string[], start: number, eof: boolean): number {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return -1;
  const from = eof ? lines.length - pattern.length : start;
  const last = lines.length - pattern.length;
  for (const norm of PASSES) {
    const want = pattern.map(norm);
    outer: for (let i = from; i <= last; i++) {
      for (let k = 0; k < want.length; k++) if (norm(lines[i + k]) !== want[k]) continue outer;
      return i;
    }
  }
  return -1;
}
