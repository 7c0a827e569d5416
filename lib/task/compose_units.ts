/**
 * The scalar forms a Compose file writes its values in, read as Docker Compose reads them: Go durations
 * (`1m30s`), byte sizes (`512m`, `2g`), booleans written as strings (`"true"`, `yes`) and shell-words command lines.
 * Each parser returns `undefined` for a value it cannot read, so the caller can name the file, service and field.
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration (`time.ParseDuration`: `1m30s`, `1.5s`, `100ms`, `2h`, `0`) in milliseconds; a bare number is
 * taken as seconds, as Compose does for integer durations. `undefined` when it is not one.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  if (typeof value !== "string") return undefined;
  const s = value.trim();
  if (s === "0") return 0;
  if (!/^((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s)) return undefined;
  let ms = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) ms += Number(m[1]) * UNIT_MS[m[2]];
  return ms;
}

const BYTE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
  p: 1024 ** 5,
};

/**
 * A memory size as Docker reads it (`go-units.RAMInBytes`: binary units, `512m`, `2g`, `1.5GB`, `100MiB`, a plain
 * number of bytes), in bytes. `undefined` when it is not one.
 */
export function parseBytes(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  if (typeof value !== "string") return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$/i.exec(value) ??
    /^\s*(\d+(?:\.\d+)?)\s*(b?)\s*$/i.exec(value);
  if (!m) return undefined;
  return Math.floor(Number(m[1]) * BYTE_UNITS[m[2].toLowerCase()]);
}

/** A CPU count (`1.5`, `"0.5"`), `undefined` when it is not a non-negative number. */
export function parseCpus(value: unknown): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A boolean as Compose casts one (`true`/`false`, and the strings `y`, `yes`, `on`, `n`, `no`, `off`, any case). */
export function parseBool(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const s = value.trim().toLowerCase();
  if (["true", "y", "yes", "on"].includes(s)) return true;
  if (["false", "n", "no", "off"].includes(s)) return false;
  return undefined;
}

/** A non-negative integer written as a number or a string (`retries: "3"`). */
export function parseCount(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Splits a command line into words as Compose does for the string form of `command` and `entrypoint`
 * (shell words: blanks separate, single quotes keep everything, double quotes and backslashes escape; no expansion).
 * `undefined` when a quote is left open.
 */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return undefined;
  if (inWord) words.push(word);
  return words;
}
