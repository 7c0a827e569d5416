/**
 * The start of an episode's pipeline: given its box (fresh, or a warm one), a multi-step task's first step is laid
 * out, the agent's one deadline wraps the box, and the profile renders the first prompt (or takes the row's messages);
 * the episode's state machine starts its clock with it. A failure removes the box: nothing is left half-started.
 */
import { EpisodeState } from "../harness/episode_state.ts";
import { ProfileEpisode } from "../harness/profile_episode.ts";
import type { ChatMessage, HarnessProfile } from "../harness/types.ts";
import { DeadlineExecEnv } from "../runtime/deadline_env.ts";
import type { Sandbox } from "../runtime/sandbox.ts";
import type { EpisodeVerifier } from "../verify/episode_verifier.ts";
import type { Task } from "../task/task.ts";
import { startStep } from "../verify/steps.ts";
import { type EpisodeOwner, HarborEpisode } from "./harbor_episode.ts";

/** What an episode starts from. */
export interface EpisodeStart {
  /** Who opens it. */
  owner: EpisodeOwner;
  /** The task. */
  task: Task;
  /** Its box, started (the episode owns it from here: removed on failure). */
  box: Sandbox;
  /** Its verifier, planned with the box (`startBoxes`). */
  verifier: EpisodeVerifier;
  /** The profile the episode runs under. */
  profile: HarnessProfile;
  /** The weights key that was drawn. */
  profileKey: string;
  /** The profile as name@version. */
  harnessProfile: string;
  /** First messages taken as given instead of the rendered prompt (profiles with `rowMessages`; default none). */
  messages?: ChatMessage[];
  /** Chat-template kwargs for the episode's requests. */
  chatTemplateKwargs: Record<string, unknown>;
  /** Turns before the episode ends with `max_turns` (default: no limit). */
  maxTurns?: number;
  /** Characters of command output kept where the profile has no limit of its own (default: the profile's). */
  maxOutput?: number;
  /** When the start began (`performance.now()`), for `timings.start_ms` (default: now). */
  startedAt?: number;
}

/** Starts the episode on its box; on any failure the box is removed and the error thrown. */
export async function startEpisode(s: EpisodeStart): Promise<HarborEpisode> {
  const { task, box, profile } = s;
  const t0 = s.startedAt ?? performance.now();
  try {
    // A multi-step task starts its first step (its files, its setup.sh) before the first prompt.
    if (task.steps) await startStep(box, task.steps[0]);
    // From here on, what starts is the agent's (the profile's first commands included).
    await box.agentPhase(task.steps?.[0]);
    await s.verifier.agentStarts(box);
    // A multi-step task's steps have a budget each (Harbor's per-step `wait_for`): the first step's starts now.
    const timeoutSec = task.steps ? task.steps[0].config.agent.timeoutSec : task.config.agent.timeoutSec;
    // The agent clock starts with the first prompt (rendering it may run commands of its own).
    const clock = { deadline: Infinity };
    // One deadline for the whole episode: every tool's command is cut to the agent timeout's time left.
    const agentBox = new DeadlineExecEnv(box, () => clock.deadline, timeoutSec);
    const ep = new ProfileEpisode(profile, agentBox, s.maxOutput);
    let first: ChatMessage[];
    if (profile.capabilities?.rowMessages && s.messages?.length) {
      first = s.messages;
      ep.messages.push(...first);
    } else first = await ep.begin(task.instruction);
    const state = new EpisodeState({ maxTurns: s.maxTurns, timeoutSec });
    clock.deadline = state.deadline;
    const episode = new HarborEpisode(
      s.owner,
      task,
      box,
      s.verifier,
      ep,
      s.profileKey,
      s.harnessProfile,
      first,
      s.chatTemplateKwargs,
      state,
      clock,
    );
    episode.timings.start_ms = performance.now() - t0;
    return episode;
  } catch (e) {
    await box.remove();
    throw e;
  }
}
