/**
 * pi's edit tool (edit.js, edit-diff.js): all edits matched against the original text by pi's matcher
 * (profiles/pi/edit_match.ts: exact, then whitespace- and quote-normalised, BOM and line endings kept), then
 * pi's wording of each miss.
 */
import { approx } from "../../lib/harness/provenance.ts";
import { PI_EDIT, piApplyEdits } from "./edit_match.ts";
import { chainFor } from "../../lib/harness/tools/edit_match/types.ts";
import { OpError, read, write } from "../../lib/harness/tools/ops.ts";
import type { Session } from "../../lib/harness/types.ts";
import { nodeError, PiError } from "./errors.ts";
import { accessError, resolveToCwd } from "./paths.ts";

interface Edit {
  oldText: string;
  newText: string;
}

function notFound(path: string, i: number, n: number): string {
  return n === 1
    ? `Could not find the exact text in ${path}. The old text must match exactly including all whitespace and newlines.`
    : `Could not find edits[${i}] in ${path}. The oldText must match exactly including all whitespace and newlines.`;
}

function duplicate(path: string, i: number, n: number, count: number): string {
  return n === 1
    ? `Found ${count} occurrences of the text in ${path}. The text must be unique. Please provide more context to ` +
      `make it unique.`
    : `Found ${count} occurrences of edits[${i}] in ${path}. Each oldText must be unique. Please provide more ` +
      `context to make it unique.`;
}

/** edit: applies every edits[] replacement to the original file at once, or throws pi's message. */
export async function editTool(s: Session, a: Record<string, unknown>): Promise<string> {
  const path = a.path as string;
  const edits = a.edits as Edit[];
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new PiError("Edit tool input is invalid. edits must contain at least one replacement.");
  }
  const abs = await resolveToCwd(s, path);
  const denied = await accessError(s, abs, true);
  if (denied) throw new PiError(`Could not edit file: ${path}. Error code: ${denied}.`);
  const n = edits.length;
  edits.forEach((e, i) => {
    if (e.oldText.replace(/\r\n/g, "\n").replace(/\r/g, "\n").length === 0) {
      throw new PiError(
        n === 1 ? `oldText must not be empty in ${path}.` : `edits[${i}].oldText must not be empty in ${path}.`,
      );
    }
  });
  let raw: string;
  try {
    raw = await read(s.box, abs);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    switch (e.kind) {
      case "is_dir":
        throw new PiError(nodeError("EISDIR", "read"));
      case "not_found":
        throw new PiError(`Could not edit file: ${path}. Error code: ENOENT.`);
      case "binary":
        // pi decodes any file as UTF-8 and matches; the op refuses binary files. approx.
        throw new PiError(notFound(path, 0, n));
      default:
        throw new PiError(approx(String(e.data.message ?? e.message)));
    }
  }
  const r = piApplyEdits(raw, edits, chainFor(PI_EDIT, s.profile.edits?.rule));
  if (!r.ok) {
    const i = Number(r.detail?.index ?? 0);
    switch (r.reason) {
      case "empty_old":
        throw new PiError(
          n === 1 ? `oldText must not be empty in ${path}.` : `edits[${i}].oldText must not be empty in ${path}.`,
        );
      case "not_found":
        throw new PiError(notFound(path, i, n));
      case "ambiguous":
        throw new PiError(duplicate(path, i, n, Number(r.count)));
      case "overlap": {
        const [x, y] = r.detail?.indices as [number, number];
        throw new PiError(
          `edits[${x}] and edits[${y}] overlap in ${path}. Merge them into one edit or target disjoint regions.`,
        );
      }
      default: // identical
        throw new PiError(
          n === 1
            ? `No changes made to ${path}. The replacement produced identical content. This might indicate an issue ` +
              `with special characters or the text not existing as expected.`
            : `No changes made to ${path}. The replacements produced identical content.`,
        );
    }
  }
  try {
    await write(s.box, abs, r.content);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    throw new PiError(approx(String(e.data.message ?? e.message)));
  }
  return `Successfully replaced ${n} block(s) in ${path}.`;
}
