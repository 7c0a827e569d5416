/** What the shared profile suite expects of the oracle's run on fix-word-count under claude-code@2.1.332. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // Bash (claude-code trims the output's trailing newline), then a reply.
  "claude-code@2.1.332": { turns: 2, shellResult: (out) => exactly(out) },
};
