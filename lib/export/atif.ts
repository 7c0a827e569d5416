/**
 * `pgs export atif`: each episode of an eval run as an ATIF v1.7 `trajectory.json` (Harbor's trajectory format, read by
 * its viewers and trainers). The mapping, message by message:
 *
 * - a system message is a system step, a user message a user step (the task, and whatever the harness inserts later:
 *   format errors, nudges, the next instruction of a multi-step task);
 * - an assistant message is an agent step: its text, `reasoning_content`, and `tool_calls` with arguments as objects;
 * - tool messages are the `observation.results` of the agent step they answer, `source_call_id` naming the call;
 * - under a text protocol the policy's calls are in its text: the turn is read again with the profile's own parser
 *   (as Harbor's terminus-2 records it: `bash_command` calls, `mark_task_complete`, ids `call_<turn>_<i>`), and the
 *   user message answering a turn that parsed is its observation; a turn that did not parse got a format error, which
 *   stays a user step;
 * - with token ids recorded (`rollout_details`), each agent step's `metrics` carries its turn's token counts and, with
 *   `tokenIds`, the prompt and completion token ids and logprobs (Harbor's `Metrics` fields, ATIF 1.3 and 1.4);
 * - `final_metrics` holds the token totals, the step count and, in `extra`, the reward and its components; the root
 *   `extra` holds the episode's facts (its ids, task, exit status, answer, the verifier's output, errors, times).
 */
import { join } from "node:path";
import type { Trajectory } from "../eval/records/trajectory.ts";
import { getProfile } from "../harness/registry.ts";
import { protocolDef } from "../harness/protocols/registry.ts";
import type { ChatMessage, Protocol, TextPart } from "../harness/types.ts";
import {
  ATIF_SCHEMA_VERSION,
  type AtifContentPart,
  type AtifMetrics,
  type AtifObservationResult,
  type AtifStep,
  type AtifToolCall,
  type AtifTrajectory,
} from "./atif_types.ts";
import { validateAtif } from "./atif_validate.ts";
import { readRunTrajectories } from "../eval/records/run_dir.ts";
import { writeWhole } from "./run_dir.ts";

/** How `toAtif` reads an episode. */
export interface AtifOptions {
  /**
   * The protocol the episode's profile read turns with (`name@version`); text protocols are parsed again to recover
   * the calls. Default: the profile registry's; an unknown profile is read as native (its replies stay user steps).
   */
  protocolOf?: (profile: string) => Protocol | undefined;
  /**
   * Put each turn's `prompt_token_ids`, `completion_token_ids` and `logprobs` in its agent step's `metrics` (default
   * false: the counts only). `exportAtif` then requires a run that recorded token ids.
   */
  tokenIds?: boolean;
}

/** What `exportAtif` wrote. */
export interface AtifExport {
  /** Per exported episode: its id and its folder under the output. */
  written: { id: string; dir: string }[];
  /** Episodes left out: no message was ever sent (an infrastructure error before the first prompt). */
  skipped: string[];
}

function registryProtocol(profile: string): Protocol | undefined {
  try {
    return getProfile(profile).protocol;
  } catch {
    return undefined;
  }
}

/** `name@version[+variant]` → the agent's name and version (`opencode`, `1.18.33+exact-edit`). */
export function splitProfile(profile: string): { name: string; version: string } {
  const plus = profile.indexOf("+");
  const at = profile.slice(0, plus < 0 ? profile.length : plus).lastIndexOf("@");
  return at > 0 ? { name: profile.slice(0, at), version: profile.slice(at + 1) } : { name: profile, version: "" };
}

function message(content: ChatMessage["content"]): string | AtifContentPart[] {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  // Only text parts exist in pgs's messages; anything else is kept as its JSON rather than dropped.
  return content.map((p: TextPart) =>
    p?.type === "text" && typeof p.text === "string"
      ? { type: "text", text: p.text }
      : { type: "text", text: JSON.stringify(p) }
  );
}

/** The arguments as an object; text that is not a JSON object (a malformed call) is kept in the call's `extra`. */
function callArguments(raw: string): { args: Record<string, unknown>; extra?: Record<string, unknown> } {
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return { args: v };
  } catch { /* kept raw below */ }
  return { args: {}, extra: { raw_arguments: raw } };
}

/**
 * One agent turn's metrics from the rollout details: the token counts and, with `ids`, the token ids and logprobs
 * (none when unrecorded).
 */
