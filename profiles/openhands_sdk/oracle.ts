/** What the shared profile suite expects of the oracle's run on fix-word-count under openhands-sdk@1.43.1. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // terminal, then finish.
  "openhands-sdk@1.43.1": {
    turns: 2,
    shellResult: (out) => [
      exactly(
        String.raw`${out}\n\[The command completed with exit code 0\.\]\n\[Current working directory: /workdir\]` +
          String.raw`\n\[Command finished with exit code 0\]`,
      ),
    ],
  },
};
