import assert from "node:assert/strict";
import { ajvHasType } from "./ajv_types.ts";

Deno.test("ajvHasType: Ajv's type tests", () => {
  assert.equal(ajvHasType("integer", 3), true);
  assert.equal(ajvHasType("integer", 3.5), false);
  assert.equal(ajvHasType("integer", "3"), false);
  assert.equal(ajvHasType("number", Number.NaN), false);
  assert.equal(ajvHasType("object", []), false);
  assert.equal(ajvHasType("object", null), false);
  assert.equal(ajvHasType("array", []), true);
  assert.equal(ajvHasType("null", null), true);
  assert.equal(ajvHasType("boolean", 0), false);
  assert.equal(ajvHasType("string", ""), true);
  assert.equal(ajvHasType("no-such-type", 1), true);
});
