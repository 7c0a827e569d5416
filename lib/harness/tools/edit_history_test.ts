import assert from "node:assert/strict";
import { EditHistory } from "./edit_history.ts";

Deno.test("EditHistory: newest first, per path, capped with the oldest dropped", () => {
  const h = new EditHistory(2);
  for (const t of ["one", "two", "three"]) h.push("/a", t);
  h.push("/b", "other");
  assert.equal(h.depth("/a"), 2);
  assert.equal(h.pop("/a"), "three");
  assert.equal(h.pop("/a"), "two");
  assert.equal(h.pop("/a"), undefined);
  assert.equal(h.pop("/b"), "other");
  assert.equal(new EditHistory().depth("/none"), 0);
});
