/** read_file: qwen's checks, the unchanged-file placeholder, binary and media refusals, and line/char truncation. */
import { posix } from "node:path";
import { approx } from "../../lib/harness/provenance.ts";
import { OpError } from "../../lib/harness/tools/ops.ts";
import { readText, statPath } from "./fs.ts";
import { OUTPUT_CHARS, OUTPUT_LINES, READ_BYTES } from "./limits.ts";
import { err, str } from "./outcome.ts";
import { displayRelative, unescapePath } from "./paths.ts";
import { checkCache, recordRead } from "./read_cache.ts";
import { READ_PARAMS, READ_PARAMS_0_24_3 } from "./schemas.ts";
import { qwenTool, type ToolDef } from "./tool.ts";

const BINARY_EXTENSIONS = new Set(
  ".7z .a .bin .bz2 .class .dll .doc .docx .dylib .exe .gz .jar .lib .o .obj .odp .ods .odt .pdf .ppt .pptx .pyc .pyo .rar .so .tar .wasm .war .xls .xlsx .zip"
    .split(" "),
);
const IMAGE_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"]);
const AUDIO_EXTENSIONS = new Set([".mp3", ".m4a", ".wav", ".flac", ".ogg", ".aac"]);
const VIDEO_EXTENSIONS = new Set([".mp4", ".mov", ".mkv", ".webm", ".avi"]);

/** isBinaryFile on the first 4 KiB: a NUL byte, or more than 30% control bytes (a BOM means text). */
function looksBinary(data: Uint8Array): boolean {
  const n = Math.min(4096, data.length);
  if (n === 0) return false;
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return false;
  if ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff)) return false;
  let odd = 0;
  for (let i = 0; i < n; i++) {
    if (data[i] === 0) return true;
    if (data[i] < 9 || (data[i] > 13 && data[i] < 32)) odd++;
  }
  return odd / n > 0.3;
}

/** truncateUtf8 */
function truncateUtf8(t: string, maxBytes: number): { content: string; truncated: boolean } {
  const b = new TextEncoder().encode(t);
  if (b.length <= maxBytes) return { content: t, truncated: false };
  let end = Math.min(maxBytes, b.length);
  while (end > 0 && (b[end] & 192) === 128) end--;
  return { content: new TextDecoder().decode(b.subarray(0, end)), truncated: true };
}

function unsupported(modality: string, name: string): string {
  // (source) unsupportedModalityMessage
  return `[Unsupported ${modality} file: "${name}". This model does not support ${modality} input. The read_file tool cannot process this type of file either. To handle this file, try using skills if applicable, or any tools installed at system wide, or let the user know you cannot process this type of file.]`;
}

type Args = Record<string, unknown>;

/** The path checks: non-empty, absolute (the path unescaped in place). */
function pathProblem(a: Args): string | null {
  const fp = unescapePath(str(a.file_path).trim());
  a.file_path = fp;
  if (!fp) return "The 'file_path' parameter must be non-empty."; // (source)
  if (!fp.startsWith("/")) {
    return `File path must be absolute, but was relative: ${fp}. You must provide an absolute path.`;
  }
  return null;
}

/** offset and limit, when given. */
function rangeProblem(a: Args): string | null {
  const offset = a.offset as number | undefined, limit = a.limit as number | undefined;
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0)) {
    return "Offset must be a non-negative integer";
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) return "Limit must be a positive integer";
  return null;
}

const isNotebook = (a: Args) => posix.extname(str(a.file_path)).toLowerCase() === ".ipynb";

/** 0.24.4's checks: nulls are omissions, and a notebook asks for none of offset, limit and pages first. */
function check(_s: unknown, a: Args): string | null {
  const bad = pathProblem(a);
  if (bad) return bad;
  a.offset ??= undefined;
  a.limit ??= undefined;
  a.pages ??= undefined;
  if (typeof a.pages === "string") a.pages = a.pages.trim() || undefined;
  if (isNotebook(a) && (a.offset ?? a.limit ?? a.pages) !== undefined) {
    // (source)
    return `For Jupyter notebooks (.ipynb), omit 'offset', 'limit', and 'pages' or set them to null. Retry with: ${
      JSON.stringify({ file_path: a.file_path, offset: null, limit: null, pages: null })
    }`;
  }
  return rangeProblem(a) ?? pagesProblem(a);
}

/**
 * 0.24.3's checks (`npm:@qwen-code/qwen-code@0.24.3:chunks/chunk-HZU2DMPO.js`, ReadFileTool's validateToolParamValues):
 * the range first, then one refusal for offset or limit and another for pages on a notebook.
 */
function check0243(_s: unknown, a: Args): string | null {
  const bad = pathProblem(a) ?? rangeProblem(a);
  if (bad) return bad;
  if (typeof a.pages === "string") a.pages = a.pages.trim() || undefined;
  if ((a.offset !== undefined || a.limit !== undefined) && isNotebook(a)) {
    return "offset and limit are not supported for Jupyter notebook (.ipynb) files. Notebooks are always read in full with structured cell output.";
  }
  if (a.pages !== undefined && isNotebook(a)) {
    return "pages is not supported for Jupyter notebook (.ipynb) files. Notebooks are always read in full with structured cell output.";
  }
  return pagesProblem(a);
}