function turnMetrics(t: Trajectory, turn: number, ids: boolean): AtifMetrics | undefined {
  const r = t.rollout_details?.[0];
  if (!r || turn < 0) return undefined;
  const m: AtifMetrics = {};
  const prompt = r.prompt_token_ids[turn], completion = r.completion_token_ids[turn], logprobs = r.logprobs[turn];
  // An empty list is a turn the endpoint returned no ids for, not a turn of zero tokens.
  if (prompt?.length) Object.assign(m, { prompt_tokens: prompt.length }, ids ? { prompt_token_ids: prompt } : {});
  if (completion?.length) {
    Object.assign(m, { completion_tokens: completion.length }, ids ? { completion_token_ids: completion } : {});
  }
  if (ids && logprobs?.length) m.logprobs = logprobs;
  return Object.keys(m).length ? m : undefined;
}

/** The episode `t` as an ATIF v1.7 document (see the module's doc for the mapping). */
export function toAtif(t: Trajectory, opts: AtifOptions = {}): AtifTrajectory {
  const protocol = (opts.protocolOf ?? registryProtocol)(t.profile) ?? { kind: "native" };
  const assistants = t.messages.filter((m) => m.role === "assistant").length;
  // The last `turns` assistant messages are the policy's; any before them came with the row (copied context).
  const copied = Math.max(0, assistants - t.turns);
  const drift = new Set(t.drift_turns ?? []), rewrites = new Set(t.template_rewrite_turns ?? []);
  const steps: AtifStep[] = [];
  let agentIndex = 0;
  let last: { step: AtifStep; pending: Map<string, string[]> } | undefined;
  // Under a text protocol: the call the next user message answers (null: the whole step), while one is awaited.
  let awaiting: { callId: string | null } | undefined;
  const push = (s: Omit<AtifStep, "step_id">) => (steps.push({ step_id: steps.length + 1, ...s }), steps.at(-1)!);
  const observe = (step: AtifStep, r: AtifObservationResult) => (step.observation ??= { results: [] }).results.push(r);

  for (const m of t.messages) {
    if (m.role === "assistant") {
      const turn = agentIndex++ - copied;
      const step: AtifStep = push({ source: "agent", message: message(m.content) });
      if (m.reasoning_content) step.reasoning_content = m.reasoning_content;
      const pending = new Map<string, string[]>();
      let calls: AtifToolCall[] = [];
      awaiting = undefined;
      const def = protocolDef(protocol);
      if (def.native || m.tool_calls?.length) {
        const used = new Set<string>();
        calls = (m.tool_calls ?? []).map((c, i) => {
          const { args, extra } = callArguments(c.function?.arguments ?? "");
          // A model may repeat an id within a turn; the copy is renamed so each result links to one call.
          const id = used.has(c.id) ? `${c.id}#${i + 1}` : c.id;
          used.add(id);
          pending.set(c.id, [...pending.get(c.id) ?? [], id]);
          const dup = id !== c.id ? { original_id: c.id } : {};
          const x = { ...extra, ...dup };
          return {
            tool_call_id: id,
            function_name: c.function?.name ?? "",
            arguments: args,
            ...(Object.keys(x).length ? { extra: x } : {}),
          };
        });
      } else {
        const read = def.atifCalls(protocol, typeof m.content === "string" ? m.content : "", turn);
        calls = read.calls;
        if (read.answers !== undefined) awaiting = { callId: read.answers };
      }
      if (calls.length) step.tool_calls = calls;
      const metrics = turnMetrics(t, turn, opts.tokenIds ?? false);
      if (metrics) step.metrics = metrics;
      if (turn < 0) step.is_copied_context = true;
      const flags = {
        ...(drift.has(turn) ? { prompt_drift: true } : {}),
        ...(rewrites.has(turn) ? { template_rewrite: true } : {}),
      };
      if (Object.keys(flags).length) step.extra = flags;
      last = { step, pending };
    } else if (m.role === "tool" && last) {
      const id = last.pending.get(m.tool_call_id ?? "")?.shift();
      observe(last.step, {
        ...(id !== undefined ? { source_call_id: id } : {}),
        content: message(m.content),
        // A result for no call of its turn keeps the id it named, unlinked.
        ...(id === undefined ? { extra: { tool_call_id: m.tool_call_id ?? null } } : {}),
      });
    } else if (m.role === "user" && awaiting && last) {
      observe(last.step, {
        ...(awaiting.callId ? { source_call_id: awaiting.callId } : {}),
        content: message(m.content),
      });
      awaiting = undefined;
    } else {
      awaiting = undefined;
      const source = m.role === "system" ? "system" : "user";
      // A tool result before any agent turn (only a row's own messages could hold one) stays, marked, as a user step.
      const extra = m.role === "tool" ? { extra: { role: "tool", tool_call_id: m.tool_call_id ?? null } } : {};
      push({ source, message: message(m.content), ...extra });
    }
  }

  const sum = (k: "prompt_tokens" | "completion_tokens") =>
    steps.some((s) => s.metrics?.[k] !== undefined) ? steps.reduce((a, s) => a + (s.metrics?.[k] ?? 0), 0) : undefined;
  // The endpoint's usage is the count it billed; without it, the token ids' lengths.
  const prompt = t.usage?.prompt_tokens ?? sum("prompt_tokens");
  const completion = t.usage?.completion_tokens ?? sum("completion_tokens");
  const { name, version } = splitProfile(t.profile);
  const optional = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    // One episode is one agent run: the record's id names both the run and this document.
    session_id: t.id,
    trajectory_id: t.id,
    agent: {
      name,
      version,
      ...(t.model ? { model_name: t.model } : {}),
      ...(t.tools.length ? { tool_definitions: t.tools as unknown as Record<string, unknown>[] } : {}),
      extra: {
        profile: t.profile,
        profile_key: t.profile_key,
        policy: t.policy,
        chat_template_kwargs: t.chat_template_kwargs,
      },
    },
    steps,
    final_metrics: {
      ...(prompt !== undefined ? { total_prompt_tokens: prompt } : {}),
      ...(completion !== undefined ? { total_completion_tokens: completion } : {}),
      total_steps: steps.length,
      extra: { reward: t.reward, metrics: t.metrics, turns: t.turns, counters: t.counters, timings: t.timings },
    },
    extra: optional({
      source: "pgs.trajectory/1",
      id: t.id,
      row_id: t.row_id,
      task: t.task,
      task_dir: t.task_dir,
      sample: t.sample,
      exit_status: t.exit_status,
      answer: t.answer,
      test_output: t.test_output,
      error: t.error,
      infra_stage: t.infra_stage,
      verifier_mode: t.verifier_mode,
      agent_exit_code: t.agent_exit_code,
      drift_turns: t.drift_turns,
      template_rewrite_turns: t.template_rewrite_turns,
      docker_host: t.docker_host,
      started_at: t.started_at,
      ended_at: t.ended_at,
    }),
  };
}

