/**
 * What the shared profile suite (tests/profiles_suite_test.ts) expects of the oracle policy's run on the example task
 * fix-word-count under a profile, beyond what every profile must do. Each profile's folder says it in its `oracle.ts`
 * (an `ORACLE` of this type), so that adding a profile, or a version of one, is its folder plus one registry line.
 */

/** The oracle's run under one profile version. */
export interface OracleExpectation {
  /** Assistant turns: the shell call running solve.sh, then the stop rule's (a reply, a review, a confirmation). */
  turns: number;
  /**
   * The shell call's result in the profile's wording around `out`, a pattern for solve.sh's last line (it holds no
   * quote or newline): one pattern for a string result, one per part for a list of text parts.
   */
  shellResult: (out: string) => RegExp | RegExp[];
}

/** A folder's expectations, by `name@version`; a derived version without its own entry takes its base's. */
export type OracleExpectations = Readonly<Record<string, OracleExpectation>>;

/** A pattern that matches `pattern` whole. */
export function exactly(pattern: string): RegExp {
  return new RegExp(`^${pattern}$`);
}
