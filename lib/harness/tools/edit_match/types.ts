/**
 * Edit matchers: how a harness's edit tool finds `old` in a file, as a chain of named strategies tried in order. The
 * chain is data: a profile's `edits.rule` either runs the harness's whole chain or only its first strategy (exact
 * matching), which is what the `+exact-edit` variant selects. Matchers are pure (text in, text out); the profile's
 * binding reads and writes the file and words the outcome as its harness does.
 */

/** One replacement to make: `old` replaced by `neu` in `content`, every occurrence when `all`. */
export interface MatchRequest {
  /** The file's text (as the harness holds it: after its own BOM and line-ending handling). */
  content: string;
  /** The text the policy asked to replace. */
  old: string;
  /** Its replacement. */
  neu: string;
  /** Replace every occurrence (the tool's replace_all); default false. */
  all?: boolean;
}

/** A replacement that applied. */
export interface Match {
  /** Discriminant: the replacement applied. */
  ok: true;
  /** The text after the replacement. */
  content: string;
  /** How many places were replaced. */
  count: number;
  /** The strategy that matched (a name from the matcher's chain). */
  strategy: string;
  /** Harness-specific facts the wording needs (gemini's fuzzy line ranges, claude-code's actual string, ...). */
  detail?: Record<string, unknown>;
}

/** A replacement that did not apply, and why, in the harness's own terms. */
export interface Miss {
  /** Discriminant: nothing was replaced. */
  ok: false;
  /** `not_found` (no strategy matched), `ambiguous` (matched more than once without `all`), or a harness's own. */
  reason: string;
  /** Occurrences, when the reason is about a count. */
  count?: number;
  /** The strategy whose result decided the miss, when one did. */
  strategy?: string;
  /** Harness-specific facts the wording needs. */
  detail?: Record<string, unknown>;
}

/** A harness's edit matcher: its strategy chain (data, first = exact) and the harness's rules for running it. */
export interface EditMatcher {
  /** The harness and version the rules are read from, e.g. `opencode@1.18.33`. */
  name: string;
  /** Strategy names in the order the harness tries them; the first is exact matching. */
  chain: readonly string[];
  /** Provenance: where the chain and its rules were read (`owner/repo@commit:path` or `npm:name@version:file`). */
  sources: readonly string[];
  /** Runs the chain (or the given prefix of it) on one request. */
  replace(req: MatchRequest, chain?: readonly string[]): Match | Miss;
}

/** Which rule a profile's edit tools apply: its harness's whole chain (the default) or exact matching only. */
export type EditRule = "harness" | "exact";

/** The strategies a rule runs: the whole chain, or its first (exact) strategy. */
export function chainFor(m: EditMatcher, rule: EditRule | undefined): readonly string[] {
  return rule === "exact" ? m.chain.slice(0, 1) : m.chain;
}
