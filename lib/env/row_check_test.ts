/** A row's fields are checked once (`lib/env/row_check.ts`), for a rows JSONL and the env server alike. */
import assert from "node:assert/strict";
import { pickRow, rowProblem } from "./row_check.ts";
import { parseRows } from "../eval/load_rows.ts";
import { registerBuiltins } from "../../profiles/mod.ts";

registerBuiltins();

Deno.test("rows: each field's problem in one line, the file and line first in a JSONL", () => {
  assert.equal(rowProblem({ task_dir: "t" }), undefined);
  assert.equal(rowProblem({}), "task_dir must be a non-empty string (a task directory)");
  assert.equal(rowProblem({ task_dir: "t", harness_model: "" }), "harness_model must be a non-empty string");
  assert.equal(rowProblem({ task_dir: "t", overlay: 3 }), "overlay must be a file path");
  assert.equal(rowProblem({ task_dir: "t", max_turns: 0 }), "max_turns must be a positive integer");
  assert.match(rowProblem({ task_dir: "t", harness_profile: "nosuch" })!, /^harness_profile: unknown harness profile/);
  assert.deepEqual(pickRow({ task_dir: "t", harness_model: "m", overlay: "o.json", extra: 1 }), {
    task_dir: "t",
    harness_model: "m",
    overlay: "o.json",
  });
  assert.throws(() => parseRows(`{"task_dir": "a"}\n{"task_dir": "b", "harness_model": 5}\n`, "/x/rows.jsonl"), {
    message: "/x/rows.jsonl:2: harness_model must be a non-empty string",
  });
  assert.deepEqual(parseRows(`{"task_dir": "a", "overlay": "o.json"}\n`, "/x/rows.jsonl"), [
    { task_dir: "/x/a", overlay: "o.json" },
  ]);
});
