/**
 * hermes' read_file, write_file and patch (tools/file_tools.py, tools/file_operations.py and the result classes of
 * tools/file_operations_common.py, read at a later main than the pin). patch runs hermes' fuzzy chain
 * (profiles/hermes/edit_match.ts) and writes back in the file's line endings; lint/LSP reports,
 * is_already_applied's no-op success and the read dedup/loop guards are not emulated.
 */
import { HERMES_EDIT, hermesNoMatchHint } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";
import { posix } from "node:path";
import { shQuote, text } from "../../lib/runtime/channel.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { OpError, readBytes, write } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { pyDumps, toolError } from "./json.ts";
import { pyRepr } from "../../lib/harness/lang/python_text.ts";
import { DIFF_PY } from "./diff_py.ts";

const MAX_READ_CHARS = 100_000;
const MAX_LINE_LENGTH = 2000;
const MAX_LINES = 2000;
const READ = "hermes.read";
const FAILURES = "hermes.patch_failures";

/** Paths read (or written) in this episode, for the read-first rule. */
function readSet(s: Session): Set<string> {
  let r = s.state.get(READ) as Set<string> | undefined;
  if (!r) s.state.set(READ, r = new Set());
  return r;
}

/** Python's `{n:,}`. */
const commas = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** ReadResult.to_dict(): fields in order, None and [] dropped. */
function readResult(r: {
  content?: string;
  total_lines?: number;
  file_size?: number;
  truncated?: boolean;
  hint?: string;
  is_binary?: boolean;
  error?: string;
  similar_files?: string[];
}): Record<string, unknown> {
  return {
    content: r.content ?? "",
    total_lines: r.total_lines ?? 0,
    file_size: r.file_size ?? 0,
    truncated: r.truncated ?? false,
    hint: r.hint,
    is_binary: r.is_binary ?? false,
    is_image: false,
    error: r.error,
    similar_files: r.similar_files?.length ? r.similar_files : undefined,
  };
}

/** `_suggest_similar_files`: up to 5 names of the same directory, best score first (difflib ratio: approx.). */
async function similarFiles(s: Session, path: string): Promise<string[]> {
  const dir = posix.dirname(path) || ".";
  const name = posix.basename(path), lower = name.toLowerCase();
  const ext = posix.extname(name).toLowerCase(), stem = name.slice(0, name.length - ext.length).toLowerCase();
  const r = await s.box.exec(`ls -1 ${shQuote(dir)} 2>/dev/null | head -50`, { shell: "sh", timeoutSec: 30 });
  const scored: [number, string][] = [];
  for (const f of text(r.stdout).trim().split("\n").filter(Boolean)) {
    const lf = f.toLowerCase();
    const fe = posix.extname(f).toLowerCase(), fs = f.slice(0, f.length - fe.length).toLowerCase();
    let score = 0;
    if (lf === lower) score = 100;
    else if (fs === stem) score = 90;
    else if (lf.startsWith(lower) || lower.startsWith(lf)) score = 70;
    else if (lf.includes(lower)) score = 60;
    else if (lower.includes(lf) && lf.length > 2) score = 40;
    else if (ext && fe === ext) {
      const common = [...new Set(lower)].filter((c) => lf.includes(c)).length;
      if (common >= Math.max(lower.length, lf.length) * 0.4) score = 30;
    }
    if (score > 0) scored.push([score, posix.join(dir, f)]);
  }
  return scored.sort((a, b) => b[0] - a[0]).slice(0, 5).map((x) => x[1]);
}

const MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image data"],
  [[0xff, 0xd8, 0xff], "JPEG image data"],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive (also docx/xlsx/jar/apk)"],
  [[0x1f, 0x8b], "gzip compressed data"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
];

/** describe_binary_file (a subset of hermes' magic table; others read `unknown binary`: approx.). */
function describeBinary(sample: Uint8Array, size: number): string {
  const kind = MAGIC.find(([m]) => m.every((b, i) => sample[i] === b))?.[1] ?? approx("unknown binary");
  const sz = size >= 1 << 20
    ? `${(size / (1 << 20)).toFixed(1)} MB`
    : size >= 1024
    ? `${(size / 1024).toFixed(1)} KB`
    : `${size} bytes`;
  return `Binary file (${kind}, ${sz}) — cannot display as text.`;
}

function isBinary(sample: Uint8Array): boolean {
  if (sample.includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(sample);
    return false;
  } catch {
    // A multibyte character cut at the sample's end is not binary.
    for (let k = 1; k <= 3 && k < sample.length; k++) {
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(sample.slice(0, sample.length - k));
        return false;
      } catch { /* keep trying */ }
    }
    return true;
  }
}

const int = (v: unknown, d: number) => {
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : d;
};

