/** opencode's edit tool: its replacer chain (profiles/opencode/edit_match.ts) in the file's own line endings. */
import { shQuote } from "../../lib/runtime/channel.ts";
import { approx } from "../../lib/harness/provenance.ts";
import { OPENCODE_EDIT, OPENCODE_EDIT_MESSAGES } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";
import { OpError, readBytes } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { decode, resolveIn, stripBom } from "./common.ts";
import { writeText } from "./write.ts";

const EDIT_EMPTY_OLD = OPENCODE_EDIT_MESSAGES.empty;
const EDIT_IDENTICAL = OPENCODE_EDIT_MESSAGES.identical;

/** edit: the profile's rule of opencode's chain (exact first, then the fuzzy replacers), then the write. */
export async function edit(s: Session, a: Record<string, unknown>): Promise<string> {
  const filePath = a.filePath as string;
  const oldString = a.oldString as string, newString = a.newString as string;
  if (!filePath) return "filePath is required";
  if (oldString === newString) return EDIT_IDENTICAL;
  const u = resolveIn(s, filePath, true);
  if (oldString === "") {
    const r = await s.exec(`[ -e ${shQuote(u)} ] && echo yes`, { shell: "sh", timeout: 30 });
    if (r.stdout.startsWith("yes")) return EDIT_EMPTY_OLD;
    const [content, bom] = stripBom(newString);
    await writeText(s, u, content, bom);
    return "Edit applied successfully.";
  }
  let before: string, bom: boolean;
  try {
    [before, bom] = stripBom(decode((await readBytes(s.box, u)).data));
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    if (e.kind === "not_found") return `File ${u} not found`;
    if (e.kind === "is_dir") return `Path is a directory, not a file: ${u}`;
    return approx(`PermissionDenied: FileSystem.readFile (${u})`);
  }
  // The strings take the file's line endings.
  const eol = before.includes("\r\n") ? "\r\n" : "\n";
  const conv = (t: string) =>
    eol === "\n" ? t.replaceAll("\r\n", "\n") : t.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
  const old = conv(oldString), neu = conv(newString);
  if (old === neu) return EDIT_IDENTICAL;
  const r = OPENCODE_EDIT.replace(
    { content: before, old, neu, all: a.replaceAll === true },
    chainFor(OPENCODE_EDIT, s.profile.edits?.rule),
  );
  if (!r.ok) return OPENCODE_EDIT_MESSAGES[r.reason];
  const after = r.content;
  const [text, newBom] = stripBom(after);
  try {
    await writeText(s, u, text, bom || newBom);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    return approx(`PermissionDenied: FileSystem.writeFile (${u})`);
  }
  return "Edit applied successfully.";
}
