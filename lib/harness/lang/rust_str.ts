/**
 * Rust's `str` semantics where they differ from JavaScript's: `trim`/`trim_end` strip Unicode `White_Space`
 * (JavaScript's `trim` also strips U+FEFF and not U+0085), and `lines()` splits at `\n`, drops one `\r` before it,
 * and yields no empty last line after a final newline. Source: the Rust standard library's `str::trim`,
 * `char::is_whitespace` and `str::lines`.
 */

/** Rust's `char::is_whitespace` (the Unicode `White_Space` property). */
export function rustIsWhitespace(c: string): boolean {
  const n = c.codePointAt(0)!;
  return (n >= 0x09 && n <= 0x0d) || n === 0x20 || n === 0x85 || n === 0xa0 || n === 0x1680 ||
    (n >= 0x2000 && n <= 0x200a) || n === 0x2028 || n === 0x2029 || n === 0x202f || n === 0x205f || n === 0x3000;
}

/** Rust's `str::trim_end`. */
export function rustTrimEnd(s: string): string {
  let end = s.length;
  while (end > 0 && rustIsWhitespace(s[end - 1])) end--;
  return s.slice(0, end);
}

/** Rust's `str::trim_start`. */
export function rustTrimStart(s: string): string {
  let i = 0;
  while (i < s.length && rustIsWhitespace(s[i])) i++;
  return s.slice(i);
}

/** Rust's `str::trim`. */
export function rustTrim(s: string): string {
  return rustTrimStart(rustTrimEnd(s));
}

/** Rust's `str::lines`. */
export function rustLines(s: string): string[] {
  if (s === "") return [];
  const parts = s.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts.map((l) => l.endsWith("\r") ? l.slice(0, -1) : l);
}

/** The `Display` of a Rust `std::io::Error` from an OS error number (the messages glibc's `strerror` gives). */
export function rustIoError(errno: number): string {
  const text: Record<number, string> = {
    2: "No such file or directory",
    13: "Permission denied",
    20: "Not a directory",
    21: "Is a directory",
  };
  return `${text[errno] ?? "Input/output error"} (os error ${errno})`;
}
