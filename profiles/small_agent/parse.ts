/**
 * small-agent@1's action language: the body of one ```action block, its first word naming the action and the lines
 * after the first carrying a payload (the file's text, or `Find:` / `Replace:` sections). Pure: text in, an action out.
 * Parse errors are one line each, worded for a small model's next attempt.
 */

/** The action words, in the order the prompt and the errors list them. */
export const ACTIONS = ["map", "read", "edit", "append", "write", "run"] as const;

/** One parsed action; `note` says what of the block was ignored (extra lines after a one-line action). */
export type Action =
  | { kind: "map"; dir: string; note?: string }
  | { kind: "read"; path: string; start?: number; end?: number; note?: string }
  | { kind: "edit"; path: string; find: string; replace: string }
  | { kind: "append" | "write"; path: string; body: string }
  | { kind: "run"; command: string }
  | { kind: "error"; message: string };

/** The one-line error for a block whose first word is no action. */
export function unknownAction(word: string): string {
  const what = word ? `unknown action \`${word}\`` : "the action block is empty";
  return `Error: ${what}. Start the block with one of: ${ACTIONS.join(", ")}.`;
}

/** Splits `"a b" c` into its first token (quotes removed) and the rest. */
function firstToken(s: string): [string, string] {
  const t = s.trimStart();
  const q = t[0] === '"' || t[0] === "'" ? t.indexOf(t[0], 1) : -1;
  if (q > 0) return [t.slice(1, q), t.slice(q + 1).trim()];
  const sp = t.search(/\s/);
  return sp < 0 ? [t, ""] : [t.slice(0, sp), t.slice(sp + 1).trim()];
}

/** `START-END`, `START:END` or `START END` (1-based, inclusive); `START` or `START-` reads on from START. */
function parseRange(s: string): { start?: number; end?: number } | null {
  if (s === "") return {};
  const m = /^(\d+)\s*(?:[-:,]\s*(\d*)|\s+(\d+))?$/.exec(s);
  if (!m) return null;
  const end = m[2] || m[3];
  return { start: Number(m[1]), ...(end && { end: Number(end) }) };
}

/** The text after a section marker on its own line (`Find: x` → `x`), one separating space dropped. */
const inline = (line: string, marker: string) => line.trimStart().slice(marker.length).replace(/^ /, "");

/**
 * `Find:` and `Replace:` sections: each marker starts a line (case-insensitive) and may carry the section's first
 * line after it; Find runs to the first `Replace:` line, Replace to the end of the block. Blank lines around Find are
 * dropped (a model pads sections); Replace keeps its inner lines as written.
 */
export function parseSections(lines: string[]): { find: string; replace: string } | { error: string } {
  const isMarker = (l: string, m: string) => l.trimStart().toLowerCase().startsWith(m);
  const f = lines.findIndex((l) => isMarker(l, "find:"));
  if (f < 0) return { error: "no `Find:` line" };
  const r = lines.findIndex((l, i) => i > f && isMarker(l, "replace:"));
  if (r < 0) return { error: "no `Replace:` line after `Find:`" };
  const find = [inline(lines[f], "find:"), ...lines.slice(f + 1, r)];
  const replace = [inline(lines[r], "replace:"), ...lines.slice(r + 1)];
  if (find[0].trim() === "") find.shift();
  if (replace[0].trim() === "") replace.shift();
  while (find.length && find[0].trim() === "") find.shift();
  while (find.length && find[find.length - 1].trim() === "") find.pop();
  while (replace.length && replace[replace.length - 1].trim() === "") replace.pop();
  return { find: find.join("\n"), replace: replace.join("\n") };
}

const EDIT_FORMAT = "edit PATH, then a line `Find:` with the exact lines to change, then a line `Replace:` with " +
  "the new lines";

/** Reads one action block's body (as the fenced protocol gives it: trimmed). */
export function parseAction(body: string): Action {
  const nl = body.indexOf("\n");
  const head = nl < 0 ? body : body.slice(0, nl);
  const rest = nl < 0 ? "" : body.slice(nl + 1);
  const [rawWord, args] = firstToken(head);
  const word = rawWord.toLowerCase().replace(/:$/, "");
  const extra = rest.split("\n").filter((l) => l.trim()).length;
  const note = extra
    ? `(${extra} more line${extra === 1 ? "" : "s"} of the block ignored: one action per turn)`
    : undefined;
  const [path, after] = firstToken(args);
  const needPath = (usage: string): Action => ({
    kind: "error",
    message: `Error: \`${word}\` needs a path: ${usage}.`,
  });
  switch (word) {
    case "map":
      return { kind: "map", dir: path || ".", ...(note && { note }) };
    case "read": {
      if (!path) return needPath("read PATH or read PATH START-END");
      const range = parseRange(after);
      if (!range) {
        return { kind: "error", message: `Error: cannot read the line range \`${after}\`; write it as START-END.` };
      }
      return { kind: "read", path, ...range, ...(note && { note }) };
    }
    case "edit": {
      if (!path) return needPath(EDIT_FORMAT);
      const s = parseSections(rest.split("\n"));
      if ("error" in s) return { kind: "error", message: `Error: ${s.error}. The format is: ${EDIT_FORMAT}.` };
      return { kind: "edit", path, ...s };
    }
    case "append":
    case "write":
      if (!path) return needPath(`${word} PATH, then the text on the lines after it`);
      return { kind: word, path, body: rest };
    case "run": {
      const command = [args, rest].filter((x) => x.trim()).join("\n");
      if (!command) return { kind: "error", message: "Error: `run` needs a command, e.g. `run ls -la`." };
      return { kind: "run", command };
    }
    default:
      return { kind: "error", message: unknownAction(rawWord) };
  }
}
