/** What a profile episode takes and gives back, turn by turn: the policy's turn, a step's result, counters, flags. */
import type { ExitStatus } from "./episode_state.ts";
import type { ChatMessage, ToolCall } from "./types.ts";

/** The policy's assistant turn. */
export interface AssistantTurn {
  /** The turn's text (may be empty or null when it only calls tools). */
  content?: string | null;
  /** Native tool calls the turn made. */
  tool_calls?: ToolCall[];
  /** Reasoning text the endpoint returned apart from the content; echoed back as harnesses do. */
  reasoning_content?: string;
  /** Why generation stopped (`stop`, `length`, `tool_calls`), when known. */
  finish_reason?: string;
}

/** What one step gives back. */
export interface StepResult {
  /** Messages the harness would append after the assistant turn (tool results, format errors). */
  observations: ChatMessage[];
  /** True when the episode has ended. */
  done: boolean;
  /** Why the episode ended, when it did (`container_dead`: a tool found the agent's container stopped). */
  exitStatus?: ExitStatus;
}

/** Counters an episode keeps for the metrics. */
export interface EpisodeCounters {
  /** Assistant turns taken. */
  turns: number;
  /** Tool calls made (unknown tools included; each keystroke command counts one). */
  toolCalls: number;
  /** Malformed turns (no call where one was needed, bad protocol, failed validation). */
  formatErrors: number;
  /** Calls to tools the episode does not expose. */
  unknownTools: number;
}

/** A turn the harness refused or half-refused: what a viewer highlights. Only turns with a flag are listed. */
export interface TurnFlag {
  /** The turn, 0-based (the n-th assistant message of the history). */
  turn: number;
  /** The format error the harness found in the turn (its own words are the observation). */
  format_error?: string;
  /** Tools the turn called that the episode does not expose, as called. */
  unknown_tools?: string[];
}
