/** What the shared profile suite expects of the oracle's run on fix-word-count under swe-agent@main-3ea751c. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // bash, then submit twice: the first one answers with the review.
  "swe-agent@main-3ea751c": { turns: 3, shellResult: (out) => exactly(`OBSERVATION:\n${out}\n`) },
};
