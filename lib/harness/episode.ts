/**
 * Runs one episode turn by turn under a profile: renders the first prompt, reads each policy turn (native tool calls
 * or a text protocol), runs the tools, words the observations as the harness would, and applies the stop rule.
 */
import { AgentTimeoutError, ContainerDeadError } from "../base/errors.ts";
import type { ExecEnv } from "../runtime/exec_env.ts";
import { EpisodeSession } from "./session.ts";
import { parseTerminusJson, terminusFeedback } from "./protocols/terminus_json.ts";
import { parseTextTurn } from "./protocols/text_protocols.ts";
import type {
  ChatMessage,
  HarnessProfile,
  ParsedCall,
  PreludeMessage,
  TextPart,
  ToolMessageKey,
  ToolOutput,
  ToolSchema,
} from "./types.ts";

import type { AssistantTurn, EpisodeCounters, StepResult, TurnFlag } from "./episode_types.ts";

export type { AssistantTurn, EpisodeCounters, StepResult, TurnFlag } from "./episode_types.ts";

const DEFAULT_TOOL_MESSAGE_KEYS: ToolMessageKey[] = ["content", "tool_call_id"];

function defaultParse(raw: string): { args: Record<string, unknown> } | { error: string } {
  try {
    const v = raw.trim() === "" ? {} : JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return { args: v };
    return { error: "arguments are not a JSON object" };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Plain `{key}` replacement, no escaping, so JSON examples in templates need none. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (m, k: string) => k in values ? values[k] : m);
}

function contentText(c: string | TextPart[] | null | undefined): string {
  if (c == null) return "";
  return typeof c === "string" ? c : c.map((p) => p.text).join("");
}

/** An episode under one profile. */
export class ProfileEpisode {
  /** The episode's session: container, profile and scratch state. */
  readonly session: EpisodeSession;
  /** Counters for the metrics. */
  readonly counters: EpisodeCounters = { turns: 0, toolCalls: 0, formatErrors: 0, unknownTools: 0 };
  /** The history as the harness keeps it: first messages, echoed assistant turns, observations. */
  readonly messages: ChatMessage[] = [];
  /** Turns with a format error or an unknown tool, in turn order. */
  readonly flags: TurnFlag[] = [];
  #lastText = "";
  #done = false;
  #formatStreak = 0;
  /** Flag stop: a completion was seen and awaits its confirmation. */
  #pendingFlag = false;

  /** An episode of `profile` on a started container; `maxOutput` is the session's output limit (default 16000). */
  constructor(readonly profile: HarnessProfile, box: ExecEnv, maxOutput?: number) {
    this.session = new EpisodeSession(box, profile, maxOutput);
  }

  /** The tool schemas sent with each request (native protocols), in the harness's order. */
  get tools(): ToolSchema[] {
    return this.profile.protocol.kind === "native" ? this.profile.tools.map((t) => t.schema) : [];
  }

  /** True once the stop rule ended the episode. */
  get done(): boolean {
    return this.#done;
  }

