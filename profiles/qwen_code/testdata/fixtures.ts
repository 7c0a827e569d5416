/** qwen-code's recorded calls (tests/golden/qwen-code) and the shape of its tool results, shared by its tests. */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import type { ChatMessage, TextPart, ToolOutput } from "../../../lib/harness/types.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "..", "tests", "golden", "qwen-code");

/** One recorded call: its index in the run, the tool, the echoed arguments and the result, paths as placeholders. */
export interface Recorded {
  i: number;
  name: string;
  arguments: string;
  result: string;
}

export async function recorded(run: string): Promise<Recorded[]> {
  return JSON.parse(await Deno.readTextFile(resolve(GOLDEN, `replay_${run}.json`)));
}

/** The text of a tool message's content, which must be a list of exactly one text part. */
export function onePart(content: ChatMessage["content"] | ToolOutput): string {
  assert.ok(Array.isArray(content), "tool results are a list of parts");
  assert.equal(content.length, 1);
  const part = content[0] as TextPart;
  assert.deepEqual(Object.keys(part), ["type", "text"]);
  assert.equal(part.type, "text");
  return part.text;
}
