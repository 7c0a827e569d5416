/**
 * The harness-profile model: a profile is data (prompts, tool schemas, protocol, stop and answer rules, wording hooks)
 * plus small bindings of each tool onto the closed set of container ops.
 */
import type { CaptureRecipe } from "./capture_recipe.ts";
import type { ExecEnv } from "../runtime/exec_env.ts";
import type { EditMatcher, EditRule } from "./tools/edit_match/types.ts";
import type { ExecOpOptions, ExecOut } from "./tools/ops.ts";

export type {
  ChatMessage,
  PreludeMessage,
  TextPart,
  ToolCall,
  ToolMessageKey,
  ToolOutput,
  ToolSchema,
} from "./message_types.ts";
import type { ChatMessage, PreludeMessage, ToolMessageKey, ToolOutput, ToolSchema } from "./message_types.ts";

/** A tool: its schema and the binding that runs it on the episode container. */
export interface ToolSpec {
  /** The schema sent to the policy. */
  schema: ToolSchema;
  /** Runs the call; `call` carries the raw argument text for harnesses whose wording depends on it. */
  bind: (s: Session, args: Record<string, unknown>, call: ParsedCall) => Promise<ToolOutput>;
}

/** How the policy's turns are read: native function calling or a text protocol. */
export type Protocol =
  | { kind: "native" }
  | { kind: "fenced"; lang: string; tool: string; arg: string }
  | { kind: "terminus_json" };

/** What ends an episode. */
export type StopRule =
  | { kind: "no_call" }
  | { kind: "sentinel"; text: string }
  | { kind: "submit"; tool: string; confirm: boolean }
  | {
    kind: "finish";
    tool: string;
    field: string;
    /** A reply with text and no tool call ends the episode too (an empty one is still a format error). */
    endOnText?: boolean;
  }
  | { kind: "flag"; confirm: boolean };

/** Where the final answer comes from. */
export type AnswerRule = { kind: "last_text" } | { kind: "stop_answer"; fallback: "last_text" | "none" };

/** What a profile emulates and what it was written from. */
export interface Emulates {
  /** The harness emulated (name and where it comes from). */
  harness: string;
  /** The version emulated (what was read or recorded). */
  version: string;
  /** The version the seed asked for, when it differs from what could be verified here. */
  seedPin?: string;
  /** Sources read or recordings made. */
  sources: string[];
}

