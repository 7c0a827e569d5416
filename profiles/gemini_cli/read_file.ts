/**
 * read_file: ReadFileTool's checks, then processSingleFileContent. Text comes back whole up to 2000 lines (lines cut
 * at 2000 characters), or the range asked for, behind the truncation header when anything is left out; binary
 * files are named, images and PDFs become an inline part (chat form keeps only the note about it).
 */
import { posix } from "node:path";
import { OpError, readBytes } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { detectFileType, mimeOf } from "./file_type.ts";
import { decodeText, nodeError, probe } from "./fs.ts";
import { defensivePath, pathAccessError } from "./paths.ts";
import { READ_FILE_PARAMS } from "./schemas.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";

const MAX_LINES = 2000;
const MAX_LINE_LENGTH = 2000;
const MAX_FILE_MB = 20;

/** The path the invocation reads: defensive cleanup, resolved against the workspace, symlinks followed. */
async function target(s: Session, a: Args): Promise<string> {
  return (await probe(s, posix.resolve(s.workdir, await defensivePath(s, str(a.file_path))))).real;
}

async function check(s: Session, a: Args): Promise<string | null> {
  if (str(a.file_path).trim() === "") return "The 'file_path' parameter must be non-empty."; // (source)
  const denied = pathAccessError(s, await target(s, a));
  if (denied) return denied;
  if (typeof a.start_line === "number" && typeof a.end_line === "number" && a.start_line > a.end_line) {
    return "start_line cannot be greater than end_line";
  }
  return null;
}

/** The text branch: the lines asked for, and the truncation header when some are left out or shortened. */
export function formatText(content: string, start?: number, end?: number): string {
  const lines = content.split(/\r?\n/);
  const total = lines.length;
  let from = 0, to = total;
  if (start !== undefined || end !== undefined) {
    from = start ? start - 1 : 0;
    to = end ? Math.min(end, total) : Math.min(from + MAX_LINES, total);
  } else to = Math.min(MAX_LINES, total);
  const first = Math.min(from, total);
  let shortened = false;
  const shown = lines.slice(first, to).map((l) => {
    if (l.length <= MAX_LINE_LENGTH) return l;
    shortened = true;
    return l.substring(0, MAX_LINE_LENGTH) + "... [truncated]";
  }).join("\n");
  if (!(first > 0 || to < total || shortened)) return shown;
  return `\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines ${first + 1}-${to} of ${total} ` +
    `total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a ` +
    `subsequent 'read_file' call. For example, to read the next section of the file, use start_line: ${to + 1}.` +
    `\n\n--- FILE CONTENT (truncated) ---\n${shown}`;
}

async function exec(s: Session, a: Args): Promise<Outcome> {
  const path = await target(s, a);
  const denied = pathAccessError(s, path);
  if (denied) return fail(denied);
  const info = await probe(s, path);
  if (info.kind === "missing") return fail(`File not found: ${path}`);
  if (info.kind === "dir") return fail(`Path is a directory, not a file: ${path}`);
  const mb = info.size / (1024 * 1024);
  if (mb > MAX_FILE_MB) return fail(`File size exceeds the 20MB limit: ${path} (${mb.toFixed(2)}MB)`); // (source)
  let data: Uint8Array;
  try {
    data = (await readBytes(s.box, path, (MAX_FILE_MB + 1) << 20)).data;
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    const code = e.kind === "denied" ? "EACCES" : e.kind === "is_dir" ? "EISDIR" : "ENOENT";
    return fail(`Error reading file ${path}: ${nodeError(code, "open", path)}`); // (source)
  }
  const rel = posix.relative(s.workdir, path);
  switch (detectFileType(posix.extname(path).toLowerCase(), data.subarray(0, 515))) {
    case "binary":
      return ok(`Cannot display content of binary file: ${rel}`);
    case "svg":
      return ok(info.size > 1 << 20 ? `Cannot display content of SVG file larger than 1MB: ${rel}` : decodeText(data)); // (source)
    case "audio":
    case "video":
      // convertToFunctionResponse: audio and video are not sent inline; read_file says so (the bytes follow apart).
      return ok(
        `Binary content (${mimeOf(posix.extname(path).toLowerCase()) ?? "application/octet-stream"}) read ` +
          "successfully. Content will be injected for analysis in the next sequence.", // (source)
      );
    case "image":
    case "pdf":
      // The bytes go as an inlineData part beside the functionResponse, which chat form does not carry.
      return ok("Binary content provided (1 item(s))."); // (source)
    default:
      return ok(formatText(decodeText(data), num(a.start_line), num(a.end_line)));
  }
}

const num = (v: unknown) => typeof v === "number" ? v : undefined;

/** The read_file tool. */
export const readFileTool = geminiTool({ name: "read_file", params: READ_FILE_PARAMS, check, exec });
