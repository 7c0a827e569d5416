/**
 * detectFileType and isbinaryfile, as read_file classifies a file: by extension through the `mime` lookup (the
 * common types only here: approx. for the rare ones), gemini's list of binary extensions, then the content sniff.
 */

const IMAGE: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".ico": "image/vnd.microsoft.icon",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".avif": "image/avif",
  ".heic": "image/heic",
};
const AUDIO_VIDEO: Record<string, string> = {
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".flac": "audio/flac",
  ".aac": "audio/aac",
  ".aif": "audio/aiff",
  ".aiff": "audio/aiff",
  ".m4a": "audio/mp4",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mov": "video/quicktime",
  ".avi": "video/x-msvideo",
  ".mkv": "video/x-matroska",
  ".mpeg": "video/mpeg",
  ".mpg": "video/mpeg",
};

/** BINARY_EXTENSIONS: binary, media and Python-bytecode patterns' extensions plus a few more. */
const BINARY_EXTENSIONS = new Set(
  (".bin .exe .dll .so .dylib .class .jar .war .zip .tar .gz .bz2 .rar .7z .pak .rpa .doc .docx .xls .xlsx .ppt " +
    ".pptx .odt .ods .odp .pdf .png .jpg .jpeg .gif .webp .bmp .svg .pyc .pyo .dat .obj .o .a .lib .wasm").split(" "),
);

/** The kinds read_file tells apart. */
export type FileType = "text" | "svg" | "image" | "pdf" | "audio" | "video" | "binary";

/** The MIME type `mime` gives an extension (the subset above), if any. */
export function mimeOf(ext: string): string | undefined {
  return ext === ".pdf" ? "application/pdf" : ext === ".svg" ? "image/svg+xml" : IMAGE[ext] ?? AUDIO_VIDEO[ext];
}

/** isbinaryfile's check on a file's first bytes (approx.: its protobuf sniff is left out). */
export function isBinaryContent(b: Uint8Array): boolean {
  const n = b.length;
  if (n === 0) return false;
  const total = Math.min(n, 515), scan = Math.min(total, 512);
  if (n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return false;
  if (n >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return false;
  if (n >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return false;
  if (n >= 4 && b[0] === 0x84 && b[1] === 0x31 && b[2] === 0x95 && b[3] === 0x33) return false;
  if (total >= 5 && new TextDecoder().decode(b.subarray(0, 5)) === "%PDF-") return true;
  if (n >= 2 && ((b[0] === 0xfe && b[1] === 0xff) || (b[0] === 0xff && b[1] === 0xfe))) return false;
  let suspicious = 0;
  const cont = (i: number) => b[i] >= 0x80 && b[i] <= 0xbf;
  for (let i = 0; i < scan; i++) {
    const c = b[i];
    if (c === 0) return true;
    if ((c >= 7 && c <= 14) || (c >= 32 && c <= 127)) continue;
    if (c >= 0xc0 && c <= 0xdf && i + 1 < total) {
      i++;
      if (cont(i)) continue;
    } else if (c >= 0xe0 && c <= 0xef && i + 2 < total) {
      i++;
      if (cont(i) && cont(i + 1)) {
        i++;
        continue;
      }
    } else if (c >= 0xf0 && c <= 0xf7 && i + 3 < total) {
      i++;
      if (cont(i) && cont(i + 1) && cont(i + 2)) {
        i += 2;
        continue;
      }
    }
    suspicious++;
    if (i >= 32 && suspicious * 100 / scan > 10) return true;
  }
  return suspicious * 100 / scan > 10;
}

/** detectFileType for a file with extension `ext` (lower case, with its dot) and these first bytes. */
export function detectFileType(ext: string, head: Uint8Array): FileType {
  if ([".ts", ".mts", ".cts"].includes(ext)) return "text";
  if (ext === ".svg") return "svg";
  const mime = mimeOf(ext);
  if (mime?.startsWith("image/")) return "image";
  if (mime?.startsWith("audio/") || mime?.startsWith("video/")) {
    if (!isBinaryContent(head)) return "text";
    return mime.startsWith("audio/") ? "audio" : "video";
  }
  if (mime === "application/pdf") return "pdf";
  if (BINARY_EXTENSIONS.has(ext) || isBinaryContent(head)) return "binary";
  return "text";
}
