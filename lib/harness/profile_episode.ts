/**
 * Runs one episode turn by turn under a profile: renders the first prompt, reads each policy turn (native tool calls
 * or a text protocol), runs the tools, words the observations as the harness would, and applies the stop rule.
 */
import { AgentTimeoutError, ContainerDeadError } from "../base/errors.ts";
import type { ExecEnv } from "../runtime/exec_env.ts";
import { EpisodeSession } from "./session.ts";
import { PROTOCOL_STATE, type TurnContext } from "./protocols/protocol.ts";
import { protocolDef } from "./protocols/registry.ts";
import type { ChatMessage, HarnessProfile, ParsedCall, PreludeMessage, ToolOutput, ToolSchema } from "./types.ts";

import type { AssistantTurn, EpisodeCounters, StepResult, TurnFlag } from "./episode_types.ts";

export type { AssistantTurn, EpisodeCounters, StepResult, TurnFlag } from "./episode_types.ts";

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
  /** What the protocol of a turn may do with the episode (`protocols/protocol.ts`). */
  readonly #context: TurnContext;

  /** An episode of `profile` on a started container; `maxOutput` is the session's output limit (default 16000). */
  constructor(readonly profile: HarnessProfile, box: ExecEnv, maxOutput?: number) {
    this.session = new EpisodeSession(box, profile, maxOutput);
    const isDone = () => this.#done;
    this.#context = {
      session: this.session,
      run: (call) => this.#run(call),
      formatError: (error) => this.#formatError(error),
      finish: (answer) => this.#finish(answer),
      get done() {
        return isDone();
      },
      countCalls: (n) => {
        this.counters.toolCalls += n;
      },
      toolName: (called) => this.#toolName(called),
    };
  }

  /** The tool schemas sent with each request (native protocols), in the harness's order. */
  get tools(): ToolSchema[] {
    return protocolDef(this.profile.protocol).native ? this.profile.tools.map((t) => t.schema) : [];
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
      model: this.profile.harnessModel ?? "",
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
    // A protocol's state across turns (a completion awaiting its confirmation) does not carry into the next step.
    for (const k of [...this.session.state.keys()]) if (k.startsWith(PROTOCOL_STATE)) this.session.state.delete(k);
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
    const protocol = protocolDef(this.profile.protocol);
    const calls = protocol.native ? this.#parseCalls(turn) : [];
    this.messages.push(this.#echo(turn, calls));
    const errorsBefore = this.counters.formatErrors;
    let obs: ChatMessage[];
    try {
      obs = await protocol.turn(this.#context, this.profile.protocol, turn, calls);
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