/** A harness profile. */
export interface HarnessProfile {
  /** The profile's name (the registry key). */
  name: string;
  /** The profile's version. */
  version: string;
  /** System prompt template (plain replacement of `{workdir}`, `{date}`, ...); "" sends no system message. */
  system: string;
  /** User message template (default `{instruction}`). */
  user: string;
  /** Whether the user message's content is a string or a list of text parts (default "string"). */
  userContent?: "string" | "parts";
  /**
   * Messages between the system prompt and the user's turn, each a template (or text-part templates), e.g. codex's
   * developer instructions and `<environment_context>` (default none). `paraphrased` ones are compared as paraphrase.
   */
  prelude?: PreludeMessage[];
  /**
   * Messages right after the user's turn in the first request, each a template (or text-part templates), e.g.
   * claude-code's environment, sent as a system-role message after the prompt (default none). `paraphrased` ones are
   * compared as paraphrase.
   */
  postlude?: PreludeMessage[];
  /** Templates of a user message sent as several text parts (overrides `user` and `userContent`). */
  userParts?: string[];
  /**
   * The keys of a tool-result message after `role`, in the harness's order (default `["content", "tool_call_id"]`);
   * `name` carries the called tool's name.
   */
  toolMessageKeys?: ToolMessageKey[];
  /** Tools in the order the harness sends them. */
  tools: ToolSpec[];
  /** How the policy's turns are read. */
  protocol: Protocol;
  /** What ends an episode. */
  stop: StopRule;
  /** Where the final answer comes from. */
  answer: AnswerRule;
  /** How the harness echoes an assistant tool-call turn without text: `null`, `""` (default null). */
  emptyAssistantContent?: null | "";
  /** How echoed tool calls carry their arguments: as the model sent them, or re-serialised from the parse (default raw). */
  echoArguments?: "raw" | "parsed";
  /**
   * The input a harness re-sends in the history for a parsed call, when it differs from the model's (claude-code
   * re-sends Edit's input with its default `replace_all: false` first); implies `echoArguments: "parsed"`.
   */
  echoInput?: (name: string, args: Record<string, unknown>) => Record<string, unknown>;
  /** Reads a call's raw argument text (default JSON.parse); harnesses that repair malformed JSON supply their own. */
  parseArguments?: (raw: string) => { args: Record<string, unknown> } | { error: string };
  /** Consecutive format errors after which the harness gives up and ends the episode (default: never). */
  maxFormatErrors?: number;
  /** The text appended as a user message after a malformed turn (no call where one is needed, bad protocol). */
  formatError?: (error: string, s: Session) => string;
  /** Checks a whole native turn before anything runs; a returned error is a format error and nothing runs. */
  validate?: (calls: ParsedCall[], s: Session) => string | undefined;
  /** The result text for a call to a tool the episode does not expose. */
  unknownTool?: (name: string, names: string[], args: unknown) => ToolOutput;
  /**
   * The result of a call to a tool the harness sends but this profile cannot run offline (web, sub-agents, skills:
   * sent as recorded under an overlay); default: `unknownTool`'s answer.
   */
  unavailableTool?: (name: string, args: unknown) => ToolOutput;
  /** The harness's own name repair (e.g. lowercasing); returns the tool to run instead, if any. */
  alias?: (name: string, names: string[]) => string | undefined;
  /** The result text for a call whose arguments are not a JSON object. */
  badArguments?: (name: string, raw: string, error: string, call?: ParsedCall) => ToolOutput;
  /** How a keystroke protocol (`terminus_json`) runs a parsed turn and words what the terminal showed. */
  terminal?: TerminalHooks;
  /** Per-episode setup; gets the template values (instruction included) and returns values to add or replace. */
  start?: (s: Session, values: Readonly<Record<string, string>>) => Promise<Record<string, string>>;
  /** False for harnesses with no channel for a final reply (tasks graded on the reply score 0; default true). */
  answerChannel?: boolean;
  /**
   * A regular expression whose group 1 is a handle the harness draws at random and later calls name (codex's
   * `session ID (\\d+)`); replays carry the recorded ones over to the profile's (default none).
   */
  handlePattern?: string;
  /** Tools the real harness sends that this profile leaves out by design (conformance diffs report, not count, them). */
  omittedTools?: string[];
  /** Indices of `userParts` the profile paraphrases (long upstream text); conformance diffs report, not count, them. */
  paraphrasedParts?: number[];
  /**
   * The tool (and its argument) that runs a shell command, for drivers such as the oracle policy. `prefix` is text
   * put before the command in a text protocol's action, e.g. `run ` (default none).
   */
  shell?: { tool: string; arg: string; prefix?: string };
  /** Default shell timeout, seconds. */
  execTimeout: number;
  /**
   * The harness's mark on a cut output, as a regular expression source matched case-insensitively against one line:
   * the viewer highlights such lines and keeps them in a folded result's preview; the shared profile suite checks it
   * against the profile's own long output (default none: the viewer's generic mark alone).
   */
  truncationMark?: string;
  /** The runtime's own output cap in bytes, applied before the profile's truncation (default 1 MiB). */
  runtimeMaxOutput?: number;
  /** Chat-template kwargs of this harness's episodes (null: the model's default). */
  chatTemplateKwargs?: Record<string, unknown> | null;
  /** The harness's compaction policy, recorded, not emulated. */
  context?: string;
  /** What HarborEnv may change per episode under this profile (default: nothing; see `ProfileCapabilities`). */
  capabilities?: ProfileCapabilities;
  /**
   * How the profile's edit tools match old text: its harness's matcher and the rule (default `harness`, the whole
   * chain; `exact` under the `+exact-edit` variant). Absent: the edit tools match exactly and have no variant.
   */
  edits?: ProfileEdits;
  /** What the profile emulates and what it was written from. */
  emulates: Emulates;
  /**
   * How the harness's requests depend on the model name it is configured with: the name recorded and the rules for
   * other names (`lib/harness/model_dialect.ts`; default: they do not depend on it).
   */
  models?: ModelDialects;
  /** The model name the harness is configured with in this dialect (set by `withHarnessModel`; default unset). */
  harnessModel?: string;
  /** What the harness changes for `harnessModel` that this profile does not follow (set by `withHarnessModel`). */
  dialectGaps?: string[];
  /**
   * What the harness sends beside messages and tools, in its own wire's names (e.g. gemini's `generationConfig`):
   * shown by `harness show` and kept in the trajectory; never sent to the policy's endpoint (default none).
   */
  generation?: Record<string, unknown>;
  /** The version this one was derived from and what changed (`deriveProfile`; default: written whole). */
  extends?: { version: string; changes: string[] };
  /** How the real harness is recorded against the stub (`pgs harness capture`; default: not supported). */
  capture?: CaptureRecipe;
  /** The overlay laid over this profile (`applyOverlay`), recorded in trajectories (default none). */
  overlay?: OverlayRef;
}

