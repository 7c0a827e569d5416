/** What the shared profile suite expects of the oracle's run on fix-word-count under goose@1.55.0. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  "goose@1.55.0": { turns: 2, shellResult: (out) => exactly(out) },
};