/** read_file(path, offset, limit). */
export async function readFileTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const path = typeof args.path === "string" ? args.path : "";
  const offset = Math.max(1, int(args.offset ?? 1, 1));
  const limit = Math.max(1, Math.min(int(args.limit ?? 500, 2000), MAX_LINES));
  const abs = s.abspath(path);
  let data: Uint8Array, size: number;
  try {
    ({ data, size } = await readBytes(s.box, abs));
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    if (e.kind === "not_found") {
      return pyDumps(readResult({ error: `File not found: ${path}`, similar_files: await similarFiles(s, path) }));
    }
    if (e.kind === "is_dir") {
      return pyDumps(readResult({
        error: `Cannot read '${path}': not a regular file (directory, FIFO, socket, or device). Reading it could ` +
          "block indefinitely.",
      }));
    }
    return pyDumps(readResult({ error: `Failed to read file: ${String(e.data.message ?? e.kind)}` }));
  }
  if (isBinary(data.slice(0, 1000))) {
    return pyDumps(readResult({ is_binary: true, file_size: size, error: describeBinary(data, size) }));
  }
  readSet(s).add(abs);
  const body = new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
  if (size === 0) return pyDumps(readResult({ hint: "File is empty (0 bytes)." }));
  // `sed -n 'a,bp' | cut`: every printed line newline-terminated; `wc -l` counts newlines.
  const lines = body.split("\n");
  if (body.endsWith("\n")) lines.pop();
  const totalLines = (body.match(/\n/g) ?? []).length;
  const endLine = offset + limit - 1;
  let page = lines.slice(offset - 1, endLine).map((l) => l + "\n").join("");
  if (offset === 1 && page.startsWith("\ufeff")) page = page.slice(1);
  const truncated = totalLines > endLine;
  const hint = truncated
    ? `Use offset=${endLine + 1} to continue reading (showing ${offset}-${endLine} of ${totalLines} lines)`
    : undefined;
  if (!truncated && page.endsWith("\n") && !body.endsWith("\n")) page = page.slice(0, -1);
  if (offset > totalLines && totalLines > 0) {
    return pyDumps(readResult({
      total_lines: totalLines,
      file_size: size,
      hint: `Note: offset ${offset} is beyond the end of the file (${totalLines} lines total). Retry with offset <= ` +
        `${totalLines}.`,
    }));
  }
  // _add_line_numbers splits on "\n", so a page ending in a newline gets a last, empty numbered line (as in hermes).
  const content = page.split("\n").map((l, i) =>
    `${offset + i}|${l.length <= MAX_LINE_LENGTH ? l : l.slice(0, MAX_LINE_LENGTH) + "... [truncated]"}`
  ).join("\n");
  if (content.length > MAX_READ_CHARS) {
    return pyDumps({
      error: `Read produced ${commas(content.length)} characters which exceeds the safety limit ` +
        `(${commas(MAX_READ_CHARS)} chars). Use offset and limit to read a smaller range. The file has ` +
        `${totalLines} lines total.`,
      path,
      total_lines: totalLines,
      file_size: size,
    });
  }
  return pyDumps(readResult({ content, total_lines: totalLines, file_size: size, truncated, hint }));
}

/** `_looks_like_read_file_line_numbered_content`: mostly consecutive `N|` lines. */
function looksLineNumbered(content: string): boolean {
  const lines = content.split(/\r\n|\r|\n/).filter((l) => l.trim());
  if (lines.length < 2) return false;
  const nums: number[] = [];
  for (const l of lines) {
    const m = l.trimStart().match(/^(\d+)\|/);
    if (m) nums.push(Number(m[1]));
  }
  if (nums.length < 2 || nums.length / lines.length < 0.6) return false;
  let pairs = 0;
  for (let i = 1; i < nums.length; i++) if (nums[i] === nums[i - 1] + 1) pairs++;
  return pairs >= nums.length - 1;
}

async function exists(s: Session, abs: string): Promise<boolean> {
  const r = await s.box.exec(`[ -e ${shQuote(abs)} ]`, { shell: "sh", timeoutSec: 30 });
  return r.exitCode === 0;
}

/** write_file(path, content): the handler's argument checks, the read-first rule, then WriteResult. */
export async function writeFileTool(s: Session, args: Record<string, unknown>): Promise<string> {
  if (!args.path || typeof args.path !== "string") {
    return toolError(
      "write_file: missing required field 'path'. Re-emit the tool call with both 'path' and 'content' set.",
    );
  }
  if (!("content" in args)) {
    return toolError(
      "write_file: missing required field 'content'. The tool call included a path but no content argument — this " +
        "is almost always a dropped-arg bug under context pressure. Re-emit the tool call with the full content " +
        "payload, or use execute_code with hermes_tools.write_file() for very large files.",
    );
  }
  const content = args.content;
  if (typeof content !== "string") {
    const t = content === null
      ? "NoneType"
      : Array.isArray(content)
      ? "list"
      : typeof content === "number"
      ? (Number.isInteger(content) ? "int" : "float")
      : typeof content === "boolean"
      ? "bool"
      : "dict";
    return toolError(`write_file: 'content' must be a string, got ${t}.`);
  }
  if (looksLineNumbered(content)) {
    return toolError(
      "Refusing to write internal read_file display text as file content. Strip read_file line-number prefixes or " +
        "reconstruct the intended file contents before writing.",
    );
  }
  const path = args.path;
  const abs = s.abspath(path);
  // The read-first rule this profile's design gives it (docs/spec-notes.md); hermes itself only warns when a file
  // changed since it was read
  // (wording approx.).
  if (!readSet(s).has(abs) && await exists(s, abs)) {
    return approx(toolError(
      `write_file: ${path} already exists and has not been read in this session. Read it with read_file first ` +
        "(or use patch for a targeted edit), then write it.",
    ));
  }
  try {
    await write(s.box, abs, content);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    const why = e.kind === "is_dir" ? `cannot write to a directory: ${abs}` : String(e.data.message ?? e.kind);
    return approx(pyDumps({
      bytes_written: 0,
      dirs_created: false,
      error: `Failed to write file: ${why}`,
      resolved_path: abs,
    }));
  }
  readSet(s).add(abs);
  // lint (syntax-check reports) is not emulated; `verified` assumes sha256sum is present (approx.).
  return pyDumps({
    bytes_written: new TextEncoder().encode(content).length,
    dirs_created: true,
    verified: true,
    resolved_path: abs,
    files_modified: [abs],
  });
}

