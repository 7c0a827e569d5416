/** `${VAR}` templates in task.toml's env tables, as Harbor expands them: only a whole template is one. */
import assert from "node:assert/strict";
import { expandEnv } from "./env_expand.ts";

Deno.test("expandEnv: only a whole template is one", () => {
  const look = (n: string) => ({ A: "a", E: "" } as Record<string, string | undefined>)[n];
  assert.deepEqual(expandEnv("${A}", look), { value: "a" });
  assert.deepEqual(expandEnv("${E:-x}", look), { value: "" });
  assert.deepEqual(expandEnv("${X:-}", look), { value: "" });
  assert.deepEqual(expandEnv("${X:-a:-b}", look), { value: "a:-b" });
  assert.deepEqual(expandEnv("${X}", look), { value: "", missing: "X" });
  for (const literal of ["$A", "${A}${A}", " ${A}", "${A} ", "$$", "${}", "${A"]) {
    assert.deepEqual(expandEnv(literal, look), { value: literal });
  }
});
