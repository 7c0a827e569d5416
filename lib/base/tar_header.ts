/** The fields of a tar header block (ustar, GNU base-256 sizes) and pax records, shared by the tar readers. */

const dec = new TextDecoder();

/** A NUL-terminated text field of header `h` at `off`, `len` bytes long. */
export function tarField(h: Uint8Array, off: number, len: number): string {
  const raw = h.subarray(off, off + len);
  const nul = raw.indexOf(0);
  return dec.decode(nul >= 0 ? raw.subarray(0, nul) : raw);
}

/** A numeric field of header `h`: octal text, or GNU base-256 (sizes of 8 GiB and more: the first byte's high bit). */
export function tarOctal(h: Uint8Array, off: number, len: number): number {
  if (h[off] & 0x80) {
    let n = 0;
    for (let i = off + 1; i < off + len; i++) n = n * 256 + h[i];
    return n;
  }
  // Read byte by byte (no string): a copy of a million files reads two of these per member.
  let i = off, n = 0;
  const end = off + len;
  while (i < end && (h[i] === 0x20 || h[i] === 0)) i++;
  for (; i < end && h[i] >= 0x30 && h[i] <= 0x37; i++) n = n * 8 + (h[i] - 0x30);
  return n;
}

/** The records of a pax extended header's body: each is "LEN key=value\n", LEN counting the record's bytes. */
export function paxRecords(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp < 0) break;
    const len = parseInt(dec.decode(data.subarray(i, sp)), 10);
    if (!(len > 0)) break;
    const rec = data.subarray(sp + 1, i + len);
    const eq = rec.indexOf(0x3d);
    const end = rec[rec.length - 1] === 10 ? rec.length - 1 : rec.length;
    if (eq > 0) out[dec.decode(rec.subarray(0, eq))] = dec.decode(rec.subarray(eq + 1, end));
    i += len;
  }
  return out;
}
