/** What the shared profile suite expects of the oracle's run on fix-word-count under mini-swe-agent-text@2.4.6, mini-swe-agent@2.4.6. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // Submits with the sentinel in a second bash call.
  "mini-swe-agent@2.4.6": {
    turns: 2,
    shellResult: (out) => exactly(String.raw`\{\n  "returncode": 0,\n  "output": "${out}\\n"\n\}`),
  },
  "mini-swe-agent-text@2.4.6": {
    turns: 2,
    shellResult: (out) => exactly(String.raw`<returncode>0</returncode>\n<output>\n${out}\n</output>`),
  },
};
