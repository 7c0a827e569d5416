/** What the shared profile suite expects of the oracle's run on fix-word-count under opencode@1.18.33. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // One bash call, then a reply.
  "opencode@1.18.33": { turns: 2, shellResult: (out) => exactly(`${out}\n`) },
};
