/** Helpers for profile tests: run a profile's episode on a task in a real container, step by step. */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { ProfileEpisode } from "../lib/harness/profile_episode.ts";
import type { ChatMessage, HarnessProfile, ToolCall } from "../lib/harness/types.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { verify, type VerifyResult } from "../lib/verify/verifier.ts";
import { isApprox, trackApprox } from "../lib/harness/provenance.ts";
import { LocalExecEnv } from "../lib/runtime/local_env.ts";

/** The example tasks' folder. */
export const EXAMPLE_TASKS = resolve(import.meta.dirname!, "..", "examples", "tasks");

let seq = 0;
/** A native tool call with a fresh id. */
export function call(name: string, args: unknown, raw?: string): ToolCall {
  return { id: `call_${++seq}`, type: "function", function: { name, arguments: raw ?? JSON.stringify(args) } };
}

/** Runs `fn` with a started episode of `profile` on the task at `taskDir`; containers are removed afterwards. */
export async function withEpisode(
  docker: Docker,
  profile: HarnessProfile,
  taskDir: string,
  fn: (ep: ProfileEpisode, score: () => Promise<VerifyResult>, box: Sandbox) => Promise<void>,
): Promise<void> {
  const task = await loadTask(taskDir);
  const box = await Sandbox.start(task, new ImageStore(docker));
  try {
    const ep = new ProfileEpisode(profile, box);
    await ep.begin(task.instruction);
    await fn(ep, () => verify(box, ep.answer()), box);
  } finally {
    await box.remove();
  }
}

/** Options of `runTool`; the defaults check the most, a test opts out of what its profile does otherwise. */
export interface RunToolOptions {
  /** Assert the episode goes on after the call (default true). */
  ongoing?: boolean;
  /** The role the observation must have (default "tool"). */
  role?: ChatMessage["role"];
  /** Give back the whole observation message instead of its text (for content that is a list of parts). */
  message?: boolean;
}

/**
 * Runs one tool call as a one-call assistant turn (no text) and returns the one observation's text, which must be a
 * string; with `message`, the whole observation. `raw` is sent as the arguments instead of `JSON.stringify(args)`.
 */
export function runTool(
  ep: ProfileEpisode,
  name: string,
  args: unknown,
  raw: string | undefined,
  opts: RunToolOptions & { message: true },
): Promise<ChatMessage>;
export function runTool(
  ep: ProfileEpisode,
  name: string,
  args: unknown,
  raw?: string,
  opts?: RunToolOptions & { message?: false },
): Promise<string>;
export async function runTool(
  ep: ProfileEpisode,
  name: string,
  args: unknown,
  raw?: string,
  opts: RunToolOptions = {},
): Promise<string | ChatMessage> {
  const r = await ep.step({ content: "", tool_calls: [call(name, args, raw)] });
  if (opts.ongoing ?? true) assert.equal(r.done, false, `the episode goes on after ${name}`);
  assert.equal(r.observations.length, 1, `one observation for one call to ${name}`);
  const obs = r.observations[0];
  assert.equal(obs.role, opts.role ?? "tool");
  if (opts.message) return obs;
  assert.equal(typeof obs.content, "string", `the result of ${name} is a string`);
  return obs.content as string;
}

// Remember every approx() string the profiles emit, so that assertApprox can tell guessed wording apart.
trackApprox();

/** Asserts `actual` is `expected` and that the profile marked it `approx()`: wording no recording or source shows. */
export function assertApprox(actual: string, expected: string): void {
  assert.equal(actual, expected);
  assert.ok(isApprox(actual), `${JSON.stringify(actual)} is not marked approx()`);
}

/**
 * Runs `fn` with a started episode of `profile` on the task at `taskDir` without an engine: the task's
 * environment/workdir copied into a `LocalExecEnv`. For tests of wording that need no container semantics (no
 * users, limits or image); the working directory is then a temp folder, never the task's own path.
 */
export async function withLocalEpisode(
  profile: HarnessProfile,
  taskDir: string,
  fn: (ep: ProfileEpisode) => Promise<void>,
): Promise<void> {
  const task = await loadTask(taskDir);
  await using env = await LocalExecEnv.create({ copyFrom: resolve(taskDir, "environment", "workdir") });
  const ep = new ProfileEpisode(profile, env);
  await ep.begin(task.instruction);
  await fn(ep);
}
