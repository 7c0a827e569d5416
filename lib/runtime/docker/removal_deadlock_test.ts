import assert from "node:assert/strict";
import { hasRemovalDeadlock } from "./removal_deadlock.ts";

Deno.test("removal deadlock: dockerd 20.10 before .27 and older have it; 20.10.27 and 23.0 onwards do not", () => {
  for (const v of ["20.10.24+dfsg1", "20.10.0", "20.10.26", "19.03.15", "18.09.1", "", "unknown", "dev"]) {
    assert.equal(hasRemovalDeadlock(v), true, v);
  }
  for (const v of ["20.10.27", "20.10.27+dfsg1", "23.0.0", "24.0.7", "28.2.2", "v26.1.0"]) {
    assert.equal(hasRemovalDeadlock(v), false, v);
  }
});
