/** omissionPlaceholderDetector: lines such as `// rest of methods ...` that replace and write_file refuse. */

const PREFIXES = new Set([
  "rest of",
  "rest of method",
  "rest of methods",
  "rest of code",
  "unchanged code",
  "unchanged method",
  "unchanged methods",
]);

const normalizeWhitespace = (s: string) => s.split(/[ \t\n\r]+/).filter(Boolean).join(" ");

function placeholder(line: string): string | null {
  let t = line.trim();
  if (!t) return null;
  if (t.startsWith("//")) t = t.slice(2).trim();
  if (t.startsWith("(") && t.endsWith(")")) t = t.slice(1, -1).trim();
  const at = t.indexOf("...");
  if (at < 0) return null;
  const prefix = normalizeWhitespace(t.slice(0, at).trim().toLowerCase());
  const suffix = t.slice(at + 3).trim();
  if (!PREFIXES.has(prefix)) return null;
  if (suffix.length > 0 && !/^\.+$/.test(suffix)) return null;
  return `${prefix} ...`;
}

/** The placeholders found, one per line that is one. */
export function omissionPlaceholders(text: string): string[] {
  return text.replaceAll("\r\n", "\n").split("\n").map(placeholder).filter((p): p is string => p !== null);
}
