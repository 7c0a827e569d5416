/**
 * A recorded request of any wire API in the chat-completions form a profile speaks, so one comparison serves every
 * harness: OpenAI Responses (codex), Anthropic Messages (claude-code) and Gemini `generateContent` (gemini-cli)
 * bodies become `{messages, tools}` the way an OpenAI-compatible server translates them. Instructions and
 * `developer` messages become system messages; function calls and their outputs become assistant `tool_calls` and
 * `tool` messages; Anthropic `tool_result` blocks become tool messages before the user's remaining text; Gemini's
 * calls, which carry no ids, get positional ones (`gemini_<k>`). A chat-completions body passes as it is.
 */
import type { ChatMessage, TextPart, ToolCall, ToolSchema } from "../harness/types.ts";

type Obj = Record<string, unknown>;

/** Which wire API a recorded body speaks. */
export type WireApi = "chat" | "responses" | "messages" | "gemini";

/** Guesses the API from the body's own fields. */
export function wireApiOf(body: Obj): WireApi | undefined {
  if (Array.isArray(body.contents)) return "gemini";
  if (body.input !== undefined) return "responses";
  if (!Array.isArray(body.messages)) return undefined;
  const tools = Array.isArray(body.tools) ? body.tools as Obj[] : [];
  if (body.system !== undefined || tools.some((t) => "input_schema" in t)) return "messages";
  return "chat";
}

const str = (v: unknown) => typeof v === "string" ? v : v == null ? "" : JSON.stringify(v);

function textOf(content: unknown): string | TextPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return str(content);
  return (content as Obj[]).filter((p) => typeof p.text === "string").map((p) => ({
    type: "text",
    text: p.text as string,
  }));
}

/** A function tool in chat form: a missing description becomes "", missing parameters `{}`. */
export function fnTool(name: unknown, description: unknown, parameters: unknown, strict?: unknown): ToolSchema {
  const f: ToolSchema["function"] = {
    name: str(name),
    description: str(description),
    parameters: (parameters ?? {}) as Obj,
  };
  if (typeof strict === "boolean") f.strict = strict;
  return { type: "function", function: f };
}

/** An assistant message gathering consecutive calls and text. */
function assistantTail(out: ChatMessage[]): ChatMessage {
  const last = out[out.length - 1];
  if (last?.role === "assistant") return last;
  const m: ChatMessage = { role: "assistant", content: null };
  out.push(m);
  return m;
}

function addCall(m: ChatMessage, call: ToolCall): void {
  (m.tool_calls ??= []).push(call);
}

function fromResponses(body: Obj): { messages: ChatMessage[]; tools: ToolSchema[] } {
  const out: ChatMessage[] = [];
  if (typeof body.instructions === "string" && body.instructions) {
    out.push({ role: "system", content: body.instructions });
  }
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input as Obj[];
  for (const item of input ?? []) {
    const type = item.type ?? "message";
    if (type === "message") {
      const role = item.role === "developer" ? "system" : item.role as ChatMessage["role"];
      if (role === "assistant") {
        const m = assistantTail(out);
        const t = textOf(item.content);
        m.content = (typeof m.content === "string" ? m.content : "") +
          (typeof t === "string" ? t : t.map((p) => p.text).join(""));
      } else out.push({ role, content: textOf(item.content) });
    } else if (type === "function_call" || type === "custom_tool_call") {
      addCall(assistantTail(out), {
        id: str(item.call_id),
        type: "function",
        function: { name: str(item.name), arguments: type === "function_call" ? str(item.arguments) : str(item.input) },
      });
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      const o = item.output;
      out.push({ role: "tool", tool_call_id: str(item.call_id), content: typeof o === "string" ? o : textOf(o) });
    } else if (type === "reasoning") {
      const s = (item.summary as Obj[] | undefined)?.map((p) => p.text).join("") ?? "";
      if (s) assistantTail(out).reasoning_content = s;
    }
  }
  const tools = ((body.tools ?? []) as Obj[]).map((t) =>
    t.type === "function"
      ? fnTool(t.name, t.description, t.parameters, t.strict)
      : fnTool(t.name ?? t.type, t.description, t.format ?? {})
  );
  return { messages: out, tools };
}

