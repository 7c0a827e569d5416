/**
 * How codex 0.171.0 words a unified-exec result (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:
 * codex-rs/core/src/tools/context.rs `ExecCommandToolOutput::response_text`, codex-rs/utils/output-truncation and
 * codex-rs/utils/string/src/truncate.rs): a header (`Chunk ID`, `Wall time: S.SSSS seconds`, `Process exited with
 * code N` or `Process running with session ID N`, `Original token count`), `Output:`, then the output cut in the
 * middle to the budget. For a model codex does not know, the budget is the fallback model's 10,000 bytes
 * (codex-rs/models-manager/src/model_info.rs `model_info_from_slug`) unless `max_output_tokens` asks for less;
 * the cut is marked `…N chars truncated…` (`…N tokens truncated…` under a token budget) and announced by a
 * `Warning: truncated output` line. Lengths are UTF-8 bytes, as Rust's.
 */

/** A truncation budget: bytes or (approximate, 4-byte) tokens. */
export type Policy = { bytes: number } | { tokens: number };

/** The fallback model's policy: 10,000 bytes. */
export const MODEL_POLICY: Policy = { bytes: 10_000 };
/** `max_output_tokens` when the call gives none. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

const byteBudget = (p: Policy) => "bytes" in p ? p.bytes : p.tokens * 4;
const ceilDiv4 = (n: number) => Math.floor((n + 3) / 4);

/** UTF-8 length of a string. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/** codex's `approx_token_count`: bytes / 4, rounded up. */
export function approxTokens(s: string): number {
  return ceilDiv4(utf8Length(s));
}

/** Keeps about `maxBytes` of `s`, half from each end on character boundaries, with the count of what went. */
function truncateWithByteEstimate(s: string, maxBytes: number, tokens: boolean): string {
  if (s === "") return "";
  const total = utf8Length(s);
  const chars = [...s];
  const marker = (n: number) => tokens ? `…${n} tokens truncated…` : `…${n} chars truncated…`;
  if (maxBytes === 0) return marker(tokens ? ceilDiv4(total) : chars.length);
  if (total <= maxBytes) return s;
  const left = Math.floor(maxBytes / 2), right = maxBytes - left;
  const tailStart = Math.max(0, total - right);
  let at = 0, prefixEnd = 0, suffixFrom = chars.length, removed = 0, started = false;
  for (let i = 0; i < chars.length; i++) {
    const len = utf8Length(chars[i]);
    if (at + len <= left) prefixEnd = i + 1;
    else if (at >= tailStart) {
      if (!started) [suffixFrom, started] = [i, true];
    } else removed++;
    at += len;
  }
  if (suffixFrom < prefixEnd) suffixFrom = prefixEnd;
  const removedUnits = tokens ? ceilDiv4(total - maxBytes) : removed;
  return chars.slice(0, prefixEnd).join("") + marker(removedUnits) + chars.slice(suffixFrom).join("");
}

/** codex's `truncate_text`. */
export function truncateText(s: string, p: Policy): string {
  if ("bytes" in p) return truncateWithByteEstimate(s, p.bytes, false);
  if (s === "") return "";
  if (p.tokens > 0 && utf8Length(s) <= p.tokens * 4) return s;
  return truncateWithByteEstimate(s, p.tokens * 4, true);
}

/** codex's `formatted_truncate_text`: the warning and line count, then the cut text. */
export function formattedTruncateText(s: string, p: Policy): string {
  if (utf8Length(s) <= byteBudget(p)) return s;
  const lines = s === "" ? 0 : s.replace(/\n$/, "").split("\n").length;
  return `Warning: truncated output (original token count: ${approxTokens(s)})\nTotal output lines: ${lines}\n\n${
    truncateText(s, p)
  }`;
}

/** One unified-exec result, before wording. */
export interface ExecResponse {
  /** Six hex digits, or "" (an intercepted patch has none). */
  chunkId: string;
  /** Seconds spent waiting. */
  wallSeconds: number;
  /** Set when the process ended during the call. */
  exitCode: number | null;
  /** Set while the process keeps running. */
  sessionId: number | null;
  /** Approximate tokens of all the output the call collected (null: not shown). */
  originalTokenCount: number | null;
  /** The collected output (head and tail, with codex's omission marker when it overflowed 1 MiB). */
  output: string;
  /** Bytes left out of the middle by the 1 MiB buffer (0 when none). */
  omittedBytes: number;
  /** The call's `max_output_tokens`, if given. */
  maxOutputTokens?: number;
}

/** The marker codex puts between the head and tail it kept of an overflowing buffer. */
export const omissionMarker = (bytes: number) => `... ${bytes} bytes omitted ...`;

function truncatedOutput(r: ExecResponse, p: Policy): string {
  const text = r.output;
  if (!r.omittedBytes) return formattedTruncateText(text, p);
  const marker = omissionMarker(r.omittedBytes);
  if (utf8Length(text) <= byteBudget(p)) return text.includes(marker) ? text : `${marker}\n${text}`;
  const original = r.originalTokenCount ?? approxTokens(text);
  const cut = truncateText(text, p);
  return `Warning: truncated output (original token count: ${original})\n${
    cut.includes(marker) ? "" : `${marker}\n`
  }\n${cut}`;
}

/** The header lines of a result. */
export function responseHeader(r: ExecResponse): string {
  const lines: string[] = [];
  if (r.chunkId) lines.push(`Chunk ID: ${r.chunkId}`);
  lines.push(`Wall time: ${r.wallSeconds.toFixed(4)} seconds`);
  if (r.exitCode !== null) lines.push(`Process exited with code ${r.exitCode}`);
  if (r.sessionId !== null) lines.push(`Process running with session ID ${r.sessionId}`);
  if (r.originalTokenCount !== null) lines.push(`Original token count: ${r.originalTokenCount}`);
  lines.push("Output:");
  return lines.join("\n");
}

/** The whole result text, as codex sends it back as the call's output. */
export function responseText(r: ExecResponse): string {
  const header = responseHeader(r);
  const requested: Policy = { tokens: r.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS };
  let policy: Policy = byteBudget(requested) < byteBudget(MODEL_POLICY) ? requested : MODEL_POLICY;
  // The history's own serialisation budget (1.2 × the model's), less the header: cut again until the output fits.
  const budget = Math.max(0, Math.ceil(byteBudget(MODEL_POLICY) * 1.2) - (utf8Length(header) + 1));
  let out = truncatedOutput(r, policy);
  while (utf8Length(out) > budget && byteBudget(policy) > 0) {
    const excess = utf8Length(out) - budget;
    policy = "bytes" in policy
      ? { bytes: Math.max(0, policy.bytes - excess) }
      : { tokens: Math.max(0, policy.tokens - ceilDiv4(excess)) };
    out = truncatedOutput(r, policy);
  }
  return `${header}\n${out}`;
}