/**
 * Capability flags: the places where shared code treats profiles differently, as data on the profile (never a
 * comparison with its name). Each defaults to false.
 */
export interface ProfileCapabilities {
  /** HarborEnv's `tools` option may narrow the tool list (palingenesis-default@1's knob, docs/spec-notes.md). */
  toolSubset?: boolean;
  /** A row's `messages` are sent as the first messages instead of the profile's own system and user turn. */
  rowMessages?: boolean;
}

/** A profile's edit matching (see `HarnessProfile.edits`). */
export interface ProfileEdits {
  /** The harness's matcher: its strategy chain and rules (lib/harness/tools/edit_match/). */
  matcher: EditMatcher;
  /** Which part of the chain runs; default `harness` (all of it). */
  rule?: EditRule;
}

/** One keystroke batch item of a terminal protocol: keys as typed, and the seconds the policy asked to wait. */
export interface KeyCommand {
  /** The keys, as typed. */
  keystrokes: string;
  /** Seconds the policy asked to wait after sending them. */
  duration: number;
}

/** A terminal-driving harness's hooks: the engine parses the turn and applies the flag stop; these run and word it. */
export interface TerminalHooks {
  /** Sends a batch to the terminal and returns its output as the harness shows it. */
  run: (s: Session, commands: KeyCommand[]) => Promise<string>;
  /** The observation of an executed turn that did not complete (`feedback`: the parser's warnings, or ""). */
  observe: (output: string, feedback: string) => string;
  /** The observation after a first completion, under a confirming flag stop. */
  confirm: (output: string) => string;
}

/** A tool call after parsing: name, arguments, and the raw text when they were not a JSON object. */
export interface ParsedCall {
  /** The call's id (text protocols number them `t0`, `t1`, ...). */
  id: string;
  /** The tool name as the policy gave it. */
  name: string;
  /** The parsed arguments; null when they are not a JSON object. */
  args: Record<string, unknown> | null;
  /** The raw argument text. */
  raw: string;
  /** Why the arguments did not parse, when they did not. */
  error?: string;
}

