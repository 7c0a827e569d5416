/** Normalises text for comparison: working directories, tool-call ids and dates become placeholders. */

/** What to replace. */
export interface NormalizeOptions {
  /** Paths that stand for the working directory (the recording's cwd, the container's workdir). */
  workdirs: string[];
  /** Tools the harness sends that the profile leaves out by design (reported, not counted; default none). */
  omittedTools?: string[];
  /** Indices of the first user message's text parts that the profile paraphrases by design (default none). */
  paraphrasedParts?: number[];
  /** Indices of the first request's messages before the user's turn that the profile paraphrases (default none). */
  paraphrasedMessages?: number[];
  /** Compare every text exactly, system prompts and long descriptions too (two recordings; default false). */
  exact?: boolean;
  /** Other machine-specific text and its placeholder, e.g. a capture's HOME → `{home}` (replaced first; default none). */
  paths?: [text: string, placeholder: string][];
}

const ID = /\b(?:call|toolu|fc|tool|functions?\.[A-Za-z_]+:?)[_-]?[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g;
const ISO = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const LS_DATE = new RegExp(`\\b${MONTH} +\\d{1,2} +(?:\\d{1,2}:\\d{2}|\\d{4})\\b`, "g");
const LONG_DATE = new RegExp(
  `\\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +)?${MONTH}[a-z]* +\\d{1,2},? +\\d{4}\\b`,
  "g",
);

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Values a harness draws afresh each run, in its own wording: codex's chunk ids, wall times and session ids. */
const VOLATILE: [RegExp, string][] = [
  [/\bChunk ID: [0-9a-f]{6}\b/g, "Chunk ID: {chunk}"],
  [/\bWall time: \d+\.\d{4} seconds\b/g, "Wall time: {seconds} seconds"],
  [/\bsession ID \d+\b/g, "session ID {session}"],
  // gemini-cli's real process group ids, its project temp dir under $HOME, and its random session id.
  [/Process Group PGID: \d+/g, "Process Group PGID: {pgid}"],
  [/(?:\/[\w.-]+)+?\/\.gemini\/tmp(?![\w.-])/g, "{home}/.gemini/tmp"],
  [/\bsession-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b/g, "session-{uuid}"],
];

/** Replaces the workdirs (longest first) by `{workdir}`, ids by `{id}`, dates by `{date}`, volatile values too. */
export function normalizeText(text: string, opts: NormalizeOptions): string {
  let out = text;
  for (const [from, to] of [...opts.paths ?? []].sort((a, b) => b[0].length - a[0].length)) {
    if (from.length > 1) out = out.split(from).join(to);
  }
  const dirs = [...new Set(opts.workdirs.filter((d) => d && d !== "/"))].sort((a, b) => b.length - a.length);
  for (const d of dirs) {
    // A full stop after the path ends a sentence ("... is /workdir."), unless a name goes on after it.
    out = out.replace(
      new RegExp(`${escape(d.replace(/\/+$/, ""))}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_-])`, "g"),
      "{workdir}",
    );
  }
  for (const [re, to] of VOLATILE) out = out.replace(re, to);
  return out.replace(ISO, "{date}").replace(LS_DATE, "{date}").replace(LONG_DATE, "{date}").replace(ID, "{id}");
}

/** Content as text: a string as is, parts joined, null as "". */
export function contentText(c: unknown): string {
  if (c == null) return "";
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("");
  return JSON.stringify(c);
}

/** The content's shape: `null`, `""`, `string`, `parts[N]` (or `absent`). */
export function contentShape(c: unknown): string {
  if (c === undefined) return "absent";
  if (c === null) return "null";
  if (typeof c === "string") return c === "" ? '""' : "string";
  if (Array.isArray(c)) return `parts[${c.length}]`;
  return typeof c;
}