function fromMessages(body: Obj): { messages: ChatMessage[]; tools: ToolSchema[] } {
  const out: ChatMessage[] = [];
  if (body.system !== undefined && body.system !== null) {
    const s = textOf(body.system);
    out.push({ role: "system", content: typeof s === "string" ? s : s.map((p) => p.text).join("\n\n") });
  }
  for (const m of body.messages as Obj[]) {
    // claude-code sends context (environment, notes) as system-role messages inside `messages`.
    if (m.role === "system") {
      out.push({ role: "system", content: textOf(m.content) });
      continue;
    }
    const blocks: Obj[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content as Obj[];
    if (m.role === "assistant") {
      const a: ChatMessage = { role: "assistant", content: null };
      for (const b of blocks) {
        if (b.type === "text") a.content = (a.content ?? "") + str(b.text);
        else if (b.type === "thinking") a.reasoning_content = str(b.thinking);
        else if (b.type === "tool_use") {
          addCall(a, {
            id: str(b.id),
            type: "function",
            function: { name: str(b.name), arguments: JSON.stringify(b.input) },
          });
        }
      }
      out.push(a);
      continue;
    }
    const parts: TextPart[] = [];
    for (const b of blocks) {
      if (b.type === "tool_result") {
        const c = textOf(b.content);
        out.push({ role: "tool", tool_call_id: str(b.tool_use_id), content: typeof c === "string" ? c : c });
      } else if (b.type === "text") parts.push({ type: "text", text: str(b.text) });
    }
    if (parts.length) out.push({ role: "user", content: typeof m.content === "string" ? m.content : parts });
  }
  const tools = ((body.tools ?? []) as Obj[]).map((t) => fnTool(t.name, t.description, t.input_schema));
  return { messages: out, tools };
}

function fromGemini(body: Obj): { messages: ChatMessage[]; tools: ToolSchema[] } {
  const out: ChatMessage[] = [];
  const sys = (body.systemInstruction ?? body.system_instruction) as Obj | undefined;
  if (sys) out.push({ role: "system", content: ((sys.parts ?? []) as Obj[]).map((p) => str(p.text)).join("") });
  let k = 0;
  const pending: string[] = [];
  for (const c of body.contents as Obj[]) {
    const parts = (c.parts ?? []) as Obj[];
    if (c.role === "model") {
      const a: ChatMessage = { role: "assistant", content: null };
      for (const p of parts) {
        if (p.thought === true && typeof p.text === "string") {
          a.reasoning_content = (a.reasoning_content ?? "") + p.text;
        } else if (typeof p.text === "string") a.content = (a.content ?? "") + p.text;
        else if (p.functionCall) {
          const fc = p.functionCall as Obj;
          const id = typeof fc.id === "string" ? fc.id : `gemini_${k++}`;
          pending.push(id);
          addCall(a, {
            id,
            type: "function",
            function: { name: str(fc.name), arguments: JSON.stringify(fc.args ?? {}) },
          });
        }
      }
      out.push(a);
      continue;
    }
    const text: TextPart[] = [];
    for (const p of parts) {
      if (p.functionResponse) {
        const fr = p.functionResponse as Obj;
        const id = typeof fr.id === "string" ? fr.id : pending.shift() ?? `gemini_${k++}`;
        out.push({ role: "tool", tool_call_id: id, name: str(fr.name), content: JSON.stringify(fr.response ?? {}) });
      } else if (typeof p.text === "string") text.push({ type: "text", text: p.text });
    }
    if (text.length) out.push({ role: "user", content: text });
  }
  const tools: ToolSchema[] = [];
  for (const t of (body.tools ?? []) as Obj[]) {
    for (const d of (t.functionDeclarations ?? t.function_declarations ?? []) as Obj[]) {
      tools.push(fnTool(d.name, d.description, d.parametersJsonSchema ?? d.parameters));
    }
  }
  return { messages: out, tools };
}

/** The body as `{messages, tools}` in chat form (undefined when it is no known API's request). */
export function toChat(body: Obj): { messages: ChatMessage[]; tools?: ToolSchema[]; api: WireApi } | undefined {
  const api = wireApiOf(body);
  if (!api) return undefined;
  if (api === "chat") return { messages: body.messages as ChatMessage[], tools: body.tools as ToolSchema[], api };
  const r = api === "responses" ? fromResponses(body) : api === "messages" ? fromMessages(body) : fromGemini(body);
  return { ...r, tools: body.tools === undefined ? undefined : r.tools, api };
}