/** A JSON-schema `function` tool with the given parameters (properties in order; `required` as given). */
export function fnSchema(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolSchema {
  return {
    type: "function",
    function: { name, description, parameters: { type: "object", properties, required } },
  };
}

/** What a tool binding sees of its episode: the runtime, the profile, and scratch state (`EpisodeSession`). */
export interface Session {
  /** Where the episode's commands run. */
  readonly box: ExecEnv;
  /** The episode's profile. */
  readonly profile: HarnessProfile;
  /** Characters of command output a profile may keep when it has no limit of its own (HarborEnv max_output). */
  readonly maxOutput: number;
  /** Per-profile scratch state (files read, a pending review, ...). */
  readonly state: Map<string, unknown>;
  /** The last command's result (the sentinel stop rule reads it). */
  lastExec?: ExecOut;
  /** The finish_reason of the turn being processed, when the policy's endpoint gave one. */
  finishReason?: string;
  /** Set by a stop: the answer it captured (null: none). */
  stopped?: { answer: string | null };
  /**
   * Messages a binding asks to send after the current turn's tool results (claude-code's system-role notes); the
   * episode appends them after the observations and empties the list.
   */
  readonly pendingMessages: ChatMessage[];
  /** The working directory. */
  readonly workdir: string;
  /** `p` resolved against the working directory. */
  abspath(p: string): string;
  /** Runs a command with the profile's defaults (timeout, runtime cap) and records it as the last exec. */
  exec(command: string, opts?: Partial<ExecOpOptions>): Promise<ExecOut>;
  /** Ends the episode after the current call, with the answer the stop captured. */
  stop(answer?: string | null): void;
}

/** A test on a model name, as data. */
export type ModelMatch =
  | { regex: string; flags?: string }
  | { names: string[] }
  | { not: ModelMatch }
  | { all: ModelMatch[] }
  | { any: ModelMatch[] };

/** What a rule changes in the dialect. Absent fields change nothing. */
export interface DialectChange {
  /** The system text instead of the profile's. */
  system?: string;
  /** Tool name → its description instead of the profile's. */
  descriptions?: Record<string, string>;
  /** Tool name → its parameter schema instead of the profile's. */
  parameters?: Record<string, Record<string, unknown>>;
  /** Tools the harness sends only for such names, each after the named tool (default: last). */
  addTools?: { tool: ToolSpec; after?: string }[];
  /** Tools the harness leaves out for such names. */
  removeTools?: string[];
  /** Settings the harness leaves out for such names (top-level `generation` keys), removed before `generation`. */
  removeGeneration?: string[];
  /** Merged (deeply, objects only) into the profile's `generation`. */
  generation?: Record<string, unknown>;
}

/** One rule: which names it applies to and what it changes. */
export interface ModelRule {
  /** A short name, e.g. `gemini-3-tools`. */
  name: string;
  /** One line: what the harness does for these names. */
  doc: string;
  /** The names it applies to. */
  when: ModelMatch;
  /** Test the name as configured, before the harness's own aliases (default: after them). */
  raw?: boolean;
  /** The change. */
  change: DialectChange;
  /** Where the rule was read or recorded (the provenance forms of `lib/harness/provenance.ts`). */
  sources: string[];
}

/** A profile's model dependence. */
export interface ModelDialects {
  /** The model name the profile's own dialect was recorded with (the default harness model). */
  recordedWith: string;
  /** One line: whether and how the harness's requests depend on the model name. */
  note: string;
  /** Names the harness rewrites before it looks (e.g. `auto` → a full model name); rules see the result. */
  aliases?: Record<string, string>;
  /** The rules, applied in order to the profile's own dialect; every rule whose test passes applies. */
  rules: ModelRule[];
  /**
   * What the harness changes for some names that the profile does not follow (its prompt family, a tool surface it
   * cannot run), each said in words: such a name gets the rules that apply and a `dialectGaps` entry, which the CLI
   * prints as a warning (an overlay recorded with that name is exact; default none).
   */
  unmodeled?: { when: ModelMatch; what: string; raw?: boolean; sources: string[] }[];
}

/** Where an overlay came from, kept in trajectories. */
export interface OverlayRef {
  /** The file as given. */
  file: string;
  /** sha256 of its bytes, 12 hex digits. */
  sha256: string;
}