function safe(s: string): string {
  return s.replace(/[^A-Za-z0-9._@+-]+/g, "_");
}

/**
 * A folder name per episode, from its task, profile and sample (`<task>__<profile>__s<sample>`, with any character
 * outside `[A-Za-z0-9._@+-]` as `_`); episodes whose names would collide (the same task in two rows) get their row id
 * appended, so names depend only on the run's records.
 */
export function atifDirNames(ts: Trajectory[]): Map<string, string> {
  const base = (t: Trajectory) => `${safe(t.task)}__${safe(t.profile)}__s${t.sample}`;
  const uses = new Map<string, number>();
  for (const t of ts) uses.set(base(t), (uses.get(base(t)) ?? 0) + 1);
  return new Map(ts.map((t) => [t.id, uses.get(base(t))! > 1 ? `${base(t)}__${t.row_id}` : base(t)]));
}

/**
 * Writes `<outDir>/<episode>/trajectory.json` for every episode of the run in `runDir` that sent a prompt, each
 * checked by `validateAtif` first. `outDir` must not exist; it appears, complete, only when every file is written
 * (nothing is left behind on an error).
 */
export async function exportAtif(runDir: string, outDir: string, opts: AtifOptions = {}): Promise<AtifExport> {
  const ts = readRunTrajectories(runDir);
  if (await exists(outDir)) throw new Error(`${outDir} exists (the export writes a new folder)`);
  if (opts.tokenIds && !ts.some((t) => t.rollout_details?.length)) {
    throw new Error(
      `${join(runDir, "trajectories.jsonl")}: no episode recorded token ids (run pgs eval with --token-ids or ` +
        "--tokenizer)",
    );
  }
  const names = atifDirNames(ts);
  return await writeWhole(outDir, async (tmp) => {
    await Deno.mkdir(tmp);
    const done: AtifExport = { written: [], skipped: [] };
    for (const t of ts) {
      if (t.messages.length === 0) {
        done.skipped.push(t.id);
        continue;
      }
      const doc = toAtif(t, opts);
      const errors = validateAtif(doc);
      if (errors.length) throw new Error(`episode ${t.id}: the ATIF document is invalid: ${errors.join("; ")}`);
      const dir = names.get(t.id)!;
      await Deno.mkdir(join(tmp, dir));
      await Deno.writeTextFile(join(tmp, dir, "trajectory.json"), JSON.stringify(doc, null, 2) + "\n");
      done.written.push({ id: t.id, dir });
    }
    return done;
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
