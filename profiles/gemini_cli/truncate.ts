/**
 * The scheduler's cap on run_shell_command results (ToolExecutor.truncateOutputIfNeeded): past 40000 characters the
 * whole text is saved under the project temp directory, `tool-outputs/session-<id>/<tool>__<call id>.txt`, and the
 * model gets its first 20% and last 80% with the count left out between them. (The threshold is also bounded by 4 ×
 * the tokens left in the context window, which the episode does not track: approx., always 40000 here.)
 */
import { posix } from "node:path";
import type { Session } from "../../lib/harness/types.ts";
import { writeLarge } from "./fs.ts";
import { env } from "./paths.ts";

/** DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD. */
export const TRUNCATE_THRESHOLD = 40000;

const safe = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_");

/** Where the full output of a call is saved (the call id as Turn prefixes it with `<tool>__`). */
export function savedOutputPath(s: Session, tool: string, callId: string): string {
  const id = callId.startsWith(`${tool}__`) ? callId : `${tool}__${callId}`;
  const safeTool = safe(tool).toLowerCase(), safeId = safe(id).toLowerCase();
  const file = safeId.startsWith(safeTool) ? `${safeId}.txt` : `${safeTool}_${safeId}.txt`;
  const e = env(s);
  return posix.join(e.tempDir, "tool-outputs", `session-${safe(e.sessionId)}`, file);
}

/** formatTruncatedToolOutput. */
export function formatTruncated(content: string, file: string, max = TRUNCATE_THRESHOLD): string {
  if (content.length <= max) return content;
  const head = Math.floor(max * 0.2), tail = max - head;
  const omitted = content.length - head - tail;
  return `Output too large. Showing first ${head.toLocaleString("en-US")} and last ${
    tail.toLocaleString("en-US")
  } characters. For full output see: ${file}\n${content.slice(0, head)}\n\n... [${
    omitted.toLocaleString("en-US")
  } characters omitted] ...\n\n${content.slice(-tail)}`;
}

/** The result as the model gets it: whole, or saved in the container and cut. */
export async function capShellOutput(s: Session, content: string, callId: string): Promise<string> {
  if (content.length <= TRUNCATE_THRESHOLD) return content;
  const file = savedOutputPath(s, "run_shell_command", callId);
  await writeLarge(s, file, content);
  return formatTruncated(content, file);
}
