/**
 * `--policy script:turns.json` checked against every profile a run may draw, before any container starts: a script
 * that calls a tool the profile lacks (`bash` under claude-code, whose shell tool is `Bash`) would score 0 on every
 * episode without a word. Under a text protocol (fenced blocks, terminus JSON) the policy's actions are the reply's
 * text, so a script's `tool_calls` would be ignored there: such a script is refused too, and its turns must be
 * `{"content": ...}` written in the profile's format.
 *
 * `--allow-unknown-tools` lifts both refusals, to test a profile's answer to a call it cannot run: the script's turns
 * are sent as written, so a native-call profile answers a tool it lacks as its harness does (`unknownTool`, counted in
 * `unknown_tools`), and a text-protocol profile answers a reply of native tool calls as its harness does (its format
 * error: a text protocol names no tool, so there is no unknown tool to count there).
 */
import { UsageError } from "../base/errors.ts";
import { describeProtocol } from "../harness/describe.ts";
import { getProfile, NO_PROFILE_DIALECT, resolveProfileName } from "../harness/registry.ts";
import type { HarnessProfile } from "../harness/types.ts";
import { parseScript, type Turn } from "../script/script.ts";

/** Reads and parses a turns.json given as `--policy script:PATH`; a one-line usage error naming the file otherwise. */
export async function readScriptFile(path: string): Promise<Turn[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new UsageError(`--policy script:${path}: cannot read (${(e as Error).message})`);
  }
  try {
    return parseScript(text);
  } catch (e) {
    throw new UsageError(`${path}: ${(e as Error).message}`);
  }
}

/**
 * What is wrong with running `turns` under `profile`, in words, or undefined when nothing is (always undefined when
 * `allowUnknownTools`: the profile answers whatever the script calls).
 */
export function scriptProblem(turns: Turn[], profile: HarnessProfile, allowUnknownTools = false): string | undefined {
  if (allowUnknownTools) return undefined;
  const called = [...new Set(turns.flatMap((t) => "tool_calls" in t ? t.tool_calls.map((c) => c.name) : []))];
  if (!called.length) return undefined;
  const p = profile.protocol;
  if (p.kind !== "native") {
    const first = turns.findIndex((t) => "tool_calls" in t) + 1;
    return `turn ${first} has tool_calls, but ${profile.name}@${profile.version} reads its actions from the reply's ` +
      `text (${describeProtocol(p)}): write its turns as {"content": "..."} in that format`;
  }
  const tools = profile.tools.map((t) => t.schema.function.name);
  const unknown = called.filter((n) => !tools.includes(n));
  if (!unknown.length) return undefined;
  return `calls ${unknown.join(", ")}, which ${profile.name}@${profile.version} does not have (its tools: ${
    tools.join(", ")
  })`;
}

/**
 * The profiles a run may draw: each row's own `harness_profile`, else `profile`, else every profile of `profiles`
 * with a positive weight, else the no-profile dialect. Canonical `name@version[+variant]`, sorted.
 */
export function profilesDrawn(
  rows: { harness_profile?: string }[],
  profile?: string,
  profiles?: Record<string, number>,
): string[] {
  const fallback = profile
    ? [profile]
    : profiles
    ? Object.entries(profiles).filter(([, w]) => w > 0).map(([p]) => p)
    : [NO_PROFILE_DIALECT];
  const specs = new Set<string>();
  for (const r of rows) for (const p of r.harness_profile ? [r.harness_profile] : fallback) specs.add(p);
  return [...new Set([...specs].map(resolveProfileName))].sort();
}

/**
 * Throws a one-line usage error naming the script, the first profile it does not fit, and why; nothing when
 * `allowUnknownTools` (`--allow-unknown-tools`) lets every call through.
 */
export function checkScript(path: string, turns: Turn[], profiles: string[], allowUnknownTools = false): void {
  if (allowUnknownTools) return;
  for (const full of profiles) {
    const problem = scriptProblem(turns, getProfile(full));
    if (problem) throw new UsageError(`--policy script:${path}: ${problem}`);
  }
}
