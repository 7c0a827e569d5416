/**
 * The `file_editor` tool (file_editor/editor.py, exceptions.py, utils/constants.py). Messages are upstream's (fact
 * sheet); the numbering and snippet arithmetic follow editor.py's `_make_output` and its 4-line snippet window
 * (recalled from the source, approx. where noted). Undo goes back up to ten edits of a path (create included), as
 * upstream's FileHistoryManager(max_history_per_file=10) does.
 */
import { EditHistory } from "../../lib/harness/tools/edit_history.ts";
import { episodeState } from "../../lib/harness/session_state.ts";
import { shQuote, text as decode } from "../../lib/runtime/channel.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { OpError, read, write } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import type { TextPart } from "../../lib/harness/types.ts";
import { errorParts, invalid, parts, pyStr, pyValue, takeMeta, validateAction } from "./args.ts";
import { maybeTruncate } from "./terminal.ts";

const MAX_RESPONSE_LEN_CHAR = 16000;
const SNIPPET_CONTEXT_WINDOW = 4;
const FILE_NOTICE = "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to " +
  "you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line " +
  "numbers of what you are looking for.</NOTE>";
const DIR_NOTICE = "<response clipped><NOTE>Due to the max output limit, only part of this directory has been shown " +
  "to you. You should use `ls -la` instead to view large directories incrementally.</NOTE>";

const COMMANDS = ["view", "create", "str_replace", "insert", "undo_edit"];
const FIELDS = {
  command: { literal: COMMANDS },
  path: "str",
  file_text: "str",
  old_str: "str",
  new_str: "str",
  insert_line: "int",
  view_range: "list[int]",
} as const;

/** A ToolError: the observation is an error (extra first part). */
class EditorError extends Error {}
const required = (p: string, cmd: string) => new EditorError(`Parameter \`${p}\` is required for command: ${cmd}.`);
const badParam = (p: string, v: unknown, hint: string) =>
  new EditorError(`Invalid \`${p}\` parameter: ${pyStr(v)}. ${hint}`);

/** Python's `str.expandtabs()` (tab stops every 8 columns). approx.: whether the SDK still expands tabs. */
function expandTabs(s: string): string {
  return s.split("\n").map((line) => {
    let out = "";
    for (const ch of line) out += ch === "\t" ? " ".repeat(8 - (out.length % 8)) : ch;
    return out;
  }).join("\n");
}

/** `_make_output`: the content clipped, numbered `{n:6}\t{line}`, under "Here's the result of running `cat -n` on". */
function makeOutput(content: string, description: string, start = 1): string {
  const clipped = expandTabs(maybeTruncate(content, MAX_RESPONSE_LEN_CHAR, FILE_NOTICE));
  const numbered = clipped.split("\n").map((l, i) => `${String(i + start).padStart(6)}\t${l}`).join("\n");
  return `Here's the result of running \`cat -n\` on ${description}:\n${numbered}\n`;
}

type Kind = "file" | "dir" | "missing";

async function kindOf(s: Session, path: string): Promise<Kind> {
  const r = await s.box.exec(
    `p=${shQuote(path)}; if [ -d "$p" ]; then echo dir; elif [ -e "$p" ]; then echo file; fi`,
    {
      shell: "sh",
      timeoutSec: 30,
    },
  );
  const k = decode(r.stdout).trim();
  return k === "dir" ? "dir" : k === "file" ? "file" : "missing";
}

async function validatePath(s: Session, command: string, path: string): Promise<Kind> {
  if (!path.startsWith("/")) {
    const guess = s.abspath(path);
    const hint = (await kindOf(s, guess)) !== "missing" ? ` Maybe you meant ${guess}?` : "";
    throw badParam("path", path, `The path should be an absolute path.${hint}`);
  }
  const kind = await kindOf(s, path);
  if (command === "create") {
    if (kind !== "missing") {
      throw badParam("path", path, `File already exists at: ${path}. Cannot overwrite files using command \`create\`.`);
    }
    return kind;
  }
  if (kind === "missing") {
    throw badParam("path", path, `The path ${path} does not exist. Please provide a valid path.`);
  }
  if (kind === "dir" && command !== "view") {
    throw badParam(
      "path",
      path,
      `The path ${path} is a directory and only the \`view\` command can be used on directories.`,
    );
  }
  return kind;
}

