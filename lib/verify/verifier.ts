/**
 * The verifier: the task's own tests/test.sh, run where the episode's verifier mode says (`verifier_mode.ts`), its
 * reward read the way Harbor reads it (docs/verifier-modes.md). The four modes:
 * - `isolated` (tasks in pgs's own layout, docs/spec-notes.md): a NEW container from the pristine image that holds
 *   only a copy of the agent's working directory, /tests, and /logs/agent/{final_message.md,capture.json}; nothing
 *   the agent left elsewhere reaches it.
 * - `shared` (Harbor's default): the agent's own container after the episode, with /tests and /logs/verifier made anew.
 * - `snapshot` (opt-in): the agent's container committed to an image and the tests run in a fresh container of it,
 *   so the state the agent left counts while none of its processes is alive.
 * - `separate`: Harbor's separate verifier image, with the artifacts copied across.
 * - `shared-clean` (opt-in): `shared`, with every process the agent's commands started stopped before the tests.
 */
import type { Sandbox } from "../runtime/sandbox.ts";
import { Verification, type VerifyOptions, type VerifyResult } from "./verification.ts";
import { verifyIsolated } from "./verifier_isolated.ts";
import { verifySeparate } from "./verifier_separate.ts";
import { verifyShared } from "./verifier_shared.ts";
import { verifySnapshot } from "./verifier_snapshot.ts";

export type { VerifyOptions, VerifyResult } from "./verification.ts";

/** Verifies an episode in its verifier mode; the reward is 0 with `verifier_failed` when the tests give none. */
export function verify(box: Sandbox, finalMessage: string, opts: VerifyOptions = {}): Promise<VerifyResult> {
  // A step of a multi-step task runs in its own mode (Harbor resolves it per step); the run's override decides all.
  const v = new Verification(box, opts);
  switch (v.mode) {
    case "shared":
      return verifyShared(v, finalMessage);
    case "shared-clean":
      return verifyShared(v, finalMessage, true);
    case "separate":
      return verifySeparate(v, finalMessage);
    case "snapshot":
      return verifySnapshot(v, finalMessage);
    default:
      return verifyIsolated(v, finalMessage);
  }
}