  /** Renders the first messages for an instruction; `extra` adds template values (model, date, ...). */
  async begin(instruction: string, extra: Record<string, string> = {}): Promise<ChatMessage[]> {
    const values: Record<string, string> = {
      instruction,
      workdir: this.session.workdir,
      date: new Date().toISOString().slice(0, 10),
      model: "",
      tools: this.profile.tools.map((t) => `${t.schema.function.name}: ${t.schema.function.description}`).join("\n"),
      ...extra,
    };
    if (/\{(system_information|git_repo|git_root)\}/.test(this.profile.system + this.profile.user)) {
      const r = await this.session.exec(
        "uname -srvmo 2>/dev/null || uname -a; git rev-parse --show-toplevel 2>/dev/null || true",
        { shell: "sh", timeout: 30 },
      );
      const [uname, root] = r.stdout.split("\n");
      values.system_information ??= uname ?? "";
      values.git_root ??= root ?? "";
      values.git_repo ??= root ? "yes" : "no";
    }
    if (this.profile.start) Object.assign(values, await this.profile.start(this.session, { ...values }));
    const first: ChatMessage[] = [];
    const system = fillTemplate(this.profile.system, values);
    if (system) first.push({ role: "system", content: system });
    const render = (m: PreludeMessage): ChatMessage => ({
      role: m.role,
      content: typeof m.content === "string"
        ? fillTemplate(m.content, values)
        : m.content.map((t) => ({ type: "text" as const, text: fillTemplate(t, values) })),
    });
    for (const m of this.profile.prelude ?? []) first.push(render(m));
    const user = fillTemplate(this.profile.user, values);
    first.push({
      role: "user",
      content: this.profile.userParts
        ? this.profile.userParts.map((t) => ({ type: "text" as const, text: fillTemplate(t, values) }))
        : this.profile.userContent === "parts"
        ? [{ type: "text", text: user }]
        : user,
    });
    for (const m of this.profile.postlude ?? []) first.push(render(m));
    this.messages.push(...first);
    return first;
  }

  /**
   * Goes on after the stop rule ended a step of a multi-step task: the next instruction becomes the next user turn
   * (the plain instruction, in the profile's content shape), and the stop rule applies afresh. Returns that message.
   */
  continueWith(instruction: string): ChatMessage {
    this.#done = false;
    this.#pendingFlag = false;
    this.#formatStreak = 0;
    this.session.stopped = undefined;
    this.session.state.delete("submit.reviewed");
    const parts = this.profile.userParts || this.profile.userContent === "parts";
    const msg: ChatMessage = { role: "user", content: parts ? [{ type: "text", text: instruction }] : instruction };
    this.messages.push(msg);
    return msg;
  }

  /** The answer by the profile's rule: what the stop captured, else (or always) the last assistant text. */
  answer(): string {
    const rule = this.profile.answer;
    if (rule.kind === "stop_answer") {
      const got = this.session.stopped?.answer;
      if (got != null) return got;
      return rule.fallback === "last_text" ? this.#lastText : "";
    }
    // Under NoCall the reply that ended the episode is the answer, even when it is empty.
    if (this.profile.stop.kind === "no_call" && this.session.stopped) return this.session.stopped.answer ?? "";
    return this.#lastText;
  }