async function readText(s: Session, path: string): Promise<string> {
  try {
    return await read(s.box, path);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    if (e.kind === "binary") {
      // approx.: the decoder's own error text.
      throw new EditorError(approx(
        `Cannot view ${path}: file contains binary content that cannot be decoded as text. Error: binary file`,
      ));
    }
    // approx.: {e} is Python's OSError.
    throw new EditorError(approx(`Ran into ${e.message} while trying to read ${path}`));
  }
}

/** FileHistoryManager(max_history_per_file=10) in editor.py: ten entries per path, the oldest dropped. */
const MAX_HISTORY_PER_FILE = 10;
const history = (s: Session) => episodeState(s, "oh.history", () => new EditHistory(MAX_HISTORY_PER_FILE));

async function viewDir(s: Session, path: string): Promise<string> {
  // approx.: upstream lists with its own walk; here find to depth 2, hidden entries left out and counted at the top.
  const r = await s.box.exec(
    `cd ${shQuote(path)} && find . -mindepth 1 -maxdepth 2 -not -path '*/.*' -printf '%y %P\\n' | sort -k2; ` +
      `echo "#hidden $(find . -mindepth 1 -maxdepth 1 -name '.*' | wc -l)"`,
    { shell: "sh", timeoutSec: 60 },
  );
  const lines = decode(r.stdout).split("\n").filter(Boolean);
  const hidden = Number(lines.pop()?.replace("#hidden ", "") ?? 0);
  const base = path.replace(/\/+$/, "") || "";
  const entries = lines.map((l) => `${base}/${l.slice(2)}${l[0] === "d" ? "/" : ""}`);
  let out = `Here's the files and directories up to 2 levels deep in ${path}, excluding hidden items:\n` +
    maybeTruncate([`${base}/`, ...entries].join("\n"), MAX_RESPONSE_LEN_CHAR, DIR_NOTICE);
  if (hidden > 0) {
    out += `\n\n${hidden} hidden files/directories in this directory are excluded. You can use 'ls -la ${path}' to ` +
      "see them.";
  }
  return out;
}

async function view(s: Session, path: string, kind: Kind, range: number[] | undefined): Promise<string> {
  if (kind === "dir") {
    if (range) {
      throw badParam(
        "view_range",
        range,
        "The `view_range` parameter is not allowed when `path` points to a directory.",
      );
    }
    return await viewDir(s, path);
  }
  const content = await readText(s, path);
  if (!range) return makeOutput(content, path);
  if (range.length !== 2) throw badParam("view_range", range, "It should be a list of two integers.");
  const lines = content.split("\n");
  const n = lines.length;
  const [start, end] = range;
  if (start < 1 || start > n) {
    throw badParam(
      "view_range",
      range,
      `Its first element \`${start}\` should be within the range of lines of the file: [1, ${n}].`,
    );
  }
  if (end !== -1 && end < start) {
    throw badParam(
      "view_range",
      range,
      `Its second element \`${end}\` should be greater than or equal to the first element \`${start}\`.`,
    );
  }
  if (end > n) {
    return `NOTE: We only show up to ${n} since there're only ${n} lines in this file.\n` +
      makeOutput(lines.slice(start - 1).join("\n"), path, start);
  }
  return makeOutput(lines.slice(start - 1, end === -1 ? undefined : end).join("\n"), path, start);
}

