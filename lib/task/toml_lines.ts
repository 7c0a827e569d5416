/**
 * Finds the line of a dotted key in TOML text. smol-toml reports lines only for syntax errors, so a bad value in a
 * well-formed file is located by scanning the text instead.
 */

/** The 1-based line defining `path` (a `[table]` header, a `key =`, a dotted key or a key in an inline table); else its nearest located ancestor's, else undefined. */
export function findKeyLine(text: string, path: readonly string[]): number | undefined {
  const lines = text.split(/\r?\n/);
  for (let n = path.length; n > 0; n--) {
    const line = exactLine(lines, path.slice(0, n));
    if (line !== undefined) return line;
  }
  return undefined;
}

function exactLine(lines: string[], path: readonly string[]): number | undefined {
  let table: string[] = [];
  let inMultiline: string | null = null;
  // Arrays of tables seen so far (`[[steps]]`), by their path: the index of their last element. A header under one
  // (`[steps.verifier]`) names that element, so its keys gain the index (`steps.0.verifier`), as paths in errors do.
  const arrays = new Map<string, number>();
  const indexed = (keys: string[]) => {
    const out: string[] = [];
    for (const k of keys) {
      out.push(k);
      const n = arrays.get(out.join("\0"));
      if (n !== undefined) out.push(String(n));
    }
    return out;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (inMultiline) {
      if (line.includes(inMultiline)) inMultiline = null;
      continue;
    }
    const t = line.trimStart();
    if (t === "" || t.startsWith("#")) continue;
    if (t.startsWith("[")) {
      const array = t.startsWith("[[");
      const key = parseKey(t, array ? 2 : 1);
      if (!key) continue;
      if (array) {
        const at = [...indexed(key.keys.slice(0, -1)), key.keys[key.keys.length - 1]];
        const id = at.join("\0");
        const n = (arrays.get(id) ?? -1) + 1;
        arrays.set(id, n);
        // The array itself is located at its first element.
        if (n === 0 && same(at, path)) return i + 1;
        table = [...at, String(n)];
      } else table = indexed(key.keys);
      if (same(table, path)) return i + 1;
      continue;
    }
    const key = parseKey(t, 0);
    if (!key) continue;
    let j = skipSpace(t, key.end);
    if (t[j] !== "=") continue;
    j = skipSpace(t, j + 1);
    const full = [...table, ...key.keys];
    if (same(full, path)) return i + 1;
    if (t[j] === "{" && isPrefix(full, path) && inInline(t, j, full, path)) return i + 1;
    // A multi-line string's lines may look like `key = value`; they are skipped until the closing quotes.
    for (const q of ['"""', "'''"]) {
      if (t.startsWith(q, j) && !t.includes(q, j + 3)) inMultiline = q;
    }
  }
  return undefined;
}

/** Whether the inline table starting at `s[i] === "{"` (whose keys sit under `prefix`) defines `path`. */
function inInline(s: string, i: number, prefix: string[], path: readonly string[]): boolean {
  i++;
  while (i < s.length) {
    i = skipSpace(s, i);
    if (s[i] === "}") return false;
    const key = parseKey(s, i);
    if (!key) return false;
    i = skipSpace(s, key.end);
    if (s[i] !== "=") return false;
    i = skipSpace(s, i + 1);
    const full = [...prefix, ...key.keys];
    if (same(full, path)) return true;
    if (s[i] === "{" && isPrefix(full, path) && inInline(s, i, full, path)) return true;
    i = skipSpace(s, skipValue(s, i));
    if (s[i] !== ",") return false;
    i++;
  }
  return false;
}

/** The index just after the value starting at `i`: at the `,` or `}` that ends it. */
function skipValue(s: string, i: number): number {
  let depth = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '"' || c === "'") {
      i = skipString(s, i);
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return i;
      depth--;
    } else if (c === "," && depth === 0) return i;
    i++;
  }
  return i;
}

function skipString(s: string, i: number): number {
  const q = s[i];
  for (i++; i < s.length; i++) {
    if (q === '"' && s[i] === "\\") i++;
    else if (s[i] === q) return i + 1;
  }
  return i;
}

/** Parses a possibly dotted, possibly quoted key at `s[i]`. */
function parseKey(s: string, i: number): { keys: string[]; end: number } | undefined {
  const keys: string[] = [];
  for (;;) {
    i = skipSpace(s, i);
    const c = s[i];
    if (c === '"' || c === "'") {
      const end = skipString(s, i);
      if (s[end - 1] !== c || end - 1 === i) return undefined;
      keys.push(c === '"' ? unescape(s.slice(i, end)) : s.slice(i + 1, end - 1));
      i = end;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m) return undefined;
      keys.push(m[0]);
      i += m[0].length;
    }
    const j = skipSpace(s, i);
    if (s[j] !== ".") return { keys, end: i };
    i = j + 1;
  }
}

function unescape(quoted: string): string {
  try {
    return JSON.parse(quoted);
  } catch {
    // TOML escapes JSON lacks (\e, \U): a key is still recognisable by its raw text.
    return quoted.slice(1, -1);
  }
}

function skipSpace(s: string, i: number): number {
  while (s[i] === " " || s[i] === "\t") i++;
  return i;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length < b.length && a.every((k, i) => k === b[i]);
}
