/**
 * How gemini-cli 0.61.0's replace words what its matcher (profiles/gemini_cli/edit_match.ts) found:
 * getErrorReplaceResult's messages and getFuzzyMatchFeedback's note.
 */
import type { Match, Miss } from "../../lib/harness/tools/edit_match/types.ts";

/** getErrorReplaceResult's raw message, or null when the replacement may be written. */
export function replaceError(filePath: string, r: Match | Miss): string | null {
  if (!r.ok && r.reason === "not_found") {
    return `Could not find an exact match for 'old_string' in '${filePath}'. If previous edits modified the file or ` +
      "you are modifying lines outside your recent read window, please use ReadFile to inspect the target lines " +
      "before retrying with an exact 'old_string'.";
  }
  if (!r.ok) {
    return `Failed to edit, Expected 1 occurrence but found ${r.count} for old_string in file: ${filePath}. ` +
      "If you intended to replace multiple occurrences, set 'allow_multiple' to true.";
  }
  if (r.detail?.finalOld === r.detail?.finalNew) {
    return `No changes to apply. The old_string and new_string are identical in file: ${filePath}`;
  }
  return null;
}

/** getFuzzyMatchFeedback: where a fuzzy match was applied, or null. */
export function fuzzyFeedback(r: Match): string | null {
  const fuzzyRanges = r.detail?.fuzzyRanges as { start: number; end: number }[] | undefined;
  if (!fuzzyRanges?.length) return null;
  const ranges = fuzzyRanges.map((x) => x.start === x.end ? `${x.start}` : `${x.start}-${x.end}`).join(", ");
  return `Applied fuzzy match at line${fuzzyRanges.length > 1 ? "s" : ""} ${ranges}.`; // (source)
}
