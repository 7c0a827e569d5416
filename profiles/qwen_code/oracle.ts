/** What the shared profile suite expects of the oracle's run on fix-word-count under qwen-code@0.24.4. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // run_shell_command echoes the command, then a final reply.
  "qwen-code@0.24.4": {
    turns: 2,
    shellResult: (out) => [
      exactly(
        String.raw`Command: bash /tmp/\.pgs-oracle-solve > /tmp/\.pgs-oracle-out; cat /tmp/\.pgs-oracle-out\n` +
          String.raw`Directory: \(root\)\nOutput: ${out}\n` +
          String.raw`Error: \(none\)\nExit Code: 0\nSignal: \(none\)\nProcess Group PGID: \(none\)`,
      ),
    ],
  },
};