function occurrences(hay: string, needle: string): number[] {
  const at: number[] = [];
  if (needle === "") return at;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

const lineOf = (s: string, index: number) => s.slice(0, index).split("\n").length;

async function strReplace(s: Session, path: string, oldStr: string, newStr: string): Promise<string> {
  if (newStr === oldStr) {
    throw badParam("new_str", newStr, "No replacement was performed. `new_str` and `old_str` must be different.");
  }
  const content = await readText(s, path);
  let old = oldStr;
  let hits = occurrences(content, old);
  if (hits.length === 0) {
    old = oldStr.trim();
    hits = occurrences(content, old);
  }
  if (hits.length === 0) {
    throw new EditorError(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`);
  }
  if (hits.length > 1) {
    const lines = hits.map((i) => lineOf(content, i));
    throw new EditorError(
      `No replacement was performed. Multiple occurrences of old_str \`${old}\` in lines ${
        pyValue(lines)
      }. Please ensure it is unique.`,
    );
  }
  const after = content.slice(0, hits[0]) + newStr + content.slice(hits[0] + old.length);
  await write(s.box, path, after);
  history(s).push(path, content);
  const line = lineOf(content, hits[0]) - 1;
  const from = Math.max(0, line - SNIPPET_CONTEXT_WINDOW);
  const to = line + SNIPPET_CONTEXT_WINDOW + newStr.split("\n").length - 1;
  const snippet = after.split("\n").slice(from, to + 1).join("\n");
  return `The file ${path} has been edited. ${makeOutput(snippet, `a snippet of ${path}`, from + 1)}` +
    "Review the changes and make sure they are as expected. Edit the file again if necessary.";
}

async function insertAt(s: Session, path: string, line: number, newStr: string): Promise<string> {
  const content = await readText(s, path);
  const lines = content.split("\n");
  const n = lines.length;
  if (line < 0 || line > n) {
    throw badParam("insert_line", line, `It should be within the range of allowed values: [0, ${n}]`);
  }
  const ins = newStr.split("\n");
  const after = [...lines.slice(0, line), ...ins, ...lines.slice(line)].join("\n");
  const snippet = [
    ...lines.slice(Math.max(0, line - SNIPPET_CONTEXT_WINDOW), line),
    ...ins,
    ...lines.slice(line, line + SNIPPET_CONTEXT_WINDOW),
  ].join("\n");
  await write(s.box, path, after);
  history(s).push(path, content);
  return `The file ${path} has been edited. ` +
    makeOutput(snippet, "a snippet of the edited file", Math.max(1, line - SNIPPET_CONTEXT_WINDOW + 1)) +
    "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). " +
    "Edit the file again if necessary.";
}

/** Infers a missing `command` as normalize_tool_call does. */
function inferCommand(args: Record<string, unknown>): Record<string, unknown> | string {
  if (args.command !== undefined && args.command !== null) return args;
  const command = "old_str" in args
    ? "str_replace"
    : "insert_line" in args
    ? "insert"
    : "file_text" in args
    ? "create"
    : "path" in args
    ? "view"
    : undefined;
  if (command) return { command, ...args };
  return `Cannot infer 'command' for tool 'file_editor' from empty arguments ${
    pyValue(args)
  }. Expected one of: str_replace, insert, create, view with appropriate arguments (e.g., old_str for str_replace, ` +
    "path for view).";
}

/** The file_editor binding. */
export async function fileEditorTool(s: Session, raw: Record<string, unknown>): Promise<TextPart[]> {
  const meta = takeMeta(raw);
  if ("error" in meta) return invalid("file_editor", meta.error, raw);
  const inferred = inferCommand(meta.args);
  if (typeof inferred === "string") return invalid("file_editor", inferred, meta.args);
  // fix_malformed_tool_arguments: a list given as a JSON string is parsed.
  if (typeof inferred.view_range === "string") {
    try {
      inferred.view_range = JSON.parse(inferred.view_range);
    } catch { /* left for validation */ }
  }
  const v = validateAction("FileEditorAction", FIELDS, ["command", "path"], inferred);
  if ("error" in v) return invalid("file_editor", v.error, inferred);
  const a = v.ok as {
    command: string;
    path: string;
    file_text?: string;
    old_str?: string;
    new_str?: string;
    insert_line?: number;
    view_range?: number[];
  };
  try {
    const kind = await validatePath(s, a.command, a.path);
    switch (a.command) {
      case "view":
        return parts(await view(s, a.path, kind, a.view_range));
      case "create": {
        if (a.file_text === undefined) throw required("file_text", "create");
        await write(s.box, a.path, a.file_text);
        // Upstream records the new text on create, so undoing a create rewrites the same text.
        history(s).push(a.path, a.file_text);
        return parts(`File created successfully at: ${a.path}`);
      }
      case "str_replace":
        if (a.old_str === undefined) throw required("old_str", "str_replace");
        if (a.new_str === undefined) throw required("new_str", "str_replace");
        return parts(await strReplace(s, a.path, a.old_str, a.new_str));
      case "insert":
        if (a.insert_line === undefined) throw required("insert_line", "insert");
        if (a.new_str === undefined) throw required("new_str", "insert");
        return parts(await insertAt(s, a.path, a.insert_line, a.new_str));
      default: {
        const prev = history(s).pop(a.path);
        if (prev === undefined) throw new EditorError(`No edit history found for ${a.path}.`);
        await write(s.box, a.path, prev);
        return parts(`Last edit to ${a.path} undone successfully. ${makeOutput(prev, a.path)}`);
      }
    }
  } catch (e) {
    if (e instanceof EditorError) return errorParts(e.message);
    if (e instanceof OpError) return errorParts(approx(`Ran into ${e.message} while trying to write to ${a.path}`));
    throw e;
  }
}
