/**
 * A pass-through check of a tar stream made inside a box (the box's own `tar`, which the agent may have replaced):
 * every member must lie under one top folder, with no `..`, nothing below a symlink and hard links that stay inside,
 * so that extracting the stream into another box writes only where an engine's own `cp CONTAINER:PATH -` would. A
 * member's header is passed on only after it was checked; the first bad one ends the stream with an error.
 */

import { paxRecords, tarField as field, tarOctal as octal } from "../../base/tar_header.ts";
import { PATH_SET_MAX, PathSet } from "./path_set.ts";
const BLOCK = 512;

/** Member types a copy of a tree may hold: files, hard links, symlinks, devices, folders, fifos, contiguous files. */
const PLAIN_TYPES = new Set(["0", "\0", "1", "2", "3", "4", "5", "6", "7"]);
/** Headers that only describe the next member: pax extended (`x`), GNU long name (`L`) and long link (`K`). */
const EXTENSION_TYPES = new Set(["x", "L", "K"]);

/** `name` without a leading `./` or trailing slashes; undefined when it is absolute or has a `..` component. */
function clean(name: string): string | undefined {
  const n = name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (n.startsWith("/") || n.split("/").some((c) => c === "..")) return undefined;
  return n;
}

/** Why member `name` (a hard link's target when `link`) may not be written, or undefined when it may. */
function refusal(name: string, top: string, symlinks: PathSet): string | undefined {
  const n = clean(name);
  if (n === undefined || (n !== top && !n.startsWith(`${top}/`))) return `it is outside ${top}`;
  if (!symlinks.size) return;
  for (let i = n.indexOf("/"); i >= 0; i = n.indexOf("/", i + 1)) {
    const up = n.slice(0, i);
    if (symlinks.has(up)) return `it lies below the symlink ${up}`;
  }
}

/**
 * A TransformStream that passes a tar archive through unchanged while checking that every member lies under `top`
 * (a path's basename, as `cp CONTAINER:PATH -` names members); it errors with a one-line reason on the first member
 * that does not, before any byte of that member's header is passed on. `onEnd` is called once the first end block
 * was passed on (a reader may stop there; only zeros may follow). More than `maxSymlinks` symlinks (default
 * `PATH_SET_MAX`) is an error too.
 */
export function tarGuard(
  top: string,
  onEnd: () => void = () => {},
  maxSymlinks = PATH_SET_MAX,
): TransformStream<Uint8Array, Uint8Array> {
  let buf: Uint8Array = new Uint8Array(0);
  /** Bytes of member content (padded) still to pass through unchecked. */
  let skip = 0;
  /** An extension header waiting for its data: its type and padded/real sizes. */
  let ext: { type: string; size: number; padded: number; header: Uint8Array } | undefined;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  let ended = false;
  const symlinks = new PathSet(maxSymlinks);

  const take = (n: number): Uint8Array => {
    const out = buf.subarray(0, n);
    buf = buf.subarray(n);
    return out;
  };

  const step = (out: TransformStreamDefaultController<Uint8Array>): boolean => {
    if (skip > 0) {
      if (!buf.length) return false;
      const k = Math.min(skip, buf.length);
      out.enqueue(take(k));
      skip -= k;
      return true;
    }
    if (ext) {
      if (buf.length < ext.padded) return false;
      const data = take(ext.padded);
      const body = data.subarray(0, ext.size);
      if (ext.type === "x") pax = paxRecords(body);
      else if (ext.type === "L") longName = field(body, 0, body.length);
      else longLink = field(body, 0, body.length);
      out.enqueue(ext.header);
      out.enqueue(data);
      ext = undefined;
      return true;
    }
    if (buf.length < BLOCK) return false;
    const h = take(BLOCK);
    if (ended || h.every((b) => b === 0)) {
      // After the first end block only end blocks (zeros) may follow.
      if (!h.every((b) => b === 0)) throw new Error("the archive has data after its end");
      out.enqueue(h);
      if (!ended) onEnd();
      ended = true;
      return true;
    }
    const type = String.fromCharCode(h[156]);
    const size = pax.size !== undefined && !EXTENSION_TYPES.has(type) ? Number(pax.size) : octal(h, 124, 12);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (EXTENSION_TYPES.has(type)) {
      if (size > 1 << 20) throw new Error(`a ${type} header of ${size} bytes`);
      ext = { type, size, padded, header: h };
      return true;
    }
    if (!PLAIN_TYPES.has(type)) throw new Error(`a member of type ${JSON.stringify(type)}`);
    const prefix = field(h, 345, 155);
    const name = pax.path ?? longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    const link = pax.linkpath ?? longLink ?? field(h, 157, 100);
    pax = {};
    longName = longLink = undefined;
    const bad = refusal(name, top, symlinks);
    if (bad) throw new Error(`member ${JSON.stringify(name)}: ${bad}`);
    if (type === "1") {
      const badLink = refusal(link, top, symlinks);
      if (badLink) throw new Error(`hard link ${JSON.stringify(name)} to ${JSON.stringify(link)}: ${badLink}`);
    }
    // The symlinks are remembered compactly and up to a bound, past which the archive is refused: memory stays
    // bounded whatever the box holds, and a member below a forgotten symlink could not be told apart.
    if (type === "2" && !symlinks.add(clean(name)!)) throw new Error(`more than ${symlinks.max} symlinks`);
    out.enqueue(h);
    // Only files carry content (a hard link's or a folder's size field is ignored by extractors, but passed as is).
    skip = type === "0" || type === "\0" || type === "7" ? padded : 0;
    return true;
  };

  return new TransformStream({
    transform(chunk, out) {
      // Pieces go on as views of the chunks they came in (never written to again), copied only to join a member's
      // header or extension across two chunks: a million members cost no copy each.
      if (buf.length) {
        const joined = new Uint8Array(buf.length + chunk.length);
        joined.set(buf);
        joined.set(chunk, buf.length);
        buf = joined;
      } else buf = chunk;
      while (step(out)) { /* consumed */ }
    },
    flush() {
      if (skip > 0 || ext || buf.length) throw new Error("the archive ends inside a member");
    },
  });
}
