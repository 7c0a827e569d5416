/**
 * Reduces the first request of recordings made with different model names (`pgs harness capture --local --model
 * NAME`) to a golden of what the project may carry: per name, the request without its conversation, reduced as every
 * fixture is (`lib/conformance/reduce.ts`: long texts become a note of their length), the system text's first line,
 * and the sha256 of each tool description, so that a long one can be told apart without being carried.
 *
 *   deno run -A scripts/model_golden.ts OUT.json NAME=RECORDING_DIR...
 */
import { createHash } from "node:crypto";
import { reduceRequest } from "../lib/conformance/reduce.ts";
import { CONVERSATION_KEYS, SESSION_KEYS } from "../lib/conformance/settings.ts";
import { toChat } from "../lib/conformance/wire_to_chat.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** The golden entry of one recording's first request with tools. */
function modelEntry(body: Json): Json {
  const chat = toChat(body)!;
  // codex's code mode: the tools travel in an input item; their names are kept.
  const extra = Array.isArray(body.input)
    ? body.input.filter((i: Json) => i?.type === "additional_tools").flatMap((i: Json) =>
      (i.tools ?? []).map((t: Json) => t.name ?? t.type)
    )
    : [];
  const sys = chat.messages.find((m) => m.role === "system" || (m.role as string) === "developer");
  const text = typeof sys?.content === "string" ? sys.content : sys?.content?.map((p) => p.text).join("") ?? "";
  const request = reduceRequest(body);
  // The conversation, and the ids of the session and the machine, are not carried.
  for (const k of [...CONVERSATION_KEYS, ...SESSION_KEYS]) delete request[k];
  return {
    wire: chat.api,
    system_first_line: text.split("\n")[0],
    description_sha256: Object.fromEntries(
      (chat.tools ?? []).map((t) => [t.function.name, sha(t.function.description ?? "")]),
    ),
    request,
    ...(extra.length ? { additional_tools: extra } : {}),
  };
}

if (import.meta.main) {
  const [out, ...pairs] = Deno.args;
  if (!out || !pairs.length) {
    console.error("usage: deno run -A scripts/model_golden.ts OUT.json NAME=RECORDING_DIR...");
    Deno.exit(2);
  }
  const models: Record<string, Json> = {};
  for (const pair of pairs) {
    const [name, dir] = pair.split("=");
    const lines = (await Deno.readTextFile(`${dir}/requests.jsonl`)).split("\n").filter((l) => l.trim());
    const bodies = lines.map((l) => JSON.parse(l));
    // A request with tools, else (codex's code mode sends its tools inside the input) the first model request.
    const first = bodies.find((b) => toChat(b)?.tools?.length) ?? bodies.find((b) => toChat(b));
    if (!first) throw new Error(`${dir}: no request with tools`);
    models[name] = modelEntry(first);
  }
  await Deno.writeTextFile(out, JSON.stringify({ models }, null, 2) + "\n");
}
