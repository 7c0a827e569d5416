/**
 * codex's patch language, parsed as codex 0.171.0 parses it (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:
 * codex-rs/apply-patch/src/parser.rs and streaming_parser.rs): `*** Begin Patch`, then `*** Add File: P` (`+` lines),
 * `*** Delete File: P`, `*** Update File: P` (optional `*** Move to: Q`, then chunks of ` `/`-`/`+` lines, each
 * optionally opened by `@@` or `@@ context`, optionally closed by `*** End of File`), then `*** End Patch`.
 *
 * Lenient as codex is: the whole text is trimmed, markers are compared trimmed, and a patch wrapped in a heredoc
 * (`<<EOF` / `<<'EOF'` / `<<"EOF"` … `EOF`) is unwrapped. An empty line inside an update chunk is an empty context
 * line. Error messages are codex's, word for word; `PatchParseError.message` is its `Display`.
 */
import { rustLines, rustTrim, rustTrimEnd } from "../../../lib/harness/lang/rust_str.ts";

/** One chunk of an update: the lines it expects and the lines it writes. */
export interface PatchChunk {
  /** The `@@ context` line to find first (null for a bare `@@` or none). */
  context: string | null;
  /** The lines expected in the file (context and removed lines). */
  oldLines: string[];
  /** The lines written in their place (context and added lines). */
  newLines: string[];
  /** True when `*** End of File` closed the chunk: it must match at the end of the file. */
  endOfFile: boolean;
}

/** One file operation of a patch. */
export type PatchHunk =
  | { kind: "add"; path: string; contents: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo: string | null; chunks: PatchChunk[] };

