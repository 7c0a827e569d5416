/** What the shared profile suite expects of the oracle's run on fix-word-count under codex@0.171.0. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // exec_command with codex's header (the chunk id and wall time vary), then a reply.
  "codex@0.171.0": {
    turns: 2,
    shellResult: (out) =>
      exactly(
        String.raw`Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\n` +
          String.raw`Original token count: \d+\nOutput:\n${out}\n`,
      ),
  },
};
