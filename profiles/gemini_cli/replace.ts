/**
 * replace (EditTool): a relative path is corrected as pathCorrector does (the direct path, else the one file of that
 * name the workspace's first 50 directories hold), an empty old_string creates a file, otherwise calculateReplacement
 * (profiles/gemini_cli/edit_match.ts) finds old_string; errors name the path as given, successes the resolved one, with the changed
 * lines in context. LLM self-correction is off (gemini's default `disableLLMCorrection`), so a miss is final.
 */
import { posix } from "node:path";
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import { OpError, readBytes } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { BFS_PY } from "./bfs_py.ts";
import { diffContextSnippet } from "./diff_snippet.ts";
import { decodeUtf8, nodeError, probe, writeLarge } from "./fs.ts";
import { omissionPlaceholders } from "./omission.ts";
import { defensivePath, env, pathAccessError } from "./paths.ts";
import { GEMINI_CLI_EDIT } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";
import { fuzzyFeedback, replaceError } from "./replace_errors.ts";
import { buildFilePolicy } from "./build_files.ts";
import { REPLACE_PARAMS } from "./schemas.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";

/** correctPath's search: files named like `rel`'s basename whose path ends with `rel`, breadth first. */
async function searchWorkspace(s: Session, rel: string): Promise<string[]> {
  const r = await s.box.exec(
    `command -v python3 >/dev/null || exit 127\npython3 -c ${shQuote(BFS_PY)} ${shQuote(env(s).workspace)} ${
      shQuote(posix.basename(rel))
    } 50`,
    { shell: "sh", timeoutSec: 60 },
  );
  if (r.exitCode !== 0) return [];
  const target = rel.replace(/\\/g, "/");
  return utf8(r.stdout).split("\0").filter((f) => f && f.endsWith(target));
}

/** The invocation's resolvedPath. */
async function target(s: Session, a: Args): Promise<string> {
  const p = str(a.file_path);
  const clean = p.replace(/\0/g, "");
  if (posix.isAbsolute(p)) return (await probe(s, clean)).real;
  const sanitized = await defensivePath(s, p);
  const direct = await probe(s, posix.join(s.workdir, sanitized));
  if (direct.kind !== "missing") return direct.real;
  const found = await searchWorkspace(s, sanitized);
  return (await probe(s, found.length === 1 ? found[0] : posix.resolve(s.workdir, sanitized))).real;
}

async function check(s: Session, a: Args): Promise<string | null> {
  if (!str(a.file_path)) return "The 'file_path' parameter must be non-empty."; // (source)
  const path = await target(s, a);
  const added = omissionPlaceholders(str(a.new_string));
  if (added.length) {
    const had = new Set(omissionPlaceholders(str(a.old_string)));
    if (added.some((p) => !had.has(p))) {
      return "`new_string` contains an omission placeholder (for example 'rest of methods ...'). Provide exact literal replacement text."; // (source)
    }
  }
  return pathAccessError(s, path);
}

async function exec(s: Session, a: Args): Promise<Outcome> {
  const path = await target(s, a);
  const denied = pathAccessError(s, path);
  if (denied) return fail(denied);
  const old = str(a.old_string), neu = str(a.new_string), all = a.allow_multiple === true;
  const info = await probe(s, path);
  let raw: string | null = null;
  if (info.kind !== "missing") {
    try {
      raw = decodeUtf8((await readBytes(s.box, path)).data);
    } catch (e) {
      if (!(e instanceof OpError)) throw e;
      const code = e.kind === "is_dir" ? "EISDIR" : e.kind === "denied" ? "EACCES" : "ENOENT";
      return fail(`Error preparing edit: ${nodeError(code, code === "EISDIR" ? "read" : "open", path)}`); // (source)
    }
  }
  if (raw === null) {
    if (old !== "") return fail(`File not found: ${path}`);
    return await save(s, path, neu, `Created new file: ${path} with provided content.`, "");
  }
  const crlf = raw.includes("\r\n");
  const current = raw.replace(/\r\n/g, "\n");
  if (old === "") return fail(`File already exists, cannot create: ${path}`);
  const r = GEMINI_CLI_EDIT.replace(
    { content: current, old, neu, all },
    chainFor(GEMINI_CLI_EDIT, s.profile.edits?.rule),
  );
  const bad = replaceError(str(a.file_path), r);
  if (bad || !r.ok) return fail(bad!);
  const final = crlf ? r.content.replace(/\r?\n/g, "\r\n") : r.content;
  const head = `Successfully modified file: ${path} (${r.count} replacements).`;
  return await save(s, path, final, head, current, fuzzyFeedback(r));
}

/** Writes the file and words the success: the message parts joined by a space, as gemini joins them. */
async function save(
  s: Session,
  path: string,
  content: string,
  head: string,
  before: string,
  feedback?: string | null,
): Promise<Outcome> {
  try {
    await writeLarge(s, path, content);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return fail(`Error executing edit: ${nodeError("EACCES", "open", path)}`); // (source)
  }
  const parts = [head, `Here is the updated code:\n${diffContextSnippet(before, content)}`];
  if (feedback) parts.push(feedback);
  return ok(parts.join(" "));
}

/** The replace tool. */
export const replaceTool = geminiTool({
  name: "replace",
  params: REPLACE_PARAMS,
  check,
  policy: buildFilePolicy,
  exec,
});

/** replace as gemini-cli 0.60.0 had it: no Build File Protection. */
export const replaceTool060 = geminiTool({ name: "replace", params: REPLACE_PARAMS, check, exec });
