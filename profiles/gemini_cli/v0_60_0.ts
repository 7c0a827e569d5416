/**
 * gemini-cli 0.60.0, derived from 0.61.0: recorded with the same scripts, its requests are 0.61.0's (tools,
 * schemas, descriptions, settings, every result: tests/golden/gemini-cli@0.60.0/models.json against
 * tests/golden/gemini-cli/models.json), except that it has no Build File Protection: write_file and replace edit
 * Makefile, package.json, build.gradle and the rest as any file.
 */
import type { Derivation } from "../../lib/harness/derive.ts";
import type { ToolSpec } from "../../lib/harness/types.ts";
import { replaceTool060 } from "./replace.ts";
import { writeFileTool060 } from "./write_file.ts";

const WITHOUT_PROTECTION: Record<string, ToolSpec> = { write_file: writeFileTool060, replace: replaceTool060 };

/** What 0.60.0 changes from 0.61.0. */
export const GEMINI_CLI_0_60_0: Derivation = {
  version: "0.60.0",
  changes: ["no Build File Protection: write_file and replace edit build configuration files like any other file"],
  // The bindings change, the schemas (and what model rules make of them) stay.
  apply: (p) => ({
    ...p,
    tools: p.tools.map((t) => {
      const old = WITHOUT_PROTECTION[t.schema.function.name];
      return old ? { ...old, schema: t.schema } : t;
    }),
  }),
  sources: [
    "tests/golden/gemini-cli@0.60.0/replay_build_files.json (recorded: 0.60.0 writes the build files 0.61.0 refuses)",
    "tests/golden/gemini-cli@0.60.0/models.json (recorded: the first request, as 0.61.0's)",
  ],
};
