/**
 * Which shell commands codex 0.171.0 intercepts as a patch
 * (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:codex-rs/apply-patch/src/invocation.rs,
 * `extract_apply_patch_from_bash`): the whole script must be one statement, `apply_patch <<'EOF' … EOF` (or
 * `applypatch`, any delimiter, quoted or not), optionally preceded by `cd DIR &&` with exactly one plain, single- or
 * double-quoted argument. Anything before or after (`echo x;`, `&& echo done`, a second `cd`, `||`, `|`) is not a
 * patch. codex matches with a tree-sitter-bash query; this is a hand-written matcher of the same forms (approx. for
 * exotic quoting inside the `cd` argument).
 */

/** An intercepted patch: its heredoc body and the `cd` directory, if any. */
export interface HeredocPatch {
  /** The heredoc's body, trailing newlines removed. */
  body: string;
  /** The directory of a leading `cd DIR &&`, as written (relative to the command's cwd), or null. */
  workdir: string | null;
}

const WORD = String.raw`[^\s'"\\;&|<>()$\x60]+`;
const CD = new RegExp(String.raw`^cd[ \t]+(?:(${WORD})|'([^']*)'|"([^"\\$\x60]*)")[ \t]*&&[ \t]*`);
const HEAD = new RegExp(
  String.raw`^(?:apply_patch|applypatch)[ \t]*<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|(${WORD}))[ \t]*\n`,
);

/** The patch a script carries when codex would intercept it, else null. */
export function extractHeredocPatch(script: string): HeredocPatch | null {
  let rest = script.replace(/^\s+/, "");
  let workdir: string | null = null;
  const cd = CD.exec(rest);
  if (cd) {
    workdir = cd[1] ?? cd[2] ?? cd[3];
    rest = rest.slice(cd[0].length);
  }
  const head = HEAD.exec(rest);
  if (!head) return null;
  const stripTabs = head[1] === "-";
  const delim = head[2] ?? head[3] ?? head[4];
  const lines = rest.slice(head[0].length).split("\n");
  const end = lines.findIndex((l) => (stripTabs ? l.replace(/^\t+/, "") : l) === delim);
  if (end < 0) return null;
  // Nothing but whitespace may follow the delimiter line: the heredoc must be the whole script.
  if (lines.slice(end + 1).join("\n").trim() !== "") return null;
  const body = lines.slice(0, end).map((l) => stripTabs ? l.replace(/^\t+/, "") : l).join("\n");
  return { body: body.replace(/\n+$/, ""), workdir };
}
