/**
 * Messages as an OpenAI-compatible server hands them to a chat template, after vLLM's chat path
 * (vllm-project/vllm@001eadcf295d90aa0664963cd6a9d93f38a2f3da:vllm/entrypoints/chat_utils.py): text parts joined
 * into one string, a null content as "", tool-call arguments given as JSON text parsed into objects ({} when they
 * are not a JSON object: templates such as Qwen3's write `arguments | tojson`), and an empty `tool_calls` dropped.
 * Reasoning goes to the template as the harness kept it (`reasoning_content`, or `reasoning`, under both names).
 * This is what a chat endpoint would have rendered, which the token layer compares its sampled history against.
 */

/** One message, loosely typed: whatever a harness keeps. */
export type LooseMessage = Record<string, unknown>;

/** The text of a content value: a string, or the `text` of each part, joined with "\n" (vLLM's "string" format). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter((p) => p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string")
      .map((p) => (p as { text: string }).text)
      .join("\n");
  }
  return "";
}

/** A copy of `messages` in the shape a chat template expects. */
export function templateMessages(messages: readonly unknown[]): LooseMessage[] {
  return messages.map((raw) => {
    const m = { ...(raw as LooseMessage) };
    m.content = contentText(m.content);
    const reasoning = m.reasoning_content ?? m.reasoning;
    if (typeof reasoning === "string") m.reasoning_content = m.reasoning = reasoning;
    if (Array.isArray(m.tool_calls) && m.tool_calls.length === 0) delete m.tool_calls;
    if (Array.isArray(m.tool_calls)) {
      m.tool_calls = m.tool_calls.map((c) => {
        const call = { ...(c as LooseMessage) };
        const f = call.function as LooseMessage | undefined;
        if (f) call.function = { ...f, arguments: argumentsObject(f.arguments) };
        return call;
      });
    }
    return m;
  });
}

function argumentsObject(args: unknown): unknown {
  let v = args;
  if (typeof args === "string") {
    try {
      v = JSON.parse(args);
    } catch {
      return {};
    }
  }
  return v !== null && typeof v === "object" ? v : {};
}
