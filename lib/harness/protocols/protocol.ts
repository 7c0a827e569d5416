/**
 * Protocols as registered objects: how a policy's turn is read and run, how a call is written (for the oracle and the
 * scripted policies), the turn that raises a protocol's own completion flag, how a turn's calls read in an ATIF export,
 * and a phrase for `describe`. The episode, the policies, the ATIF export and the profile listing look a protocol up
 * here (`protocolDef`) instead of switching on its kind. Adding one is its file, its member of the `Protocol` union
 * (`types.ts`) and one line in `registry.ts`.
 */
import type { AssistantTurn } from "../episode_types.ts";
import type { EpisodeSession } from "../session.ts";
import type { ChatMessage, ParsedCall, Protocol, ToolOutput } from "../types.ts";

/** The prefix of the session-state keys a protocol keeps across turns; a new step clears them. */
export const PROTOCOL_STATE = "protocol.";

/** What the episode lends a protocol for one turn. */
export interface TurnContext {
  /** The episode's session (profile, container, state kept across turns). */
  readonly session: EpisodeSession;
  /** Runs a call as the harness would: unknown tools, bad arguments, the binding, then the stop rule. */
  run(call: ParsedCall): Promise<ToolOutput>;
  /** A malformed turn: counted and flagged; returns the observation in the profile's words. */
  formatError(error: string): ChatMessage[];
  /** Ends the episode with `answer` (null: none). */
  finish(answer: string | null): void;
  /** True once the episode ended (a call may end it). */
  readonly done: boolean;
  /** Counts calls that do not go through `run` (each keystroke command). */
  countCalls(n: number): void;
  /** The tool a called name runs: itself, or the profile's repair of it. */
  toolName(called: string): string;
}

/** One call an assistant turn made, as an ATIF step lists it. */
export interface CallRecord {
  /** `call_<turn>_<i>`. */
  tool_call_id: string;
  /** The tool (or the protocol's own action name). */
  function_name: string;
  /** Its arguments. */
  arguments: Record<string, unknown>;
}

/** A protocol's behaviour. `P` is its member of the `Protocol` union. */
export interface ProtocolDef<P extends Protocol = Protocol> {
  /** The protocol's kind (`Protocol["kind"]`). */
  kind: P["kind"];
  /** True when turns carry native tool calls and requests carry the tools' schemas. */
  native: boolean;
  /** A phrase for `pgs harness profiles`. */
  describe(p: P): string;
  /** Runs one policy turn (already echoed into the history; `calls` are its parsed native calls): observations. */
  turn(ctx: TurnContext, p: P, turn: AssistantTurn, calls: ParsedCall[]): Promise<ChatMessage[]>;
  /**
   * One call of `tool` with `args` as a policy writes it under this protocol (`id` for native calls, `content` the
   * turn's text); undefined where the protocol cannot say it.
   */
  encode(p: P, tool: string, args: Record<string, unknown>, id: string, content: string): AssistantTurn | undefined;
  /** A shell command as the protocol's own action, for protocols without tools (keystrokes). */
  command?(p: P, command: string): AssistantTurn;
  /** The turn that raises the protocol's completion flag (the `flag` stop rule), for protocols that have one. */
  flagTurn?(p: P): AssistantTurn;
  /**
   * The calls a text turn made, for an ATIF export (`turn` makes the ids), and which call the next user message
   * answers: one id, null for the whole step, undefined when none does.
   */
  atifCalls(p: P, text: string, turn: number): { calls: CallRecord[]; answers?: string | null };
}
