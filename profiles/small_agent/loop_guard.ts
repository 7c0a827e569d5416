/**
 * small-agent@1's loop guard: a small model re-asks for what it already has (the same `read`, the same `map`) until
 * its step budget runs out. A read-only action identical to an earlier one, with nothing changed since, is refused
 * once with the next move spelled out; asked again, it is served (the model may really need it). Only `map` and
 * `read` are guarded: re-running tests after a fix is progress, and an edit always changes or fails loudly.
 */
import { episodeState } from "../../lib/harness/session_state.ts";
import type { Session } from "../../lib/harness/types.ts";

/** Read-only actions seen since the last change, and the ones already refused once. */
export class LoopGuard {
  #seen = new Set<string>();
  #refused = new Set<string>();

  /** True when the action (by its normalised key) must be refused now; records it either way. */
  refuse(key: string): boolean {
    if (this.#seen.has(key) && !this.#refused.has(key)) {
      this.#refused.add(key);
      return true;
    }
    this.#seen.add(key);
    return false;
  }

  /** Forgets everything: the files or the shell may have changed (a `run`, an applied edit, write or append). */
  reset(): void {
    this.#seen.clear();
    this.#refused.clear();
  }
}

/** The episode's guard. */
export const loopGuard = (s: Session): LoopGuard => episodeState(s, "small-agent.guard", () => new LoopGuard());

/** The refusal, naming the action as the model wrote it and the move that would make progress instead. */
export function refusal(action: string, kind: "map" | "read", path: string): string {
  const next = kind === "read"
    ? `Next, edit the file (\`edit ${path}\` with Find:/Replace:) or run the tests (\`run\` and the test command).`
    : "Next, read a file (`read PATH`) or run a command (`run COMMAND`).";
  return `You already ran \`${action}\` and nothing has changed since; its output is above. ${next}`;
}
