/**
 * An episode's pipeline, shared by every front end (the runner, the env server, `HarborEnv`): `startEpisode` (box,
 * first step, deadline, first prompt), `HarborEpisode` (turns, steps, verification, timings, close).
 * @module
 */
export { type EpisodeStart, startEpisode } from "./start.ts";
export { type EpisodeOwner, type EpisodeReward, type EpisodeTimings, HarborEpisode } from "./harbor_episode.ts";