/** `difflib.unified_diff` run by the container's python3 (else `diff -u` with hermes' headers: approx.). */
async function unifiedDiff(s: Session, before: string, abs: string): Promise<string> {
  const tmp = `${s.box.scratch}/.pgs-hermes-before`;
  await write(s.box, tmp, before);
  const r = await s.box.exec(
    `if command -v python3 >/dev/null; then python3 -c ${shQuote(DIFF_PY)} ${tmp} ${shQuote(abs)} ${
      shQuote(abs)
    }; else diff -u ${tmp} ${shQuote(abs)} | sed -e '1s|.*|--- a/'${shQuote(abs)}'|' -e '2s|.*|+++ b/'${
      shQuote(abs)
    }'|'; fi; rm -f ${tmp}`,
    { shell: "sh", timeoutSec: 60 },
  );
  return text(r.stdout);
}

function patchFailure(s: Session, abs: string, reset = false): number {
  let m = s.state.get(FAILURES) as Map<string, number> | undefined;
  if (!m) s.state.set(FAILURES, m = new Map());
  if (reset) {
    m.delete(abs);
    return 0;
  }
  const n = (m.get(abs) ?? 0) + 1;
  m.set(abs, n);
  return n;
}

/** patch(mode, path, old_string, new_string, replace_all): hermes' fuzzy chain, PatchResult plus the tool layer's keys. */
export async function patchTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const mode = args.mode ?? "replace";
  const path = args.path as string | undefined;
  if (mode === "patch") return toolError("patch content required"); // V4A mode is not offered here.
  if (mode !== "replace") return toolError(`Unknown mode: ${mode}`);
  if (!path) return toolError("path required");
  const oldS = args.old_string, newS = args.new_string;
  if (oldS == null || newS == null) return toolError("old_string and new_string required");
  if (typeof path !== "string" || typeof oldS !== "string" || typeof newS !== "string") {
    return approx(toolError("path, old_string and new_string must be strings"));
  }
  const abs = s.abspath(path);
  let before: string;
  try {
    before = new TextDecoder("utf-8", { ignoreBOM: true }).decode((await readBytes(s.box, abs)).data);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return pyDumps({ success: false, error: `Failed to read file: ${abs}` });
  }
  const content = before.startsWith("\ufeff") ? before.slice(1) : before;
  const r = HERMES_EDIT.replace(
    { content, old: oldS, neu: newS, all: args.replace_all === true },
    chainFor(HERMES_EDIT, s.profile.edits?.rule),
  );
  if (!r.ok) {
    // patch_replace adds find_closest_lines' hint to a not-found error.
    const error = String(r.detail?.error) + (r.reason === "not_found" ? hermesNoMatchHint(content, oldS) : "");
    const result: Record<string, unknown> = { success: false, error };
    if (error.includes("Could not find")) {
      const n = patchFailure(s, abs);
      if (n >= 3) {
        result._hint = `This is failure #${n} patching ${pyRepr(path)}. Stop retrying with variations of the same ` +
          "old_string. Either: (1) re-read the file fresh to verify current content, (2) use a longer / more " +
          "unique old_string with surrounding context lines, or (3) use write_file to replace the entire file if " +
          "the targeted region is hard to anchor.";
      } else if (!error.includes("Did you mean one of these sections?")) {
        result._hint = "old_string not found. Use read_file to verify the current content, or search_files to " +
          "locate the text.";
      }
    }
    return pyDumps(result);
  }
  // The tool layer writes the result back in the file's own line endings.
  const after = content.includes("\r\n") ? r.content.replace(/\r?\n/g, "\r\n") : r.content;
  const out = before.startsWith("\ufeff") ? "\ufeff" + after : after;
  try {
    await write(s.box, abs, out);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return pyDumps({ success: false, error: `Failed to write changes: Failed to write file: ${e.data.message ?? ""}` });
  }
  patchFailure(s, abs, true);
  readSet(s).add(abs);
  const diff = await unifiedDiff(s, content, abs);
  // lint (syntax-check reports) is not emulated (approx.).
  return pyDumps({ success: true, diff, files_modified: [abs], resolved_path: abs });
}
