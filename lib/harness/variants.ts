/**
 * Profile variants: `name@version+variant` is a registered profile changed by data, shown in summaries and reports
 * as its own profile (its version carries the suffix). They exist to run controlled comparisons, e.g. "same model,
 * same tasks, only the edit rule differs" (`opencode@1.18.33` against `opencode@1.18.33+exact-edit`).
 */
import type { HarnessProfile } from "./types.ts";

/** A variant: what it changes, and the change (an error string when it does not apply to a profile). */
export interface ProfileVariant {
  /** The suffix after `+`. */
  name: string;
  /** One line for `pgs harness profiles`. */
  doc: string;
  /** The changed profile, or why the variant does not apply to it. */
  apply(p: HarnessProfile): HarnessProfile | string;
}

/** The built-in variants. */
export const VARIANTS: readonly ProfileVariant[] = [
  {
    name: "exact-edit",
    doc: "the edit tools match old text exactly (the first strategy of the harness's chain), nothing forgiven",
    apply: (p) =>
      p.edits
        ? { ...p, edits: { ...p.edits, rule: "exact" } }
        : `${p.name}@${p.version}'s edit tools already match exactly (it declares no forgiving edit)`,
  },
];

/** The variant called `name`, or undefined. */
export function variantNamed(name: string): ProfileVariant | undefined {
  return VARIANTS.find((v) => v.name === name);
}
