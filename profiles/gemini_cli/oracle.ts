/** What the shared profile suite expects of the oracle's run on fix-word-count under gemini-cli@0.61.0. */
import { exactly, type OracleExpectations } from "../../lib/harness/oracle_expectation.ts";

/** By `name@version`; a derived version without its own entry takes its base's. */
export const ORACLE: OracleExpectations = {
  // run_shell_command's functionResponse as JSON, the output inside <untrusted_context>, then a reply.
  "gemini-cli@0.61.0": {
    turns: 2,
    shellResult: (out) =>
      exactly(
        String.raw`\{"output":"<untrusted_context>\\nOutput: ${out}\\n` +
          String.raw`Process Group PGID: \d+\\n</untrusted_context>"\}`,
      ),
  },
};
