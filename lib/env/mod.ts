/**
 * The trainer's environment: `HarborEnv` (reset a row into a fresh container under a drawn profile, step it turn by
 * turn, score it), its token mode (`TokenEpisode`: token ids in and out), and the HTTP server that offers both to
 * Python trainers.
 * @module
 */
export { type EnvRow, type EpisodeReward, HarborEnv, type HarborEnvOptions, HarborEpisode } from "./harbor_env.ts";
export { type EpisodeOwner, type EpisodeStart, type EpisodeTimings, startEpisode } from "../episode/mod.ts";
export { createEnvServer, type EnvServer, type EnvServerOptions } from "./server_app.ts";
export { TokenEpisode, type TokenModeOptions, type TokenStepResult } from "./token_episode.ts";
