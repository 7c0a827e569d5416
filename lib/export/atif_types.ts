/**
 * ATIF v1.7 (Harbor's Agent Trajectory Interchange Format, `src/harbor/models/trajectories/`) as TypeScript types: the
 * shape `pgs export atif` writes. Every object of the format forbids keys it does not list (`extra="forbid"`), so each
 * interface here is the whole set of keys; `atif_validate.ts` checks a document against the same rules at run time.
 */

/** The version every document pgs writes declares. */
export const ATIF_SCHEMA_VERSION = "ATIF-v1.7";

/** Every `schema_version` Harbor's `Trajectory` model accepts. */
export const ATIF_SCHEMA_VERSIONS: readonly string[] = [
  "ATIF-v1.0",
  "ATIF-v1.1",
  "ATIF-v1.2",
  "ATIF-v1.3",
  "ATIF-v1.4",
  "ATIF-v1.5",
  "ATIF-v1.6",
  "ATIF-v1.7",
];

/** A trajectory document (`Trajectory`). */
export interface AtifTrajectory {
  /** The format version (`ATIF-v1.0` .. `ATIF-v1.7`). */
  schema_version: string;
  /** The agent run this trajectory belongs to (run-scoped; optional since 1.7). */
  session_id?: string;
  /** This document's own id (1.7); required on embedded subagent trajectories. */
  trajectory_id?: string;
  /** The agent: name, version, model, tools. */
  agent: AtifAgent;
  /** The interaction, at least one step, `step_id` 1..n in order. */
  steps: AtifStep[];
  /** Free-form notes. */
  notes?: string;
  /** Totals over the trajectory. */
  final_metrics?: AtifFinalMetrics;
  /** Where the trajectory goes on, when it continues in another file. */
  continued_trajectory_ref?: string;
  /** Custom root-level metadata (1.1). */
  extra?: Record<string, unknown>;
  /** Embedded subagent trajectories (1.7), each with a unique `trajectory_id`. */
  subagent_trajectories?: AtifTrajectory[];
}

/** The agent (`Agent`). */
export interface AtifAgent {
  /** The agent's name. */
  name: string;
  /** The agent's version. */
  version: string;
  /** The model, when one is known. */
  model_name?: string;
  /** The tools offered, as the request sent them (1.5; OpenAI function schemas for pgs). */
  tool_definitions?: Record<string, unknown>[];
  /** Custom agent metadata. */
  extra?: Record<string, unknown>;
}

/** Who a step is from. */
export type AtifSource = "system" | "user" | "agent";

/** One step (`Step`). `model_name`, `reasoning_effort`, `reasoning_content`, `tool_calls` and `metrics` are agent-only. */
export interface AtifStep {
  /** 1-based position in `steps`. */
  step_id: number;
  /** When the step happened (ISO 8601). */
  timestamp?: string;
  /** Who the step is from. */
  source: AtifSource;
  /** The model of this turn, when it differs from the agent's (agent only). */
  model_name?: string;
  /** The reasoning effort asked for (agent only). */
  reasoning_effort?: string | number;
  /** The message: text, or content parts (1.6). */
  message: string | AtifContentPart[];
  /** The model's reasoning apart from its message (agent only). */
  reasoning_content?: string;
  /** The calls the turn made (agent only). */
  tool_calls?: AtifToolCall[];
  /** What the environment answered. */
  observation?: AtifObservation;
  /** Token counts and token ids of the turn (agent only). */
  metrics?: AtifMetrics;
  /** True for a step copied from an earlier trajectory as context, to leave out of training (1.5). */
  is_copied_context?: boolean;
  /** LLM calls this step stands for (1.7); 0 on an agent step forbids `metrics` and `reasoning_content`. */
  llm_call_count?: number;
  /** Custom step metadata. */
  extra?: Record<string, unknown>;
}

/** A text or image part of a message or an observation (`ContentPart`, 1.6). */
export interface AtifContentPart {
  /** `text` (needs `text`) or `image` (needs `source`). */
  type: "text" | "image";
  /** The text of a text part. */
  text?: string;
  /** The image of an image part. */
  source?: AtifImageSource;
}

/** An image stored beside the trajectory (`ImageSource`). */
export interface AtifImageSource {
  /** `image/jpeg`, `image/png`, `image/gif` or `image/webp`. */
  media_type: string;
  /** Where the image file is. */
  path: string;
}

/** One call of an agent step (`ToolCall`). */
export interface AtifToolCall {
  /** The call's id, unique in its step; observation results name it in `source_call_id`. */
  tool_call_id: string;
  /** The tool called. */
  function_name: string;
  /** The arguments, as an object. */
  arguments: Record<string, unknown>;
  /** Custom call metadata (1.7). */
  extra?: Record<string, unknown>;
}

/** The environment's answer to a step (`Observation`). */
export interface AtifObservation {
  /** One result per call, or one for the whole step. */
  results: AtifObservationResult[];
}

/** One result (`ObservationResult`). */
export interface AtifObservationResult {
  /** The `tool_call_id` (of this step's calls) answered; absent for a result of the whole step. */
  source_call_id?: string;
  /** The result: text, or content parts. */
  content?: string | AtifContentPart[];
  /** Subagent trajectories this result delegated to. */
  subagent_trajectory_ref?: AtifSubagentRef[];
  /** Custom result metadata (1.7). */
  extra?: Record<string, unknown>;
}

/** A reference to a subagent's trajectory (`SubagentTrajectoryRef`): needs `trajectory_id` or `trajectory_path`. */
export interface AtifSubagentRef {
  /** The embedded subagent trajectory's `trajectory_id`. */
  trajectory_id?: string;
  /** The subagent's run (informational, never a resolution key). */
  session_id?: string;
  /** Where the subagent's trajectory file is. */
  trajectory_path?: string;
  /** Custom reference metadata. */
  extra?: Record<string, unknown>;
}

/** A step's LLM figures (`Metrics`). */
export interface AtifMetrics {
  /** Prompt tokens (cached ones included, 1.2). */
  prompt_tokens?: number;
  /** Completion tokens. */
  completion_tokens?: number;
  /** Cached prompt tokens. */
  cached_tokens?: number;
  /** Cost in US dollars. */
  cost_usd?: number;
  /** The prompt's token ids (1.4). */
  prompt_token_ids?: number[];
  /** The completion's token ids (1.3). */
  completion_token_ids?: number[];
  /** One logprob per completion token. */
  logprobs?: number[];
  /** Custom metrics. */
  extra?: Record<string, unknown>;
}

/** Totals over the trajectory (`FinalMetrics`). */
export interface AtifFinalMetrics {
  /** Prompt tokens over every step. */
  total_prompt_tokens?: number;
  /** Completion tokens over every step. */
  total_completion_tokens?: number;
  /** Cached tokens over every step. */
  total_cached_tokens?: number;
  /** Cost in US dollars. */
  total_cost_usd?: number;
  /** Steps in the trajectory. */
  total_steps?: number;
  /** Custom totals. */
  extra?: Record<string, unknown>;
}
