/**
 * claude-code 2.1.332's Read, Edit and Write as recorded (tests/golden/claude-code/episode; the size cap from the
 * facts' claude-3 run) and read in its bundle (npm:@anthropic-ai/claude-code@2.1.332:bin/claude.exe, the Edit and
 * Write result mappers): `N\tline` numbering with no padding, reminders for an empty file and an offset past the
 * end, the 256KB cap, and the result suffix `(file state is current in your context — no need to Read it back)`,
 * which Edit leaves out when the file's content is not in the model's context (never read, or read in part).
 */
import { posix } from "node:path";
import { CLAUDE_CODE_EDIT, CLAUDE_CODE_EDIT_MESSAGES, ESCAPE_NOTE } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";
import { OpError, read, readBytes, write } from "../../lib/harness/tools/ops.ts";
import { approx } from "../../lib/harness/provenance.ts";
import type { Session } from "../../lib/harness/types.ts";
import { formatSize, shellCwd } from "./bash.ts";
import { EDIT, READ, WRITE } from "./schemas.ts";
import { inputError, toolUseError } from "./validate.ts";
import { episodeState } from "../../lib/harness/session_state.ts";

/** Bytes over which a whole-file Read is refused. */
export const MAX_READ_BYTES = 256 * 1024;
/** The suffix of an Edit or Write whose result the model's context already reflects. */
export const IN_CONTEXT = " (file state is current in your context — no need to Read it back)";
const STALE = " (note: the file had been modified on disk since you last read it — the edit applied cleanly, but the " +
  "file contains other changes not in your context. Read it before edits that depend on surrounding content.)";

/** What claude-code remembers of a file it showed the model: the text, and whether only part was shown. */
interface ReadState {
  content: string;
  partial: boolean;
}

const states = (s: Session) => episodeState(s, "cc.files", () => new Map<string, ReadState>());

const resolve = (s: Session, p: string) => posix.resolve(shellCwd(s), p);

/** `cat -n` style without padding: the line number, a tab, the line. */
export function numberLines(lines: string[], first: number): string {
  return lines.map((l, i) => `${first + i}\t${l}`).join("\n");
}

/** The Read tool. */
export async function readTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const invalid = inputError(READ, args);
  if (invalid) return invalid;
  const given = args.file_path as string, path = resolve(s, given);
  const ranged = args.offset !== undefined || args.limit !== undefined;
  let content: string;
  try {
    const { size } = await readBytes(s.box, path, 1);
    if (!ranged && size > MAX_READ_BYTES && args.allow_large !== true) {
      return `File content (${formatSize(size)}) exceeds maximum allowed size (256KB). Use offset and limit ` +
        "parameters to read specific portions of the file, or search for specific content instead of reading the " +
        "whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: " +
        "true — only if you genuinely need all of it or the user asked for the whole file.";
    }
    content = await read(s.box, path);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    if (e.kind === "not_found") {
      return `File does not exist. Note: your current working directory is ${shellCwd(s)}.`;
    }
    if (e.kind === "is_dir") return `EISDIR: illegal operation on a directory, read '${path}'`;
    return approx(`Error reading file: ${e.kind}`);
  }
  if (content === "") {
    states(s).set(path, { content, partial: false });
    return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";
  }
  const lines = content.split("\n");
  const first = Math.max(1, (args.offset as number | undefined) ?? 1);
  if (first > lines.length) {
    return `<system-reminder>Warning: the file exists but is shorter than the provided offset (${args.offset}). ` +
      `The file has ${lines.length} lines.</system-reminder>`;
  }
  const limit = args.limit as number | undefined;
  const shown = lines.slice(first - 1, limit === undefined ? undefined : first - 1 + limit);
  states(s).set(path, { content, partial: ranged });
  return numberLines(shown, first);
}

/** The Edit tool. */
export async function editTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const invalid = inputError(EDIT, args);
  if (invalid) return invalid;
  const given = args.file_path as string, path = resolve(s, given);
  const [old, neu, all] = [args.old_string as string, args.new_string as string, args.replace_all === true];
  if (old === neu) return toolUseError("No changes to make: old_string and new_string are exactly the same.");
  let before: string;
  try {
    before = await read(s.box, path);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    if (e.kind === "not_found" && old === "") before = "";
    else if (e.kind === "not_found") {
      return toolUseError(approx(`File does not exist. Note: your current working directory is ${shellCwd(s)}.`));
    } else return toolUseError(approx(`EISDIR: illegal operation on a directory, read '${path}'`));
  }
  const r = CLAUDE_CODE_EDIT.replace(
    { content: before, old, neu, all, path },
    chainFor(CLAUDE_CODE_EDIT, s.profile.edits?.rule),
  );
  if (!r.ok) {
    const quoted = `\nString: ${r.detail?.inputOld ?? old}`;
    switch (r.reason) {
      case "not_found":
        return toolUseError(
          `${CLAUDE_CODE_EDIT_MESSAGES.not_found}${quoted}${r.detail?.escapeNote ? ESCAPE_NOTE : ""}`,
        );
      case "ambiguous":
        return toolUseError(
          `Found ${r.count} matches of the string to replace, but replace_all is false. To replace all occurrences, ` +
            "set replace_all to true. To replace only one occurrence, please provide more context to uniquely " +
            `identify the instance.${quoted}`,
        );
      case "unchanged": // thrown while applying: an error result, not wrapped (recorded)
        return CLAUDE_CODE_EDIT_MESSAGES.unchanged;
      default: // identical, exists
        return toolUseError(CLAUDE_CODE_EDIT_MESSAGES[r.reason]);
    }
  }
  const after = r.content;
  await write(s.box, path, after);
  const known = states(s).get(path);
  // Not in the model's context (never read, or read in part): no claim that it is current.
  const suffix = !known || known.partial ? "" : known.content !== before ? STALE : IN_CONTEXT;
  if (known) states(s).set(path, { content: after, partial: known.partial });
  return all
    ? `The file ${given} has been updated. All occurrences were successfully replaced.${suffix}`
    : `The file ${given} has been updated successfully.${suffix}`;
}

/** The Write tool. */
export async function writeTool(s: Session, args: Record<string, unknown>): Promise<string> {
  const invalid = inputError(WRITE, args);
  if (invalid) return invalid;
  const given = args.file_path as string, path = resolve(s, given);
  const content = args.content as string;
  const exists = (await s.box.exec(`test -e '${path.replaceAll("'", `'\\''`)}'`, { shell: "sh" })).exitCode === 0;
  try {
    await write(s.box, path, content);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return approx(`EISDIR: illegal operation on a directory, open '${path}'`);
  }
  states(s).set(path, { content, partial: false });
  return exists
    ? `The file ${given} has been updated successfully.${IN_CONTEXT}`
    : `File created successfully at: ${given}${IN_CONTEXT}`;
}
