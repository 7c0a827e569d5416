/** Container file helpers: what node's `fs.stat` and gemini's robustRealpath tell the tools, in one round trip. */
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import { OpError, write } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";

/** A path as gemini's tools see it. */
export interface PathInfo {
  /** The path with symlinks resolved where they exist (`realpath -m`, as robustRealpath does). */
  real: string;
  /** What `fs.stat` (following symlinks) finds; `missing` for ENOENT. */
  kind: "file" | "dir" | "other" | "missing";
  /** Bytes (files). */
  size: number;
  /** Modification time in milliseconds. */
  mtimeMs: number;
  /** Whether the entry itself is readable by the agent's user. */
  readable: boolean;
}

const PROBE = `for p in "$@"; do r=$(realpath -m -- "$p" 2>/dev/null) || r=$p; printf '%s\\0' "$r"; ` +
  `if [ -e "$p" ]; then stat -L --printf '%F|%s|%.3Y' -- "$p" 2>/dev/null; [ -r "$p" ] && printf '|r'; fi; ` +
  `printf '\\0'; done`;

function parse(real: string, st: string): PathInfo {
  const [type = "", size = "0", mtime = "0", r] = st.split("|");
  const kind = st === "" ? "missing" : /^regular/.test(type) ? "file" : type === "directory" ? "dir" : "other";
  return { real, kind, size: Number(size), mtimeMs: Number(mtime) * 1000, readable: r === "r" };
}

/** Several paths probed in one call, in order. */
export async function probeMany(s: Session, paths: string[]): Promise<PathInfo[]> {
  if (paths.length === 0) return [];
  const r = await s.box.exec(`set -- ${paths.map(shQuote).join(" ")}\n${PROBE}`, { shell: "sh", timeoutSec: 60 });
  const f = utf8(r.stdout).split("\0");
  return paths.map((p, i) => parse(f[2 * i] || p, f[2 * i + 1] ?? ""));
}

/** One path probed. */
export async function probe(s: Session, path: string): Promise<PathInfo> {
  return (await probeMany(s, [path]))[0];
}

/** Node's message for a failed `fs` call on `path` (`ENOENT: no such file or directory, stat '/x'`). */
export function nodeError(code: "ENOENT" | "ENOTDIR" | "EACCES" | "EISDIR", syscall: string, path: string): string {
  const what = {
    ENOENT: "no such file or directory",
    ENOTDIR: "not a directory",
    EACCES: "permission denied",
    EISDIR: "illegal operation on a directory",
  }[code];
  return code === "EISDIR" ? `${code}: ${what}, ${syscall}` : `${code}: ${what}, ${syscall} '${path}'`;
}

/** `fs.readFile(path, "utf-8")`, as the file system service reads for replace and write_file (a BOM stays). */
export const decodeUtf8 = (data: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);

/** readFileWithEncoding, as read_file decodes a text file: a BOM picks the encoding (UTF-8 otherwise). */
export function decodeText(data: Uint8Array): string {
  if (data.length === 0) return "";
  const b = data;
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return utf32(b.subarray(4), true);
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return utf32(b.subarray(4), false);
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return utf8(b.subarray(3));
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return new TextDecoder("utf-16le").decode(b.subarray(2));
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return new TextDecoder("utf-16be").decode(b.subarray(2));
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(b);
}

function utf32(b: Uint8Array, le: boolean): string {
  let out = "";
  for (let i = 0; i + 4 <= b.length; i += 4) {
    const cp = le
      ? (b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24) >>> 0
      : (b[i + 3] | b[i + 2] << 8 | b[i + 1] << 16 | b[i] << 24) >>> 0;
    out += cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : "\uFFFD";
  }
  return out;
}

/**
 * Writes a large text as one base64 line, since the channel reads a script line by line (a 200000-line output would
 * crawl); ops' `write` where the image has no base64. Raises `is_dir`, or `denied` when it cannot be written.
 */
export async function writeLarge(s: Session, path: string, content: string): Promise<void> {
  const bytes = new TextEncoder().encode(content);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const b64 = btoa(bin);
  const r = await s.box.exec(
    `command -v base64 >/dev/null || exit 127\np=${shQuote(path)}; [ -d "$p" ] && exit 21\n` +
      `mkdir -p -- "$(dirname -- "$p")" 2>/dev/null; printf %s ${b64} | base64 -d > "$p" || exit 13`,
    { shell: "sh", timeoutSec: 120 },
  );
  if (r.exitCode === 127) return await write(s.box, path, content);
  if (r.exitCode === 21) throw new OpError("is_dir", { path });
  if (r.exitCode !== 0) throw new OpError("denied", { path });
}
