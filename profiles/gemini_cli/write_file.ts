/**
 * write_file (WriteFileTool): creates or overwrites a file (parents made), keeps CRLF line ends when the old file had
 * them, and echoes the changed lines in context. No prior read is required and the content is written as given
 * (gemini corrects escaping only with LLM correction on, or for Gemini 1.x-style model names).
 */
import { posix } from "node:path";
import { OpError, readBytes } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { diffContextSnippet } from "./diff_snippet.ts";
import { decodeUtf8, nodeError, probe, writeLarge } from "./fs.ts";
import { omissionPlaceholders } from "./omission.ts";
import { defensivePath, pathAccessError } from "./paths.ts";
import { buildFilePolicy } from "./build_files.ts";
import { WRITE_FILE_PARAMS } from "./schemas.ts";
import { type Args, fail, geminiTool, ok, type Outcome, str } from "./tool.ts";

async function target(s: Session, a: Args): Promise<string> {
  return (await probe(s, posix.resolve(s.workdir, await defensivePath(s, str(a.file_path))))).real;
}

async function check(s: Session, a: Args): Promise<string | null> {
  if (!str(a.file_path)) return `Missing or empty "file_path"`; // (source)
  const path = await target(s, a);
  const denied = pathAccessError(s, path);
  if (denied) return denied;
  if ((await probe(s, path)).kind === "dir") return `Path is a directory, not a file: ${path}`; // (source)
  if (omissionPlaceholders(str(a.content)).length) {
    return "`content` contains an omission placeholder (for example 'rest of methods ...'). Provide complete file content."; // (source)
  }
  return null;
}

async function exec(s: Session, a: Args): Promise<Outcome> {
  const path = await target(s, a);
  const denied = pathAccessError(s, path);
  if (denied) return fail(denied);
  const content = str(a.content);
  let original = "", exists = false;
  if ((await probe(s, path)).kind !== "missing") {
    try {
      original = decodeUtf8((await readBytes(s.box, path)).data);
      exists = true;
    } catch (e) {
      if (!(e instanceof OpError)) throw e;
      const code = e.kind === "denied" ? "EACCES" : "EISDIR";
      return fail(`Error checking existing file '${path}': ${nodeError(code, "open", path)} (${code})`); // (source)
    }
  }
  const final = exists && original && original.includes("\r\n") ? content.replace(/\r?\n/g, "\r\n") : content;
  try {
    await writeLarge(s, path, final);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return fail(`Permission denied writing to file: ${path} (EACCES)`); // (source)
  }
  const head = exists
    ? `Successfully overwrote file: ${path}.`
    : `Successfully created and wrote to new file: ${path}.`;
  return ok(`${head} Here is the updated code:\n${diffContextSnippet(exists ? original : "", final)}`);
}

/** The write_file tool. */
export const writeFileTool = geminiTool({
  name: "write_file",
  params: WRITE_FILE_PARAMS,
  check,
  policy: buildFilePolicy,
  exec,
});

/** write_file as gemini-cli 0.60.0 had it: no Build File Protection. */
export const writeFileTool060 = geminiTool({ name: "write_file", params: WRITE_FILE_PARAMS, check, exec });