  #echo(turn: AssistantTurn, calls: ParsedCall[]): ChatMessage {
    const text = turn.content ?? "";
    const msg: ChatMessage = {
      role: "assistant",
      content: text.trim() === "" && turn.tool_calls?.length ? this.profile.emptyAssistantContent ?? null : text,
    };
    if (turn.reasoning_content) msg.reasoning_content = turn.reasoning_content;
    if (turn.tool_calls?.length) {
      const echo = this.profile.echoInput;
      const parsed = this.profile.echoArguments === "parsed" || echo !== undefined;
      msg.tool_calls = turn.tool_calls.map((c, k) => {
        const args = calls[k]?.args;
        if (!parsed || !args) return c;
        const input = echo ? echo(c.function.name, args) : args;
        return { ...c, function: { ...c.function, arguments: JSON.stringify(input) } };
      });
    }
    return msg;
  }

  #parseCalls(turn: AssistantTurn): ParsedCall[] {
    const parse = this.profile.parseArguments ?? defaultParse;
    return (turn.tool_calls ?? []).map((c) => {
      const raw = c.function.arguments ?? "";
      const r = parse(raw);
      return "args" in r
        ? { id: c.id, name: c.function.name, args: r.args, raw }
        : { id: c.id, name: c.function.name, args: null, raw, error: r.error };
    });
  }

  /** Takes one assistant turn and returns the harness's observations. */
  async step(turn: AssistantTurn): Promise<StepResult> {
    if (this.#done) throw new Error("step after the episode ended");
    this.counters.turns++;
    this.session.finishReason = turn.finish_reason;
    const text = turn.content ?? "";
    if (text.trim()) this.#lastText = text;
    const calls = this.profile.protocol.kind === "native" ? this.#parseCalls(turn) : [];
    this.messages.push(this.#echo(turn, calls));
    const errorsBefore = this.counters.formatErrors;
    const kind = this.profile.protocol.kind;
    let obs: ChatMessage[];
    try {
      obs = kind === "native"
        ? await this.#native(turn, calls)
        : kind === "terminus_json"
        ? await this.#keystrokes(text)
        : await this.#text(text);
    } catch (e) {
      if (e instanceof AgentTimeoutError) {
        // The agent timeout passed while a tool ran (the runtime killed it): the episode ends as it stands.
        this.#finish(null);
        return { observations: [], done: true, exitStatus: "timeout" };
      }
      if (!(e instanceof ContainerDeadError)) throw e;
      // The agent stopped its own container: the episode ends here, and is scored on what the container holds.
      this.session.box.dead = true;
      this.#finish(null);
      return { observations: [], done: true, exitStatus: "container_dead" };
    }
    this.messages.push(...obs);
    if (this.#done) return { observations: obs, done: true, exitStatus: "stop_rule" };
    this.#formatStreak = this.counters.formatErrors > errorsBefore ? this.#formatStreak + 1 : 0;
    const max = this.profile.maxFormatErrors;
    if (max !== undefined && this.#formatStreak >= max) {
      this.#finish(null);
      return { observations: obs, done: true, exitStatus: "format_errors" };
    }
    return { observations: obs, done: false };
  }

  /** The flag entry of the current turn (created on first use). */
  #flag(): TurnFlag {
    const turn = this.counters.turns - 1;
    const last = this.flags.at(-1);
    if (last?.turn === turn) return last;
    const f: TurnFlag = { turn };
    this.flags.push(f);
    return f;
  }

  #formatError(error: string): ChatMessage[] {
    this.counters.formatErrors++;
    this.#flag().format_error = error;
    const fe = this.profile.formatError;
    return [{ role: "user", content: fe ? fe(error, this.session) : error }];
  }

  #finish(answer: string | null = null): void {
    if (!this.session.stopped) this.session.stop(answer);
    this.#done = true;
  }

  async #native(turn: AssistantTurn, calls: ParsedCall[]): Promise<ChatMessage[]> {
    if (calls.length === 0) {
      const stop = this.profile.stop;
      if (stop.kind === "no_call") {
        this.#finish(turn.content ?? "");
        return [];
      }
      if (stop.kind === "finish" && stop.endOnText && (turn.content ?? "").trim()) {
        this.#finish(null);
        return [];
      }
      return this.#formatError("no tool call");
    }
    const invalid = this.profile.validate?.(calls, this.session);
    if (invalid !== undefined) return this.#formatError(invalid);
    const out: ChatMessage[] = [];
    for (const call of calls) {
      const result = await this.#run(call);
      if (this.#done) break;
      // Keys are added in the harness's order: the request's JSON (and so its tokens) keeps it.
      const values = { content: result, tool_call_id: call.id, name: this.#toolName(call.name) };
      const msg: Record<string, unknown> = { role: "tool" };
      for (const key of this.profile.toolMessageKeys ?? DEFAULT_TOOL_MESSAGE_KEYS) msg[key] = values[key];
      out.push(msg as unknown as ChatMessage);
    }
    // Notes the bindings asked for (claude-code's system-role messages) follow the turn's results.
    out.push(...this.session.pendingMessages.splice(0));
    return out;
  }

  async #text(text: string): Promise<ChatMessage[]> {
    const parsed = parseTextTurn(this.profile.protocol, text);
    // A turn with no action at all is the final reply under a no_call stop rule (small-agent); a malformed one is
    // always a format error.
    const none = "error" in parsed ? parsed.none === true : parsed.calls.length === 0;
    if (none && this.profile.stop.kind === "no_call") {
      this.#finish(text);
      return [];
    }
    if ("error" in parsed) return this.#formatError(parsed.error);
    if (parsed.calls.length === 0) return this.#formatError("no tool call");
    const results: string[] = [];
    for (const call of parsed.calls) {
      const result = await this.#run(call);
      if (this.#done) break;
      results.push(typeof result === "string" ? result : contentText(result));
    }
    // Text protocols have no tool role: the harness shows results as the next user message.
    return this.#done && results.length === 0 ? [] : [{ role: "user", content: results.join("\n\n") }];
  }

  /**
   * A keystroke turn (terminus-2): a turn whose feedback has an error runs nothing and leaves a pending completion as
   * it was; otherwise the batch runs, then the flag stop applies (a first completion asks for confirmation, a second
   * in a row ends the episode, any other parsed turn clears it).
   */
  async #keystrokes(text: string): Promise<ChatMessage[]> {
    const hooks = this.profile.terminal;
    if (!hooks) throw new Error(`profile ${this.profile.name}: protocol terminus_json needs terminal hooks`);
    const parsed = parseTerminusJson(text);
    const feedback = terminusFeedback(parsed);
    // Harbor tests the feedback text, not the error field.
    if (feedback.includes("ERROR:")) return this.#formatError(feedback);
    this.counters.toolCalls += parsed.commands.length;
    const output = await hooks.run(this.session, parsed.commands);
    const stop = this.profile.stop;
    if (parsed.taskComplete && stop.kind === "flag") {
      if (!stop.confirm || this.#pendingFlag) {
        this.#finish(null);
        return [];
      }
      this.#pendingFlag = true;
      return [{ role: "user", content: hooks.confirm(output) }];
    }
    this.#pendingFlag = false;
    return [{ role: "user", content: hooks.observe(output, feedback) }];
  }

  /** The tool a called name runs: itself, or the profile's repair of it (e.g. a legacy name). */
  #toolName(called: string): string {
    const names = this.profile.tools.map((t) => t.schema.function.name);
    if (names.includes(called)) return called;
    const repaired = this.profile.alias?.(called, names);
    return repaired && names.includes(repaired) ? repaired : called;
  }

  async #run(call: ParsedCall): Promise<ToolOutput> {
    this.counters.toolCalls++;
    const names = this.profile.tools.map((t) => t.schema.function.name);
    const name = this.#toolName(call.name);
    const spec = this.profile.tools.find((t) => t.schema.function.name === name);
    if (!spec) {
      this.counters.unknownTools++;
      const f = this.#flag();
      (f.unknown_tools ??= []).push(call.name);
      return this.profile.unknownTool?.(call.name, names, call.args) ??
        `Error: unknown tool '${call.name}'. Available tools: ${names.join(", ")}`;
    }
    if (call.args === null) {
      return this.profile.badArguments?.(name, call.raw, call.error ?? "", call) ??
        `Error: invalid arguments for ${name}: ${call.error}`;
    }
    this.session.lastExec = undefined;
    const result = await spec.bind(this.session, call.args, call);
    this.#applyStop(name, call.args, result);
    return result;
  }

  #applyStop(name: string, args: Record<string, unknown>, result: ToolOutput): void {
    const stop = this.profile.stop;
    const s = this.session;
    if (s.stopped) return this.#finish();
    if (stop.kind === "sentinel" && s.lastExec) {
      const lines = s.lastExec.output.trimStart().split(/(?<=\n)/);
      if (lines.length && lines[0].trim() === stop.text && s.lastExec.exitCode === 0) {
        this.#finish(lines.slice(1).join(""));
      }
    } else if (stop.kind === "finish" && name === stop.tool) {
      const v = args[stop.field];
      this.#finish(typeof v === "string" ? v : null);
    } else if (stop.kind === "submit" && name === stop.tool) {
      if (!stop.confirm || s.state.get("submit.reviewed")) this.#finish();
      else s.state.set("submit.reviewed", true);
    }
    void result;
  }
}
