/**
 * qwen-code 0.24.3, derived from 0.24.4: recorded with the same scripts, its requests differ only in read_file
 * (`npm:@qwen-code/qwen-code@0.24.3:chunks/chunk-HZU2DMPO.js`): its schema takes no null for offset, limit and pages
 * (so a null is refused by the schema, `params/offset must be integer`) and says nothing of notebooks there, and a
 * notebook read with offset, limit or pages is refused in two older messages, after the range checks.
 */
import type { Derivation } from "../../lib/harness/derive.ts";
import { readFileTool0243 } from "./read_file.ts";
import { READ_PARAMS_0_24_3 } from "./schemas.ts";

/** What 0.24.3 changes from 0.24.4. */
export const QWEN_CODE_0_24_3: Derivation = {
  version: "0.24.3",
  changes: [
    "read_file's offset, limit and pages take no null (the schema refuses it) and their descriptions omit notebooks",
    "read_file refuses offset or limit, and pages, on a notebook in two messages of their own, after the range checks",
  ],
  change: { parameters: { read_file: READ_PARAMS_0_24_3 } },
  apply: (p) => ({
    ...p,
    tools: p.tools.map((t) => t.schema.function.name === "read_file" ? { ...readFileTool0243, schema: t.schema } : t),
  }),
  sources: [
    "npm:@qwen-code/qwen-code@0.24.3:chunks/chunk-HZU2DMPO.js (ReadFileTool: its schema and validateToolParamValues)",
    "tests/golden/qwen-code@0.24.3/replay_null_params.json (recorded: null offsets and notebooks under 0.24.3)",
  ],
};
