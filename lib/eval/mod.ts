/**
 * The episode runner, its config and its records: rows to episodes over hosts (`runEpisodes`), one episode's run and
 * trajectory (`episode_runner.ts`), the eval run as a whole (`evaluate`), its YAML config, the trajectories, the
 * summary with pass@k, and the run folder.
 * @module
 */
export * from "./config.ts";
export * from "./episode_runner.ts";
export { EpisodeRecord, lossMask } from "./episode_record.ts";
export * from "./eval_run.ts";
export * from "./load_rows.ts";
export * from "./records/pass_at_k.ts";
export * from "./records/run_dir.ts";
export * from "./run_episodes.ts";
export * from "./records/summary.ts";
export * from "./records/trajectory.ts";
export * from "./workdir_diff.ts";
