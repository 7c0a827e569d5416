/**
 * Looking at a run: report.html (pass@1 per profile and task, pass@k curves, exit statuses, format errors, turns and
 * tokens per profile, calibration) and the trajectory viewer (a static page, or served live from the run's folder).
 * @module
 */
export { reportHtml, type ReportOptions } from "./report_html.ts";
export {
  meanPassAtK,
  PASS_AT_K_DEFINITION,
  passAtK,
  type PassAtKMean,
  type SampleGroup,
} from "../eval/records/pass_at_k.ts";
export {
  type CellStats,
  type CurvePoint,
  type ProfileFigures,
  type RunStats,
  runStats,
  type TurnsBin,
} from "./run_stats.ts";
export {
  type TurnTokenCounts,
  VIEWER_DATA_FORMAT,
  type ViewerData,
  viewerData,
  type ViewerEpisode,
  viewerEpisode,
} from "./viewer_data.ts";
export { type LiveOptions, viewerHtml } from "./viewer_html.ts";
export {
  CompareWatch,
  RUN_LABELS,
  RunWatch,
  serveView,
  type ViewServer,
  type ViewServerOptions,
  watchRuns,
} from "./view_server.ts";
export {
  type CompareEpisode,
  type CompareRow,
  type CompareRun,
  type CompareViewerData,
  compareViewerData,
  type PassCount,
  type ViewerRun,
} from "./viewer_compare.ts";
export { type EpisodeTokens } from "./viewer_facts.ts";
