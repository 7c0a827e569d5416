/** What the shared profile suite expects of the oracle's run on fix-word-count under hermes@main-e6899c8. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  "hermes@main-e6899c8": {
    turns: 2,
    shellResult: (out) => exactly(String.raw`\{"output": "${out}", "exit_code": 0, "error": null\}`),
  },
};
