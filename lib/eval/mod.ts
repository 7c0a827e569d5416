/**
 * The episode runner and what it reads and writes: policies (endpoint, token, oracle, script), trajectories, summaries,
 * `harbor check`, the eval run as a whole, and (`report/`) the report and the trajectory viewer.
 * @module
 */
export * from "./check.ts";
export * from "./config.ts";
export * from "./endpoint_check.ts";
export * from "./endpoint_policy.ts";
export * from "./episode_runner.ts";
export * from "./eval_run.ts";
export * from "./load_rows.ts";
export * from "./policy.ts";
export * from "./run_dir.ts";
export * from "./run_episodes.ts";
export * from "./script_check.ts";
export * from "./summary.ts";
export * from "./token_policy.ts";
export * from "./trajectory.ts";
export * from "./workdir_diff.ts";
export * from "./report/mod.ts";
