/**
 * Harness profiles as data: the profile and tool types, the registry, the turn engine (`ProfileEpisode`), the closed
 * set of ops tools bind onto, truncation helpers, other runtimes' wording (`lang/`) and provenance marks.
 * @module
 */
export type {
  AnswerRule,
  ChatMessage,
  Emulates,
  HarnessProfile,
  KeyCommand,
  ParsedCall,
  PreludeMessage,
  ProfileCapabilities,
  ProfileEdits,
  Protocol,
  Session,
  StopRule,
  TerminalHooks,
  TextPart,
  ToolCall,
  ToolMessageKey,
  ToolOutput,
  ToolSchema,
  ToolSpec,
} from "./types.ts";
export { fnSchema } from "./types.ts";
export {
  type CaptureRecipe,
  type LocalRecipe,
  type RecipeFile,
  recipeJson,
  type StubWiring,
} from "./capture_recipe.ts";
export {
  applyChange,
  type DialectChange,
  type ModelDialects,
  type ModelMatch,
  modelMatches,
  type ModelRule,
  rulesFor,
  withHarnessModel,
} from "./model_dialect.ts";
export { type Derivation, deriveProfile } from "./derive.ts";
export {
  applyOverlay,
  type LoadedOverlay,
  type Overlay,
  OVERLAY_FORMAT,
  type OverlayRef,
  parseOverlay,
  readOverlay,
  withOverlay,
} from "./overlay.ts";
export {
  defaultVersion,
  getProfile,
  NO_PROFILE_DIALECT,
  type ProfileEntry,
  type ProfileFactory,
  profileNames,
  ProfileRegistry,
  profiles,
  register,
  resolveProfileName,
} from "./registry.ts";
export {
  type AssistantTurn,
  type EpisodeCounters,
  fillTemplate,
  ProfileEpisode,
  type StepResult,
  type TurnFlag,
} from "./profile_episode.ts";
export { EpisodeSession } from "./session.ts";
export { type EpisodeLimits, EpisodeState, EXIT_STATUSES, type ExitStatus } from "./episode_state.ts";
export { drawProfile } from "./draw.ts";
export { loadProfilesModule } from "./load_module.ts";
export { playOracle } from "./oracle_policy.ts";
/** The closed set of ops profile tools run: exec, read, write, replace, list, glob, grep, ... */
export * as ops from "./tools/ops.ts";
export { type ExecOpOptions, type ExecOut, OpError, type OpErrorKind } from "./tools/ops.ts";
export { headLines, headTailChars, middleClip, tailLines } from "./tools/truncate.ts";
export {
  chainFor,
  type EditMatcher,
  type EditRule,
  type Match,
  type MatchRequest,
  type Miss,
} from "./tools/edit_match/types.ts";
export { EditHistory } from "./tools/edit_history.ts";
export { type ProfileVariant, variantNamed, VARIANTS } from "./variants.ts";
export { approx, isApprox, parseSource, type SourceKind, trackApprox } from "./provenance.ts";
export { type ProfileSummary, summarizeProfiles } from "./describe.ts";
