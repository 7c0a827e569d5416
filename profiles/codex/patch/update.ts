/**
 * A file's new text after an update hunk's chunks, computed as codex 0.171.0 computes it in its default mode
 * (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/apply-patch/src/file_update.rs, `NormalizeToLf`):
 * the text is split at `\n` (a final empty piece dropped), each chunk's `@@ context` and then its old lines are sought
 * from where the previous chunk ended, a chunk without old lines appends at the end, a chunk whose old lines end with
 * an empty line is retried without it, and the result always ends with a newline.
 */
import { seekSequence } from "./seek.ts";
import type { PatchChunk } from "./parse.ts";

/** A chunk that did not apply; `message` is codex's (`Failed to find …`). */
export class ChunkMismatch extends Error {
  /** Always "ChunkMismatch". */
  override name = "ChunkMismatch";
}

/** The new contents of the file at `path` (named in messages) whose text is `original`. */
export function updatedText(original: string, chunks: PatchChunk[], path: string): string {
  const lines = original.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const edits: [number, number, string[]][] = [];
  let at = 0;
  for (const chunk of chunks) {
    if (chunk.context !== null) {
      const i = seekSequence(lines, [chunk.context], at, false);
      if (i < 0) throw new ChunkMismatch(`Failed to find context '${chunk.context}' in ${path}`);
      at = i + 1;
    }
    if (chunk.oldLines.length === 0) {
      const end = lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
      edits.push([end, 0, chunk.newLines]);
      continue;
    }
    let pattern = chunk.oldLines;
    let fresh = chunk.newLines;
    let found = seekSequence(lines, pattern, at, chunk.endOfFile);
    if (found < 0 && pattern[pattern.length - 1] === "") {
      pattern = pattern.slice(0, -1);
      if (fresh[fresh.length - 1] === "") fresh = fresh.slice(0, -1);
      found = seekSequence(lines, pattern, at, chunk.endOfFile);
    }
    if (found < 0) {
      throw new ChunkMismatch(`Failed to find expected lines in ${path}:\n${chunk.oldLines.join("\n")}`);
    }
    edits.push([found, pattern.length, fresh]);
    at = found + pattern.length;
  }
  // Applied from the last position back, so earlier positions stay valid (a stable sort, as Rust's sort_by_key).
  edits.sort((a, b) => a[0] - b[0]);
  for (let k = edits.length - 1; k >= 0; k--) {
    const [start, remove, insert] = edits[k];
    lines.splice(start, Math.min(remove, Math.max(0, lines.length - start)), ...insert);
  }
  if (lines[lines.length - 1] !== "") lines.push("");
  return lines.join("\n");
}
