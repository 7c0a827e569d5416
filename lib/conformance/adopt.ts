/**
 * `pgs harness adopt`: a recording made with `pgs harness capture` (any of the four wire APIs) becomes an overlay
 * (`lib/harness/overlay.ts`) holding what that harness sent in its first request: every system, developer and user
 * part in order with the instruction's place marked, every tool it sent, and its generation settings. What changes
 * per task becomes a slot: the working directory, HOME, the date in each format the harness wrote it, the harness's
 * install folder, and any per-task value the profile itself computes (`values`, e.g. a directory tree), found by
 * its text. Function tools are carried exactly; a tool of another kind (a Responses namespace, a hosted tool such as
 * `web_search`) is mapped to functions a chat-completions model can be shown (`adopt_tools.ts`), and the overlay's
 * `tool_mapping` says how, one entry per such tool.
 */
import { dirname } from "node:path";
import { dateSlots, type Overlay, OVERLAY_FORMAT, unavailableRule } from "../harness/overlay.ts";
import type { HarnessProfile, PreludeMessage } from "../harness/types.ts";
import { adoptTools, type ToolMapping } from "./adopt_tools.ts";
import type { Recording } from "./load_recording.ts";
import { harnessSettings } from "./settings.ts";
import { wireApiOf } from "./wire_to_chat.ts";

/** An adopted overlay: an `Overlay`, with how each recorded tool that was no plain function was mapped. */
export interface AdoptedOverlay extends Overlay {
  /** One entry per namespace, hosted or freeform tool the harness sent (absent when it sent functions only). */
  tool_mapping?: ToolMapping[];
}

/** What adopt needs besides the recording. */
export interface AdoptOptions {
  /** The instruction the harness was given (default: the longest argv element found in a user message). */
  instruction?: string;
  /** HOME of the capture (default: command.json's env). */
  home?: string;
  /** When the capture ran (default: now), for the date slots. */
  date?: Date;
  /** The harness binary as run (default: command.json's argv[0]), whose package folder becomes `{harness_install}`. */
  bin?: string;
  /** The profile's own template values for the recorded task, with the recording's working directory in them. */
  values?: Record<string, string>;
  /** The value `{harness_install}` takes in episodes (default: where npm installs the package globally). */
  installValue?: string;
}

/** Template values the episode fills itself; a recorded `{key}` of one of these names would be filled by mistake. */
const FILLED = ["instruction", "workdir", "date", "model", "tools", "system_information", "git_repo", "git_root"];

const textOf = (m: PreludeMessage) => typeof m.content === "string" ? m.content : m.content.join("");

