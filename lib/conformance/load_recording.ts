/** Reads a recording directory (requests.jsonl, optional command.json / script.json) and recovers the stub's script. */
import type { AssistantTurn } from "../harness/profile_episode.ts";
import type { ChatMessage, ToolSchema } from "../harness/types.ts";
import { toChat } from "./wire_to_chat.ts";

/** One recorded chat-completions request body (only the fields compared). */
export interface RecordedRequest {
  messages: ChatMessage[];
  tools?: ToolSchema[];
  /** The body as sent, when its wire is not chat completions (the settings beside messages and tools). */
  wire?: Record<string, unknown>;
  [k: string]: unknown;
}

/** A loaded recording. */
export interface Recording {
  dir: string;
  /** Harness requests (those with `tools`), in order; side requests (titles, ...) are dropped. */
  requests: RecordedRequest[];
  /** The harness's working directory at capture time, when known. */
  cwd?: string;
  /** `command.json`'s argv, when present. */
  argv?: string[];
  /** The model name the harness was configured with (`command.json`'s `model`), when recorded. */
  model?: string;
  /** The harness's environment as command.json recorded it (secrets redacted), when present. */
  env?: Record<string, string>;
  /** The final scripted turn (the one no request echoes), from script.json when present. */
  finalTurn?: AssistantTurn;
}

/**
 * Parses requests.jsonl text: one body per line, in any wire API (`wire_to_chat.ts` puts Responses, Messages and
 * Gemini bodies in chat form, `api` naming the original); keeps only requests with tools.
 */
export function parseRequests(text: string): RecordedRequest[] {
  const out: RecordedRequest[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const body = JSON.parse(line) as Record<string, unknown>;
    const chat = toChat(body);
    if (!chat || !Array.isArray(chat.tools)) continue;
    out.push(chat.api === "chat" ? body as RecordedRequest : { ...chat, tools: chat.tools, wire: body });
  }
  return out;
}

/** The working directory named in a system prompt (`Current working directory: X`, `cwd: X`, ...). */
export function cwdFromSystem(requests: RecordedRequest[]): string | undefined {
  const sys = requests[0]?.messages.find((m) => m.role === "system");
  const text = typeof sys?.content === "string" ? sys.content : sys?.content?.map((p) => p.text).join("") ?? "";
  const m = text.match(/(?:working directory|cwd|workdir)[^:\n]*:\s*`?(\/[^\s`'"]+)/i);
  return m?.[1];
}

/** Request k+1's assistant turns after request k's history are the stub's answer to request k. */
export function recoverScript(requests: RecordedRequest[]): AssistantTurn[] {
  const turns: AssistantTurn[] = [];
  for (let k = 0; k + 1 < requests.length; k++) {
    const added = requests[k + 1].messages.slice(requests[k].messages.length);
    const all = requests[k + 1].messages;
    const last = [...(added.length ? added : all)].reverse().find((m) => m.role === "assistant") ??
      [...all].reverse().find((m) => m.role === "assistant");
    if (!last) throw new Error(`request ${k + 1} has no assistant message to recover the script from`);
    const turn: AssistantTurn = {
      content: typeof last.content === "string" || last.content === null
        ? last.content
        : last.content.map((p) => p.text).join(""),
    };
    if (last.tool_calls?.length) turn.tool_calls = last.tool_calls;
    if (last.reasoning_content) turn.reasoning_content = last.reasoning_content;
    turns.push(turn);
  }
  return turns;
}

interface ScriptEntry {
  content?: string;
  tool_calls?: { name: string; arguments: unknown }[];
}

function turnFromScript(e: ScriptEntry, k: number): AssistantTurn {
  const turn: AssistantTurn = { content: e.content ?? null };
  if (e.tool_calls?.length) {
    turn.tool_calls = e.tool_calls.map((c, i) => ({
      id: `call_${k + 1}_${i}`,
      type: "function" as const,
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
  }
  return turn;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/** Loads `dir`: requests.jsonl (required), command.json and script.json (optional). */
export async function loadRecording(dir: string): Promise<Recording> {
  const requests = parseRequests(await Deno.readTextFile(`${dir}/requests.jsonl`));
  const command = await readJson(`${dir}/command.json`) as
    | { argv?: string[]; cwd?: string; model?: string; env?: Record<string, string> }
    | undefined;
  const script = await readJson(`${dir}/script.json`);
  const rec: Recording = {
    dir,
    requests,
    argv: command?.argv,
    cwd: command?.cwd ?? cwdFromSystem(requests),
    // OPENAI_MODEL: harnesses configured through the OpenAI SDK's environment name their model there.
    model: command?.model ?? modelFromArgv(command?.argv) ?? command?.env?.OPENAI_MODEL,
    env: command?.env,
  };
  if (Array.isArray(script) && script.length >= requests.length && requests.length > 0) {
    rec.finalTurn = turnFromScript(script[requests.length - 1] as ScriptEntry, requests.length - 1);
  }
  return rec;
}

/** The model a harness's argv names (`-m NAME`, `--model NAME`; a `provider/` prefix dropped), if any. */
export function modelFromArgv(argv: string[] | undefined): string | undefined {
  const i = argv?.findIndex((a) => a === "-m" || a === "--model") ?? -1;
  return i >= 0 ? argv![i + 1]?.split("/").pop() : undefined;
}

/** The `--task` given in command.json's argv, if any. */
export function taskFromArgv(argv: string[] | undefined): string | undefined {
  const i = argv?.indexOf("--task") ?? -1;
  return i >= 0 ? argv![i + 1] : undefined;
}
