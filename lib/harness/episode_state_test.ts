/** The one episode state machine: its limits, the first end winning, and every status documented in docs/eval.md. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { EpisodeState, EXIT_STATUSES } from "./episode_state.ts";

const ROOT = resolve(import.meta.dirname!, "../..");

Deno.test("episode state: the turn limit, the agent timeout, and the first end wins", () => {
  const s = new EpisodeState({ maxTurns: 2, timeoutSec: 10 }, 0);
  assert.equal(s.admit(1000), true);
  assert.equal(s.stepped(undefined, 1000), undefined);
  assert.equal(s.stepped(undefined, 2000), "max_turns");
  assert.equal(s.end("timeout"), "max_turns", "the first end wins");
  assert.deepEqual([s.done, s.turns, s.finalStatus], [true, 2, "max_turns"]);

  const t = new EpisodeState({ timeoutSec: 1 }, 0);
  assert.equal(t.stepped(undefined, 500), undefined);
  assert.equal(t.timeLeftMs(600), 400);
  assert.equal(t.admit(1500), false, "past the deadline no turn is taken");
  assert.equal(t.exitStatus, "timeout");

  const u = new EpisodeState({ timeoutSec: 5 }, 0);
  assert.equal(u.stepped("container_dead", 10), "container_dead");
  assert.equal(new EpisodeState({ timeoutSec: 5 }).finalStatus, "unfinished");
});

Deno.test("episode state: every exit status is in docs/eval.md's table", async () => {
  const doc = await Deno.readTextFile(join(ROOT, "docs", "eval.md"));
  for (const s of EXIT_STATUSES) assert.match(doc, new RegExp(`\\| \`${s}\` +\\|`), `docs/eval.md lacks ${s}`);
});
