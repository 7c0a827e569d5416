/** What the shared profile suite expects of the oracle's run on fix-word-count under small-agent@1. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // A `run` action, then a reply without an action block.
  "small-agent@1": { turns: 2, shellResult: (out) => exactly(String.raw`\[exit 0\]\n${out}\n`) },
};
