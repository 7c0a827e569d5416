/** What the shared profile suite expects of the oracle's run on fix-word-count under terminus-2@harbor-0.22.0. */
import type { OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // Keystrokes into the pane, then task_complete twice (the flag stop confirms).
  "terminus-2@harbor-0.22.0": {
    turns: 3,
    shellResult: (out) => new RegExp(String.raw`^New Terminal Output:\n[\s\S]*\n${out}\n`),
  },
};
