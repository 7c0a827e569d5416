/**
 * What a recorded request body holds besides its settings, in any of the four wire APIs: the conversation, the tools
 * and system text, and the ids of the session and the machine (which differ run to run). `harnessSettings` is the rest:
 * what `harness adopt` keeps as an overlay's generation settings and `harness diff --baseline` compares.
 */
import type { RecordedRequest } from "./load_recording.ts";

/** The conversation's keys (every wire API's). */
export const CONVERSATION_KEYS = ["messages", "contents", "input"] as const;

/** Ids of the session and the machine, never the same twice. */
export const SESSION_KEYS = ["metadata", "prompt_cache_key", "client_metadata", "user"] as const;

const NOT_SETTINGS = new Set<string>([
  ...CONVERSATION_KEYS,
  ...SESSION_KEYS,
  "tools",
  "system",
  "systemInstruction",
  "instructions",
  "model",
  "stream",
]);

/** The settings of a recorded request: its wire body (or chat body) without the keys above. */
export function harnessSettings(r: RecordedRequest): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r.wire ?? r).filter(([k]) => !NOT_SETTINGS.has(k) && k !== "wire"));
}
