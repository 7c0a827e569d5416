/**
 * small-agent@1's actions on the container: `map`, `read`, `edit` (the recoverable edit), `append`, `write` and
 * `run`, each answering in plain text that names the next move when something went wrong. `act` parses one block's
 * body, applies the loop guard to the read-only actions and runs the action.
 */
import { OpError, read, write } from "../../lib/harness/tools/ops.ts";
import { type NumberedLine, SMALL_AGENT_EDIT } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";
import { headTailChars } from "../../lib/harness/tools/truncate.ts";
import type { Session } from "../../lib/harness/types.ts";
import { loopGuard, refusal } from "./loop_guard.ts";
import { mapDir } from "./map.ts";
import { type Action, parseAction } from "./parse.ts";

/** Lines one `read` shows at most, and characters of one line. */
export const READ_LINES = 400, LINE_CHARS = 500;
/** Characters of `run` output kept at most (head and tail), below the session's own limit. */
export const RUN_CHARS = 8000;
/** Lines of context shown around an applied edit. */
const CONTEXT = 2;

/** A line as `read` and the edit's answers number it. */
export const numbered = (n: number, text: string): string => `${String(n).padStart(4)} | ${text}`;

const lineCount = (text: string) => text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;

/** An op's mistake in words that say what to do next; anything else is rethrown. */
function opError(e: unknown, path: string): string {
  if (!(e instanceof OpError)) throw e;
  switch (e.kind) {
    case "not_found":
      return `Error: there is no file \`${path}\`. Run \`map\` to see the files, or \`write ${path}\` to create it.`;
    case "is_dir":
      return `Error: \`${path}\` is a directory; use \`map ${path}\` to see what is in it.`;
    case "binary":
      return `Error: \`${path}\` is a binary file; it cannot be shown or edited as text.`;
    case "denied":
      return `Error: \`${path}\` cannot be read (permission denied).`;
    default:
      return `Error: ${path}: ${String(e.data.message ?? e.kind)}`;
  }
}

