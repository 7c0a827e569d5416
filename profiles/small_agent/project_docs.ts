/**
 * small-agent@1's project docs: the working directory's own rules (`AGENTS.md`, else `CLAUDE.md`, else
 * `CONTRIBUTING.md`) go into the first user turn above the task, capped, so the model edits by the project's
 * conventions from its first action instead of finding them (or not) later.
 */
import type { Session } from "../../lib/harness/types.ts";

/** The files looked for, in order: the first that exists is used. */
export const DOC_FILES = ["AGENTS.md", "CLAUDE.md", "CONTRIBUTING.md"] as const;
/** Characters of the docs kept. */
export const DOCS_CAP = 1200;
/** What follows the docs when they were cut. */
export const TRUNCATED = "\n[… truncated]";

/** Bytes read from the file: enough for DOCS_CAP characters of any UTF-8 text (at most 4 bytes each), and a few. */
const READ_BYTES = DOCS_CAP * 4 + 16;

/**
 * The `{project_docs}` template value: the docs under a heading, then the task's heading, or "" when the working
 * directory has none of the files (or they are empty).
 */
export async function projectDocs(s: Session): Promise<string> {
  const script = `for f in ${DOC_FILES.join(" ")}; do if [ -f "$f" ] && [ -r "$f" ]; then ` +
    `printf '%s\\n' "$f"; head -c ${READ_BYTES} -- "$f"; exit 0; fi; done`;
  const r = await s.exec(script, { shell: "sh", timeout: 30 });
  const nl = r.stdout.indexOf("\n");
  if (r.exitCode !== 0 || nl < 0) return "";
  return formatDocs(r.stdout.slice(0, nl), r.stdout.slice(nl + 1));
}

/** The docs of file `name` as the user turn shows them: trimmed, capped at DOCS_CAP characters (code points). */
export function formatDocs(name: string, text: string): string {
  const chars = [...text.trim()];
  if (chars.length === 0) return "";
  const body = chars.length > DOCS_CAP ? chars.slice(0, DOCS_CAP).join("").trimEnd() + TRUNCATED : chars.join("");
  return `## Project rules (from ${name})\n\n${body}\n\n## Task\n\n`;
}