/** A parse failure; `message` is codex's `ParseError` display (`invalid patch: …`, `invalid hunk at line N, …`). */
export class PatchParseError extends Error {
  /** Always "PatchParseError". */
  override name = "PatchParseError";
  /** `reason` is codex's inner message; `line` is set for a hunk error. */
  constructor(readonly reason: string, readonly line?: number) {
    super(line === undefined ? `invalid patch: ${reason}` : `invalid hunk at line ${line}, ${reason}`);
  }
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";
const CTX = "@@ ";
const CTX_EMPTY = "@@";
const ENV_ID = "*** Environment ID:";

const FIRST_LINE = "The first line of the patch must be '*** Begin Patch'";
const LAST_LINE = "The last line of the patch must be '*** End Patch'";
const badHeader = (t: string) =>
  `'${t}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`;
const unexpected = (l: string) =>
  `Unexpected line found in update hunk: '${l}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`;
const needAt = (l: string) => `Expected update hunk to start with a @@ context marker, got: '${l}'`;

function boundaries(lines: string[]): void {
  const first = lines.length ? rustTrim(lines[0]) : undefined;
  const last = lines.length ? rustTrim(lines[lines.length - 1]) : undefined;
  if (first === BEGIN && last === END) return;
  if (first !== undefined && first !== BEGIN) throw new PatchParseError(FIRST_LINE);
  throw new PatchParseError(LAST_LINE);
}

/** The patch's lines between its boundaries, unwrapping a heredoc as codex's lenient mode does. */
function patchLines(text: string): string[] {
  const lines = rustLines(rustTrim(text));
  try {
    boundaries(lines);
    return lines;
  } catch (e) {
    const first = lines[0];
    if (
      lines.length >= 4 && (first === "<<EOF" || first === "<<'EOF'" || first === '<<"EOF"') &&
      lines[lines.length - 1].endsWith("EOF")
    ) {
      const inner = lines.slice(1, -1);
      boundaries(inner);
      return inner;
    }
    throw e;
  }
}

type Mode = "start" | "patch" | "add" | "delete" | "update" | "ended";

/** Parses a patch; throws `PatchParseError` with codex's message. */
export function parsePatch(text: string): PatchHunk[] {
  const lines = patchLines(text);
  const hunks: PatchHunk[] = [];
  let mode = "start" as Mode;
  let updateLine = 0;
  let envId = false;
  const last = () => hunks[hunks.length - 1];

  const ensureUpdateNotEmpty = (line: string, n: number) => {
    const h = last();
    if (h?.kind !== "update") return;
    if (h.chunks.length === 0 && mode === "update") {
      throw new PatchParseError(`Update file hunk for path '${h.path}' is empty`, updateLine);
    }
    const c = h.chunks[h.chunks.length - 1];
    if (c && c.oldLines.length === 0 && c.newLines.length === 0) {
      throw new PatchParseError(line === END ? "Update hunk does not contain any lines" : unexpected(line), n);
    }
  };

  // True when `t` was a hunk header or the end marker (and the state moved on).
  const header = (t: string, n: number): boolean => {
    if (mode === "patch" && t.startsWith(ENV_ID)) {
      if (envId) throw new PatchParseError("apply_patch environment_id cannot be specified more than once");
      if (!rustTrim(t.slice(ENV_ID.length))) throw new PatchParseError("apply_patch environment_id cannot be empty");
      envId = true;
      return true;
    }
    if (t === END) {
      ensureUpdateNotEmpty(t, n);
      mode = "ended";
      return true;
    }
    for (const [marker, kind] of [[ADD, "add"], [DELETE, "delete"], [UPDATE, "update"]] as const) {
      if (!t.startsWith(marker)) continue;
      ensureUpdateNotEmpty(t, n);
      const path = t.slice(marker.length);
      hunks.push(
        kind === "add"
          ? { kind, path, contents: "" }
          : kind === "delete"
          ? { kind, path }
          : { kind, path, moveTo: null, chunks: [] },
      );
      mode = kind;
      if (kind === "update") updateLine = n;
      return true;
    }
    return false;
  };

  const updateBody = (line: string, n: number) => {
    const h = last() as Extract<PatchHunk, { kind: "update" }>;
    const u = rustTrimEnd(line);
    const chunks = h.chunks;
    const cur = () => chunks[chunks.length - 1];
    const isEmptyChunk = () => !!cur() && cur().oldLines.length === 0 && cur().newLines.length === 0;
    const isAt = u === CTX_EMPTY || u.startsWith(CTX);
    if (cur()?.endOfFile) {
      if (u === "") return;
      if (!isAt) throw new PatchParseError(needAt(line), n);
    }
    if (chunks.length === 0 && h.moveTo === null && u.startsWith(MOVE)) {
      h.moveTo = u.slice(MOVE.length);
      return;
    }
    if (isAt && isEmptyChunk()) throw new PatchParseError(unexpected(line), n);
    if (u === CTX_EMPTY) return void chunks.push({ context: null, oldLines: [], newLines: [], endOfFile: false });
    if (u.startsWith(CTX)) {
      return void chunks.push({ context: u.slice(CTX.length), oldLines: [], newLines: [], endOfFile: false });
    }
    if (u === EOF_MARK) {
      if (isEmptyChunk()) throw new PatchParseError("Update hunk does not contain any lines", n);
      if (cur()) cur().endOfFile = true;
      return;
    }
    const open = () => {
      if (!chunks.length) chunks.push({ context: null, oldLines: [], newLines: [], endOfFile: false });
      return cur();
    };
    if (line === "" || line[0] === " ") {
      const c = open();
      const ctx = line.slice(1);
      c.oldLines.push(ctx);
      c.newLines.push(ctx);
      return;
    }
    if (line[0] === "+") return void open().newLines.push(line.slice(1));
    if (line[0] === "-") return void open().oldLines.push(line.slice(1));
    if (cur() && !isEmptyChunk()) throw new PatchParseError(needAt(line), n);
    throw new PatchParseError(unexpected(line), n);
  };

  const process = (line: string, n: number) => {
    const t = rustTrim(line);
    switch (mode) {
      case "start":
        if (t !== BEGIN) throw new PatchParseError(FIRST_LINE);
        mode = "patch";
        return;
      case "patch":
      case "delete":
        if (!header(t, n)) throw new PatchParseError(badHeader(t), n);
        return;
      case "add": {
        if (header(t, n)) return;
        const h = last() as Extract<PatchHunk, { kind: "add" }>;
        if (line.startsWith("+")) return void (h.contents += line.slice(1) + "\n");
        throw new PatchParseError(badHeader(t), n);
      }
      case "update":
        if (header(rustTrimEnd(line), n)) return;
        return updateBody(line, n);
      case "ended":
        if (t !== "") throw new PatchParseError(LAST_LINE);
    }
  };

  // codex joins the lines with "\n" and streams them: every line but the last is processed as it ends; the last one
  // is finished apart (an end marker there is taken trimmed).
  lines.forEach((line, i) => {
    const n = i + 1;
    if (i === lines.length - 1 && line !== "") {
      if (rustTrim(line) === END) {
        ensureUpdateNotEmpty(rustTrim(line), n);
        mode = "ended";
      } else process(line, n);
    } else process(line, n);
  });
  if (mode !== "ended") throw new PatchParseError(LAST_LINE);
  return hunks;
}