/** `read PATH [START-END]`: numbered lines, at most READ_LINES, with how to read on. */
export async function readFile(s: Session, path: string, start = 1, end?: number): Promise<string> {
  let text: string;
  try {
    text = await read(s.box, s.abspath(path));
  } catch (e) {
    return opError(e, path);
  }
  const lines = text.replace(/\n$/, "").split("\n");
  if (text === "") return `${path} is empty.`;
  const total = lines.length;
  if (start < 1 || start > total || (end !== undefined && end < start)) {
    return `Error: ${path} has ${total} lines; ask for a range within 1-${total}, e.g. \`read ${path} 1-${
      Math.min(total, READ_LINES)
    }\`.`;
  }
  const last = Math.min(end ?? total, total, start + READ_LINES - 1);
  const shown = lines.slice(start - 1, last).map((l, i) => {
    const cut = l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)} … [${l.length - LINE_CHARS} more characters]` : l;
    return numbered(start + i, cut);
  });
  const head = `${path} (lines ${start}-${last} of ${total}):`;
  const more = last < total && last < (end ?? total)
    ? `\n[${READ_LINES} lines at most per read: \`read ${path} ${last + 1}-${Math.min(total, last + READ_LINES)}\` ` +
      `shows more]`
    : "";
  return `${head}\n${shown.join("\n")}${more}`;
}

/** The closest lines of a missed Find, numbered, for the model to copy. */
function closest(lines: NumberedLine[]): string {
  return lines.map((l) => numbered(l.line, l.text)).join("\n");
}

/** `edit PATH` with Find/Replace, through the profile's matcher and rule; the wording of every outcome. */
export async function editFile(s: Session, path: string, find: string, replace: string): Promise<string> {
  const edits = s.profile.edits ?? { matcher: SMALL_AGENT_EDIT };
  let content: string;
  try {
    content = await read(s.box, s.abspath(path));
  } catch (e) {
    return opError(e, path);
  }
  const m = edits.matcher.replace({ content, old: find, neu: replace }, chainFor(edits.matcher, edits.rule));
  if (!m.ok) {
    switch (m.reason) {
      case "empty_old":
        return `Error: Find: is empty. To add lines use \`append ${path}\`; to replace the whole file use ` +
          `\`write ${path}\`.`;
      case "ambiguous": {
        const at = (m.detail?.lines as number[]).join(", ");
        return `Error: Find: matches ${m.count} places in ${path} (lines ${at}); nothing was changed. Add a ` +
          `neighbouring line to Find: so that it matches one place.`;
      }
      default: {
        const near = (m.detail?.closest as NumberedLine[] | undefined) ?? [];
        if (near.length === 0) return `Error: Find: does not match ${path}, which has no text to match.`;
        return `Error: Find: does not match ${path}; nothing was changed. The closest lines in the file:\n` +
          `${closest(near)}\nCopy the lines you mean exactly (without the numbers), or \`read ${path} ` +
          `${Math.max(1, near[0].line - 10)}-${near[0].line + 10}\` to see more.`;
      }
    }
  }
  if (m.content === content) return `No change: Replace: gives the same text as Find: in ${path}.`;
  try {
    await write(s.box, s.abspath(path), m.content);
  } catch (e) {
    return opError(e, path);
  }
  loopGuard(s).reset();
  const line = m.detail?.line as number, span = m.detail?.lines as number, shift = m.detail?.shift as number;
  const how = m.strategy === "exact"
    ? ""
    : ` (Find: matched with whitespace ignored${
      shift ? `; the replacement was re-indented by ${shift > 0 ? "+" : ""}${shift}` : ""
    })`;
  const after = m.content.replace(/\n$/, "").split("\n");
  const from = Math.max(1, line - CONTEXT), to = Math.min(after.length, line + Math.max(span, 1) - 1 + CONTEXT);
  const region = after.slice(from - 1, to).map((l, i) => numbered(from + i, l)).join("\n");
  return `Edited ${path} at line ${line}${how}. Lines ${from}-${to} now:\n${region}`;
}

/** `write PATH` (the whole file) or `append PATH` (at its end, on a line of its own; created when missing). */
export async function writeFile(s: Session, kind: "append" | "write", path: string, body: string): Promise<string> {
  // The protocol trims the block, so a non-empty text gets its last line end back.
  const text = body === "" || body.endsWith("\n") ? body : body + "\n";
  let before = "";
  if (kind === "append") {
    try {
      before = await read(s.box, s.abspath(path));
    } catch (e) {
      if (!(e instanceof OpError && e.kind === "not_found")) return opError(e, path);
    }
    if (before !== "" && !before.endsWith("\n")) before += "\n";
  }
  try {
    await write(s.box, s.abspath(path), before + text);
  } catch (e) {
    return opError(e, path);
  }
  loopGuard(s).reset();
  const n = lineCount(text), first = lineCount(before) + 1;
  const lines = `${n} line${n === 1 ? "" : "s"}`;
  return kind === "write"
    ? `Wrote ${path} (${lines}).`
    : `Appended ${lines} to ${path} (now lines ${first}-${first + n - 1}).`;
}

/** `run COMMAND`: a shell that keeps `cd` and exports, stderr merged; exit code first, output head and tail. */
export async function runCommand(s: Session, command: string): Promise<string> {
  const timeout = s.profile.execTimeout;
  const r = await s.exec(command, { persistent: true, merge: true, timeout });
  // A command may change any file: what was read before may be stale now.
  loopGuard(s).reset();
  const status = r.timedOut ? `[timed out after ${timeout} s]` : `[exit ${r.exitCode}]`;
  const max = Math.min(s.maxOutput, RUN_CHARS), half = Math.floor(max / 2);
  const out = headTailChars(r.output, half, max - half, (cut) => `\n[… ${cut} characters cut …]\n`);
  return `${status}\n${out === "" ? "(no output)" : out}`;
}

/** The loop guard's key of a read-only action: what it shows, not how it was spelled. */
function guardKey(s: Session, a: Action & { kind: "map" | "read" }): string {
  return a.kind === "map" ? `map ${s.abspath(a.dir)}` : `read ${s.abspath(a.path)} ${a.start ?? 1}-${a.end ?? ""}`;
}

/** Runs one action block's body: the `act` tool's binding. */
export async function act(s: Session, body: string): Promise<string> {
  const a = parseAction(body);
  if (a.kind === "map" || a.kind === "read") {
    if (loopGuard(s).refuse(guardKey(s, a))) {
      return refusal(body.split("\n")[0].trim(), a.kind, a.kind === "read" ? a.path : a.dir);
    }
    const out = a.kind === "map" ? await mapDir(s, a.dir) : await readFile(s, a.path, a.start, a.end);
    return a.note ? `${out}\n${a.note}` : out;
  }
  switch (a.kind) {
    case "edit":
      return await editFile(s, a.path, a.find, a.replace);
    case "append":
    case "write":
      return await writeFile(s, a.kind, a.path, a.body);
    case "run":
      return await runCommand(s, a.command);
    case "error":
      return a.message;
  }
}
