/**
 * Reduces a recording to what the project may carry: harness system prompts, long tool descriptions and long text
 * parts (upstream prose) are replaced by a note of their length; schemas, short strings and tool results stay. Chat
 * completions, Responses (instructions, developer messages), Messages (`system`) and Gemini (`systemInstruction`)
 * bodies alike.
 */

/** Texts at or under this many characters are kept. */
export const KEEP_CHARS = 2000;
/** Tool descriptions at or under this many characters are kept (longer ones are paraphrased by profiles anyway). */
export const KEEP_DESCRIPTION = 200;

const note = (what: string, n: number) => `(${what} left out of the fixture: ${n} characters)`;

/** Matches the note that stands for text a fixture left out. */
export const LEFT_OUT = /^\((?:text|system prompt|description) left out of the fixture: \d+ characters\)$/;

// deno-lint-ignore no-explicit-any
type Json = any;

function reduceContent(c: Json): Json {
  if (typeof c === "string") return c.length > KEEP_CHARS ? note("text", c.length) : c;
  if (Array.isArray(c)) {
    return c.map((p) =>
      p && typeof p.text === "string" && p.text.length > KEEP_CHARS ? { ...p, text: note("text", p.text.length) } : p
    );
  }
  return c;
}

function reduceDescription(t: Json): Json {
  if (!t || typeof t !== "object") return t;
  const out = { ...t };
  if (typeof out.description === "string" && out.description.length > KEEP_DESCRIPTION) {
    out.description = note("description", out.description.length);
  }
  // A namespace of tools (codex's sub-agent tools) keeps only its members' names: no profile emulates them.
  if (out.type === "namespace" && Array.isArray(out.tools)) {
    out.tools = out.tools.map((m: Json) => ({ type: m?.type, name: m?.name }));
  } else if (Array.isArray(out.tools)) out.tools = out.tools.map(reduceDescription);
  if (Array.isArray(out.functionDeclarations)) {
    out.functionDeclarations = out.functionDeclarations.map(reduceDescription);
  }
  return out;
}

/** A Responses body (codex): instructions and developer messages left out, long user text too; outputs stay. */
function reduceResponses(out: Json): Json {
  if (typeof out.instructions === "string") out.instructions = note("system prompt", out.instructions.length);
  if (Array.isArray(out.input)) {
    out.input = out.input.map((it: Json) => {
      if (it?.type !== undefined && it.type !== "message") return it;
      if (it?.role === "developer" || it?.role === "system") {
        return { ...it, content: note("system prompt", JSON.stringify(it.content ?? "").length) };
      }
      return { ...it, content: reduceContent(it?.content) };
    });
  }
  return out;
}

/** One recorded request body of any wire API, reduced. */
export function reduceRequest(body: Json): Json {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const out = structuredClone(body);
  if (out.input !== undefined) {
    if (Array.isArray(out.tools)) out.tools = out.tools.map(reduceDescription);
    return reduceResponses(out);
  }
  if (out.system !== undefined) out.system = note("system prompt", JSON.stringify(out.system).length);
  if (out.systemInstruction !== undefined) {
    out.systemInstruction = { parts: [{ text: note("system prompt", JSON.stringify(out.systemInstruction).length) }] };
  }
  if (Array.isArray(out.contents)) {
    out.contents = out.contents.map((c: Json) => ({
      ...c,
      parts: (c?.parts ?? []).map((p: Json) =>
        typeof p?.text === "string" && p.text.length > KEEP_CHARS ? { ...p, text: note("text", p.text.length) } : p
      ),
    }));
    if (Array.isArray(out.tools)) out.tools = out.tools.map(reduceDescription);
    return out;
  }
  if (Array.isArray(out.tools) && out.tools.some((t: Json) => t && "input_schema" in t)) {
    out.tools = out.tools.map(reduceDescription);
  }
  if (Array.isArray(out.messages)) {
    out.messages = out.messages.map((m: Json) =>
      m?.role === "system" || m?.role === "developer"
        ? { ...m, content: note("system prompt", JSON.stringify(m.content ?? "").length) }
        : { ...m, content: reduceContent(m?.content) }
    );
  }
  if (Array.isArray(out.tools)) {
    out.tools = out.tools.map((t: Json) => {
      const d = t?.function?.description;
      return typeof d === "string" && d.length > KEEP_DESCRIPTION
        ? { ...t, function: { ...t.function, description: note("description", d.length) } }
        : t;
    });
  }
  return out;
}
