/**
 * The tools of a recorded first request as an overlay carries them: every tool the harness sent, in its order, in a
 * form a chat-completions model can be shown (`{type: "function", function: {name, description, parameters}}`).
 * A function tool passes exactly (as `wire_to_chat.ts` puts it). The others are mapped, and each mapping is stated:
 *
 * - a Responses `namespace` (codex's `multi_agent_v1`, an MCP server's tools) becomes one function per member, named
 *   `<namespace>__<member>` (codex's own flat form of a namespaced tool name, `ToolName::canonical_flat_name`: one
 *   `_` run trimmed at the join, and valid where chat completions restricts names to `[a-zA-Z0-9_-]`), each member's
 *   description and parameters exactly as sent; the namespace's own description stays in the mapping;
 * - a tool the provider defines (Responses `web_search`, `file_search`, ...; an Anthropic server tool such as
 *   `web_search_20250305`; a Gemini `googleSearch`) becomes a function of its name whose description says so and
 *   quotes the settings sent, with no parameters (an empty object schema: none are made up);
 * - a Responses `custom` (freeform) tool keeps the chat form comparisons use: its `format` (a grammar, or text) as
 *   the parameters, its calls' raw input as their arguments.
 *
 * `wire_to_chat.ts`'s chat form (one entry per recorded tool, so that a profile's `omittedTools` name what was sent)
 * serves the comparisons; this form serves a model.
 */
import type { ToolSchema } from "../harness/types.ts";
import { fnTool, type WireApi } from "./wire_to_chat.ts";

type Obj = Record<string, unknown>;

/** How one tool the harness sent that was no plain function became the overlay's functions. */
export interface ToolMapping {
  /** The tool's type as sent: `namespace`, `custom`, a hosted tool's type, a Gemini tool's key. */
  type: string;
  /** Its name as sent (a hosted tool sent without one: its type). */
  name: string;
  /** `namespace`: a function per member; `hosted`: a function naming the provider's tool, no parameters;
   * `freeform`: a function whose parameters are the recorded format. */
  mapping: "namespace" | "hosted" | "freeform";
  /** The functions it became in the overlay's `tools`, in order. */
  functions: string[];
  /** What the harness sent beside its members or name: a namespace's description, a hosted tool's settings. */
  recorded?: Obj;
}

/** The tools in chat form and how each non-function tool was mapped. */
export interface AdoptedTools {
  /** Every tool, in the order sent, a namespace's members in its place. */
  tools: ToolSchema[];
  /** One entry per tool that was not a plain function, in the order sent. */
  mapped: ToolMapping[];
}

const API_NAME: Record<WireApi, string> = {
  chat: "chat completions",
  responses: "OpenAI Responses",
  messages: "Anthropic Messages",
  gemini: "Gemini",
};

/** A namespaced tool's flat name, as codex writes it where the namespace split cannot be kept. */
export function flatToolName(namespace: string, name: string): string {
  return `${namespace.replace(/_+$/, "")}__${name.replace(/^_+/, "")}`;
}

const str = (v: unknown) => typeof v === "string" ? v : "";

/** The fields of `t` other than `skip`, or undefined when there are none. */
function rest(t: Obj, skip: string[]): Obj | undefined {
  const r = Object.fromEntries(Object.entries(t).filter(([k]) => !skip.includes(k)));
  return Object.keys(r).length ? r : undefined;
}

/** A provider-defined tool as a function whose description says so, with no parameters, and its mapping. */
function addHosted(out: AdoptedTools, api: WireApi, type: string, name: string, settings: Obj | undefined): void {
  const kind = type === name ? `"${name}"` : `"${name}" (type ${type})`;
  const description = `The ${API_NAME[api]} API's hosted tool ${kind}: the provider defines and runs it, and the ` +
    `harness sent it without a description or parameters.` +
    (settings ? ` Its settings as sent: ${JSON.stringify(settings)}.` : "");
  out.tools.push(fnTool(name, description, { type: "object", properties: {} }));
  out.mapped.push({ type, name, mapping: "hosted", functions: [name], ...(settings ? { recorded: settings } : {}) });
}

function fromResponses(api: WireApi, list: Obj[], out: AdoptedTools): void {
  for (const t of list) {
    const type = str(t.type);
    if (type === "function") out.tools.push(fnTool(t.name, t.description, t.parameters, t.strict));
    else if (type === "namespace") {
      const ns = str(t.name);
      const members = (Array.isArray(t.tools) ? t.tools : []) as Obj[];
      const functions: string[] = [];
      for (const m of members) {
        const name = flatToolName(ns, str(m.name));
        functions.push(name);
        out.tools.push(
          m.type === "custom"
            ? fnTool(name, m.description, m.format ?? {})
            : fnTool(name, m.description, m.parameters, m.strict),
        );
      }
      const recorded = rest(t, ["type", "name", "tools"]);
      out.mapped.push({ type, name: ns, mapping: "namespace", functions, ...(recorded ? { recorded } : {}) });
    } else if (type === "custom") {
      out.tools.push(fnTool(t.name, t.description, t.format ?? {}));
      out.mapped.push({ type, name: str(t.name), mapping: "freeform", functions: [str(t.name)] });
    } else {
      addHosted(out, api, type, str(t.name) || type, rest(t, ["type", "name"]));
    }
  }
}

function fromMessages(list: Obj[], out: AdoptedTools): void {
  for (const t of list) {
    // A client tool carries its schema; a tool the provider defines (a server tool, web_search_20250305) does not.
    if (t.input_schema !== undefined || t.type === undefined || t.type === "custom") {
      out.tools.push(fnTool(t.name, t.description, t.input_schema));
      continue;
    }
    const type = str(t.type);
    addHosted(out, "messages", type, str(t.name) || type, rest(t, ["type", "name"]));
  }
}

function fromGemini(list: Obj[], out: AdoptedTools): void {
  for (const t of list) {
    for (const [key, v] of Object.entries(t)) {
      if (key === "functionDeclarations" || key === "function_declarations") {
        for (const d of (v ?? []) as Obj[]) {
          out.tools.push(fnTool(d.name, d.description, d.parametersJsonSchema ?? d.parameters));
        }
        continue;
      }
      addHosted(out, "gemini", key, key, v && typeof v === "object" && Object.keys(v).length ? v as Obj : undefined);
    }
  }
}

/** The tools of a recorded body of wire `api` as an overlay carries them; throws on two tools of one name. */
export function adoptTools(body: Obj, api: WireApi): AdoptedTools {
  const list = (Array.isArray(body.tools) ? body.tools : []) as Obj[];
  const out: AdoptedTools = { tools: [], mapped: [] };
  if (api === "responses") fromResponses(api, list, out);
  else if (api === "messages") fromMessages(list, out);
  else if (api === "gemini") fromGemini(list, out);
  else out.tools.push(...list as unknown as ToolSchema[]);
  const seen = new Set<string>();
  for (const t of out.tools) {
    const n = t.function?.name;
    if (seen.has(n)) throw new Error(`two tools are named ${n} once namespaces are flattened`);
    seen.add(n);
  }
  return out;
}