/** The package folder of an npm-installed binary (`.../node_modules/<pkg>`), if the path shows one. */
export function installFolder(bin: string): string | undefined {
  const real = (() => {
    try {
      return Deno.realPathSync(bin);
    } catch {
      return bin;
    }
  })();
  const m = real.match(/^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//);
  return m?.[1] ?? (real.includes("/") ? dirname(real) : undefined);
}

/** Adopts the recording's first request for `profile`. Throws naming what is missing. */
export function adoptRecording(rec: Recording, profile: HarnessProfile, opts: AdoptOptions = {}): AdoptedOverlay {
  const first = rec.requests[0];
  if (!first) throw new Error(`${rec.dir}: the recording holds no request with tools`);
  const wire = first.wire ? wireApiOf(first.wire) ?? "chat" : "chat";
  const messages: PreludeMessage[] = first.messages.map((m, i) => {
    if (m.role !== "system" && m.role !== "user") {
      throw new Error(`${rec.dir}: the first request's message ${i} is ${m.role}: not a first request`);
    }
    return {
      role: m.role,
      content: typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? ""),
    };
  });

  // The instruction: as the profile renders it (opencode quotes it), as given, else the longest argument of the
  // harness's argv that a user message holds.
  const rendered = opts.values?.instruction;
  const candidates = opts.instruction !== undefined
    ? [...(rendered && rendered !== opts.instruction ? [rendered] : []), opts.instruction, opts.instruction.trim()]
    : (rec.argv ?? []).filter((a) => a.length >= 16).sort((a, b) => b.length - a.length).flatMap((a) => [a, a.trim()]);
  let at = -1, instruction = "";
  for (const c of candidates) {
    at = messages.findLastIndex((m) => m.role === "user" && textOf(m).includes(c));
    if (at >= 0) {
      instruction = c;
      break;
    }
  }
  if (at < 0) {
    throw new Error(
      `${rec.dir}: the instruction is in no user message of the first request (give --task, whose instruction.md ` +
        `the harness was given)`,
    );
  }

  // Slots, longest recorded text first, so that a path is replaced before a folder inside it.
  const slots: Record<string, string> = {};
  const add = (slot: string, text: string | undefined) => {
    if (text && text.length >= 4 && !Object.values(slots).includes(text)) slots[slot] = text;
  };
  // The generic slots first: a profile value equal to one of them (gemini's workspace) is not a slot of its own.
  add("workdir", rec.cwd);
  const env = rec.env ?? {};
  add("home", opts.home ?? env.HOME);
  for (const [k, v] of Object.entries(opts.values ?? {})) {
    if (!FILLED.includes(k) && v.length >= 8) add(k, v);
  }
  const install = installFolder(opts.bin ?? rec.argv?.[0] ?? "");
  add("harness_install", install);
  for (const [k, v] of Object.entries(dateSlots(opts.date ?? new Date()))) add(k, v);
  const order = Object.entries(slots).sort((a, b) => b[1].length - a[1].length);

  const known = new Set([...FILLED, ...Object.keys(slots)]);
  const slotted = (s: string, where: string): string => {
    for (const m of s.matchAll(/\{([a-z_]+)\}/g)) {
      if (known.has(m[1])) throw new Error(`${rec.dir}: ${where} holds the text {${m[1]}}, which pgs fills itself`);
    }
    for (const [slot, text] of order) s = s.split(text).join(`{${slot}}`);
    return s;
  };
  const SENTINEL = "\u0000pgs-instruction\u0000";
  const out = messages.map((m, i) => {
    const one = (t: string, j: number) => {
      const where = `message ${i}${Array.isArray(m.content) ? ` part ${j}` : ""}`;
      const marked = i === at && t.includes(instruction) ? t.replace(instruction, SENTINEL) : t;
      return slotted(marked, where).replace(SENTINEL, "{instruction}");
    };
    return { role: m.role, content: typeof m.content === "string" ? one(m.content, 0) : m.content.map(one) };
  });
  const adopted = first.wire ? adoptTools(first.wire, wire) : { tools: first.tools ?? [], mapped: [] };
  const slottedAll = <T>(v: T, where: string): T =>
    JSON.parse(JSON.stringify(v), (_k, x) => typeof x === "string" ? slotted(x, where) : x);
  const tools = adopted.tools.map((t, i) => slottedAll(t, `tool ${i}`));
  const mapping = adopted.mapped.map((m, i) => slottedAll(m, `tool_mapping ${i}`));
  const used = new Set(JSON.stringify([out, tools, mapping]).match(/\{[a-z_]+\}/g) ?? []);
  const generation = harnessSettings(first);
  const own = new Set(profile.tools.map((t) => t.schema.function.name));
  return {
    format: OVERLAY_FORMAT,
    profile: `${profile.name}@${profile.version}`,
    ...(rec.model ? { harness_model: rec.model } : {}),
    wire,
    messages: out,
    instruction_at: at,
    tools,
    ...(mapping.length ? { tool_mapping: mapping } : {}),
    ...(Object.keys(generation).length ? { generation } : {}),
    slots: Object.fromEntries(Object.entries(slots).filter(([k]) => used.has(`{${k}}`))),
    ...(used.has("{harness_install}") && install
      ? { slot_values: { harness_install: opts.installValue ?? globalInstall(install) } }
      : {}),
    unavailable: tools.filter((t) => !own.has(t.function.name)).map((t) => ({
      name: t.function.name,
      answer: unavailableRule(profile),
    })),
  };
}

/** Where `npm install -g` puts a package (`/usr/local/lib/node_modules/<pkg>`), for `{harness_install}`. */
function globalInstall(folder: string): string {
  const pkg = folder.match(/node_modules\/((?:@[^/]+\/)?[^/]+)$/)?.[1];
  return pkg ? `/usr/local/lib/node_modules/${pkg}` : folder;
}
