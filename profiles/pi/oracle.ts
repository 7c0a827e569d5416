/** What the shared profile suite expects of the oracle's run on fix-word-count under pi@0.73.1. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // One bash call (no "Command exited with code"), then a final reply.
  "pi@0.73.1": { turns: 2, shellResult: (out) => exactly(`${out}\n`) },
};
