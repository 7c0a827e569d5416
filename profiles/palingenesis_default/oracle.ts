/** What the shared profile suite expects of the oracle's run on fix-word-count under palingenesis-default@1, palingenesis-default@2. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // bash, then submit (with the answer as its text).
  "palingenesis-default@1": { turns: 2, shellResult: (out) => exactly(String.raw`\[exit code 0\]\n${out}\n`) },
  // nanocode's bash strips its output; /bin/sh is dash, so the oracle hands solve.sh to bash.
  "palingenesis-default@2": { turns: 2, shellResult: (out) => exactly(out) },
};