/** pages, when given. */
function pagesProblem(a: Args): string | null {
  if (typeof a.pages === "string") {
    // (source) parsePDFPageRange, approx.: only `N` and `N-M`.
    const m = a.pages.match(/^(\d+)(?:-(\d*))?$/);
    if (!m || Number(m[1]) < 1) return `Invalid pages parameter: '${a.pages}'. Use formats like '5' or '1-10'.`;
    if (m[2] === "") {
      return "Open-ended page ranges (e.g. '3-') are not supported; specify an explicit end page within the 20-page limit (e.g. '3-22').";
    }
    if (m[2] !== undefined && Number(m[2]) - Number(m[1]) + 1 > 20) {
      return "Pages range exceeds maximum of 20 pages per request.";
    }
  }
  return null;
}

/** The reading itself, the same in every version. */
const readFile: Pick<ToolDef, "exec"> = {
  async exec(s, a) {
    const fp = str(a.file_path);
    const abs = posix.resolve(fp);
    const offset = a.offset as number | undefined, limit = a.limit as number | undefined;
    const isFull = offset === undefined && limit === undefined && a.pages === undefined;
    const st = await statPath(s, abs);
    if (st && isFull) {
      const c = checkCache(s, st), e = c.entry;
      if (
        c.state === "fresh" && e?.readAt !== undefined && e.full && e.cacheable && e.resident &&
        (e.writeAt === undefined || e.readAt > e.writeAt)
      ) {
        return {
          text: `[File ${
            displayRelative(s, abs)
          } unchanged since last read in this session — the full content was provided earlier in this conversation. If you cannot retrieve that prior content (e.g. after context compaction) or you suspect the file was modified outside the read/edit tools (shell command, MCP tool, another process), re-read with explicit offset/limit to fetch current content.]`,
        };
      }
    }
    if (!st) return err(`File not found: ${fp}`);
    if (st.kind === "dir") return err(`Path is a directory, not a file: ${fp}`);
    if (st.kind === "other") return err(`Not a regular file: ${fp}`); // (source)
    const rel = posix.relative(posix.resolve(s.workdir), abs);
    const ext = posix.extname(abs).toLowerCase();
    const name = posix.basename(abs);
    // approx.: qwen sniffs image magic and consults a MIME table; extensions decide here.
    if (IMAGE_EXTENSIONS.has(ext)) return { text: unsupported("image", name) };
    if (AUDIO_EXTENSIONS.has(ext)) return { text: unsupported("audio", name) };
    if (VIDEO_EXTENSIONS.has(ext)) return { text: unsupported("video", name) };
    let file: { bytes: Uint8Array; text: string };
    try {
      file = await readText(s, abs);
    } catch (e) {
      if (!(e instanceof OpError)) throw e;
      if (e.kind === "not_found") return err(`File not found: ${fp}`);
      if (e.kind === "is_dir") return err(`Path is a directory, not a file: ${fp}`);
      return err(approx(`Error reading file ${fp}: ${e.message}`));
    }
    if (ext === ".svg") {
      // (source) SVG is returned whole, or refused above 1 MB.
      if (st.size > 1024 * 1024) return { text: `Cannot display content of SVG file larger than 1MB: ${rel}` };
      recordRead(s, st, isFull, true);
      return { text: file.text };
    }
    if (BINARY_EXTENSIONS.has(ext) || (ext !== ".ts" && looksBinary(file.bytes))) {
      recordRead(s, st, isFull, false);
      return { text: `Cannot display content of binary file: ${rel}` };
    }
    // readTextRange + processSingleFileContent
    const all = file.text.split("\n");
    const total = all.length;
    const start = Math.min(Math.max(0, offset ?? 0), total);
    const end = Math.min(start + (limit ?? OUTPUT_LINES), total);
    const range = truncateUtf8(all.slice(start, end).join("\n"), READ_BYTES);
    const selected = range.content.split("\n").map((l) => l.trimEnd());
    const startLine = offset || 0;
    const kept: string[] = [];
    let length = 0, included = 0, charCut = false;
    for (const line of selected) {
      const sep = included > 0 ? 1 : 0;
      included++;
      if (length + line.length + sep <= OUTPUT_CHARS) {
        kept.push(line);
        length += line.length + sep;
      } else {
        kept.push(line.substring(0, Math.max(OUTPUT_CHARS - length - sep, 10)) + "... [truncated]");
        charCut = true;
        break;
      }
    }
    let body = kept.join("\n");
    if (range.truncated) {
      const marker = "... [truncated]";
      if (!body.endsWith(marker)) {
        const prefix = body.slice(0, Math.max(OUTPUT_CHARS - marker.length - 1, 0));
        body = prefix + (prefix.length === 0 || prefix.endsWith("\n") ? "" : "\n") + marker;
      }
      charCut = true;
    }
    const endLine = startLine + included;
    const partial = startLine > 0 || endLine < total || charCut;
    recordRead(s, st, isFull && !partial, true);
    return {
      text: partial ? `Showing lines ${startLine + 1}-${endLine} of ${total} total lines.\n\n---\n\n${body}` : body,
    };
  },
};

/** The read_file tool. */
export const readFileTool = qwenTool({
  name: "read_file",
  params: READ_PARAMS,
  maxChars: Infinity,
  check,
  ...readFile,
});

/** read_file as qwen-code 0.24.3 had it: null not accepted for offset, limit and pages, its own notebook refusals. */
export const readFileTool0243 = qwenTool({
  name: "read_file",
  params: READ_PARAMS_0_24_3,
  maxChars: Infinity,
  check: check0243,
  ...readFile,
});
