/**
 * Overlays: what a user's own install of a harness sent, adopted from a recording (`pgs harness adopt`), laid over a
 * profile (`--overlay FILE`). The overlay holds the first request's messages in chat form (every system, developer
 * and user part, in order, the instruction's place marked `{instruction}`), every tool exactly as sent, and the
 * harness's generation settings. Dynamic parts are slots the episode fills per task: `{workdir}`, `{home}`, the date
 * in the formats the harness wrote it (`{date_iso}`, `{date_long}`, `{date_month_day}`, `{date_mdy}`,
 * `{date_js}`), `{harness_install}` (a value the overlay itself states) and the profile's own per-task values (e.g.
 * gemini's `{folder_structure}`). Tools the profile runs keep its bindings; the others are sent as recorded and
 * answered by the profile's rule for a call the harness cannot make (`unavailableTool`, else its unknown-tool answer).
 *
 * Overlays carry the harness's own text: they live with the user, never in this repository.
 */
import { createHash } from "node:crypto";
import { approx } from "./provenance.ts";
import type { HarnessProfile, OverlayRef, PreludeMessage, ToolSchema, ToolSpec } from "./types.ts";

/** The overlay file format tag. */
export const OVERLAY_FORMAT = "pgs-overlay/1";

/** An overlay file. */
export interface Overlay {
  /** Always `OVERLAY_FORMAT`. */
  format: typeof OVERLAY_FORMAT;
  /** The profile it was adopted for, `name@version`; it applies to that name only. */
  profile: string;
  /** The model name the harness was recorded with (becomes the episode's harness model). */
  harness_model?: string;
  /** The wire API of the recording (chat, responses, messages, gemini). */
  wire: string;
  /** The first request's messages in chat form, with slots; one of them holds `{instruction}`. */
  messages: PreludeMessage[];
  /** The index of the message holding `{instruction}`. */
  instruction_at: number;
  /** Every tool the harness sent, in order, in chat form, with slots in its strings. */
  tools: ToolSchema[];
  /** What the harness sent beside messages and tools (its wire's names). */
  generation?: Record<string, unknown>;
  /** Each slot and the recorded text it stands for (for a reader; slots are filled per task). */
  slots: Record<string, string>;
  /** Values of slots pgs cannot know per task, e.g. `harness_install` (edit them to your deployment). */
  slot_values?: Record<string, string>;
  /** The tools the profile cannot run, and how a call to each is answered. */
  unavailable: { name: string; answer: string }[];
}

export type { OverlayRef } from "./types.ts";

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Parses and checks an overlay file's text; errors name the file and the field. */
export function parseOverlay(text: string, file: string): Overlay {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`);
  }
  const bad = (field: string, why: string) => new Error(`${file}: ${field} ${why}`);
  if (!isObj(o)) throw new Error(`${file}: expected a JSON object (an overlay written by pgs harness adopt)`);
  if (o.format !== OVERLAY_FORMAT) throw bad("format", `must be "${OVERLAY_FORMAT}", got ${JSON.stringify(o.format)}`);
  if (typeof o.profile !== "string" || !o.profile.includes("@")) throw bad("profile", "must be name@version");
  if (!Array.isArray(o.messages) || !o.messages.length) throw bad("messages", "must be a non-empty list");
  o.messages.forEach((m, i) => {
    const okContent = typeof m?.content === "string" ||
      (Array.isArray(m?.content) && m.content.every((p: unknown) => typeof p === "string"));
    if (!isObj(m) || (m.role !== "system" && m.role !== "user") || !okContent) {
      throw bad(`messages[${i}]`, "must be {role: system|user, content: string or list of strings}");
    }
  });
  const at = o.instruction_at;
  if (typeof at !== "number" || !Number.isInteger(at) || at < 0 || at >= o.messages.length) {
    throw bad("instruction_at", "must index a message");
  }
  const holder = o.messages[at] as PreludeMessage;
  if (holder.role !== "user" || !JSON.stringify(holder.content).includes("{instruction}")) {
    throw bad(`messages[${at}]`, "must be a user message holding {instruction}");
  }
  if (!Array.isArray(o.tools)) throw bad("tools", "must be a list");
  o.tools.forEach((t, i) => {
    if (!isObj(t) || !isObj(t.function) || typeof t.function.name !== "string") {
      throw bad(`tools[${i}]`, "must be {type: function, function: {name, description, parameters}}");
    }
  });
  if (o.generation !== undefined && !isObj(o.generation)) throw bad("generation", "must be an object");
  if (!isObj(o.slots)) throw bad("slots", "must be an object");
  if (o.slot_values !== undefined && !isObj(o.slot_values)) throw bad("slot_values", "must be an object");
  if (!Array.isArray(o.unavailable)) throw bad("unavailable", "must be a list");
  return o as unknown as Overlay;
}

/** An overlay read from its file. */
export interface LoadedOverlay {
  /** The overlay. */
  overlay: Overlay;
  /** Its file and hash. */
  ref: OverlayRef;
}

/** Reads an overlay file: the overlay and its reference (file and hash). */
export async function readOverlay(file: string): Promise<LoadedOverlay> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (e) {
    throw new Error(`${file}: cannot read (${(e as Error).message})`);
  }
  const overlay = parseOverlay(new TextDecoder().decode(bytes), file);
  return { overlay, ref: { file, sha256: createHash("sha256").update(bytes).digest("hex").slice(0, 12) } };
}

/** The date slots, filled from `d` (the harness's clock, local time, as the harness reads it). */
export function dateSlots(d: Date): Record<string, string> {
  const long = (o: Intl.DateTimeFormatOptions) => d.toLocaleDateString("en-US", o);
  const pad = (n: number) => String(n).padStart(2, "0");
  return {
    date_long: long({ weekday: "long", year: "numeric", month: "long", day: "numeric" }),
    date_month_day: long({ year: "numeric", month: "long", day: "numeric" }),
    date_iso: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    date_mdy: `${d.getMonth() + 1}/${d.getDate()}/${d.getFullYear()}`,
    date_js: d.toDateString(),
  };
}

/** Every `{slot}` a text uses. */
function slotsIn(text: string): string[] {
  return [...text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
}

/** `v` with every string in it (deeply) passed through `f`. */
function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
}

/** Plain `{key}` replacement of known keys (as the episode's templates are filled). */
function fill(s: string, values: Record<string, string>): string {
  return s.replace(/\{([a-z_]+)\}/g, (m, k: string) => k in values ? values[k] : m);
}

/** How a call to a tool the profile cannot run is answered under `p`. */
function unavailableAnswer(p: HarnessProfile, name: string, names: string[], args: unknown) {
  return p.unavailableTool?.(name, args) ?? p.unknownTool?.(name, names, args) ??
    approx(`Tool "${name}" is not available in this environment.`);
}

/** The rule `unavailable` states for a tool, in words. */
export function unavailableRule(p: HarnessProfile): string {
  return p.unavailableTool
    ? `the profile's answer for a tool its harness cannot run offline (${p.name}'s unavailableTool)`
    : p.unknownTool
    ? `the harness's answer for a tool it does not have (${p.name}'s unknownTool; approx.)`
    : `"Tool \\"NAME\\" is not available in this environment." (approx.)`;
}

/**
 * `p` under the overlay among `overlays` adopted for its name, if any; `harnessModel`, when given, must be the name
 * that overlay was recorded with.
 */
export function withOverlay(p: HarnessProfile, overlays: LoadedOverlay[], harnessModel?: string): HarnessProfile {
  const mine = overlays.filter((o) => o.overlay.profile.slice(0, o.overlay.profile.lastIndexOf("@")) === p.name);
  if (mine.length > 1) throw new Error(`two overlays for ${p.name}: ${mine.map((o) => o.ref.file).join(", ")}`);
  if (!mine.length) return p;
  const { overlay, ref } = mine[0];
  if (harnessModel !== undefined && overlay.harness_model !== undefined && harnessModel !== overlay.harness_model) {
    throw new Error(
      `${ref.file} was recorded with harness model ${overlay.harness_model}, not ${harnessModel}: record and adopt ` +
        `one for that name`,
    );
  }
  return applyOverlay(p, overlay, ref);
}

/**
 * `p` speaking as the overlay's recording: its messages, tools and generation settings; `p`'s bindings run the tools
 * it has, the others are answered by rule. An overlay adopted for another profile name is refused.
 */
export function applyOverlay(p: HarnessProfile, o: Overlay, ref?: OverlayRef): HarnessProfile {
  const name = o.profile.slice(0, o.profile.lastIndexOf("@"));
  if (name !== p.name) {
    throw new Error(`${ref?.file ?? "overlay"}: adopted for ${o.profile}, not for ${p.name}@${p.version}`);
  }
  const templates: ToolSchema[] = o.tools;
  const names = templates.map((t) => t.function.name);
  const tools: ToolSpec[] = templates.map((schema) => {
    const own = p.tools.find((t) => t.schema.function.name === schema.function.name);
    if (own) return { ...own, schema };
    return { schema, bind: (_s, args) => Promise.resolve(unavailableAnswer(p, schema.function.name, names, args)) };
  });
  const used = new Set([
    ...slotsIn(JSON.stringify(o.messages)),
    ...slotsIn(JSON.stringify(templates)),
  ]);
  const user = o.messages[o.instruction_at];
  const out: HarnessProfile = {
    ...p,
    system: "",
    prelude: o.messages.slice(0, o.instruction_at),
    user: typeof user.content === "string" ? user.content : "{instruction}",
    userContent: typeof user.content === "string" ? "string" : "parts",
    userParts: typeof user.content === "string" ? undefined : user.content,
    postlude: o.messages.slice(o.instruction_at + 1),
    tools,
    omittedTools: [],
    paraphrasedParts: [],
    generation: o.generation ?? p.generation,
    harnessModel: o.harness_model ?? p.harnessModel,
    models: undefined, // the recording fixed the dialect
    overlay: ref,
    async start(s, values) {
      const own = p.start ? await p.start(s, values) : {};
      const all: Record<string, string> = { ...dateSlots(new Date()), ...o.slot_values, ...values, ...own };
      if (used.has("home") && all.home === undefined) {
        const r = await s.exec(`printf '%s' "$HOME"`, { shell: "sh", timeout: 30 });
        all.home = r.stdout || "/root";
      }
      // Tool strings hold slots too (a working directory in a description): filled for this episode's own profile
      // object, which `withOverlay` made fresh.
      tools.forEach((t, i) => {
        t.schema = mapStrings(templates[i], (x) => fill(x, all)) as ToolSchema;
      });
      return all;
    },
  };
  return out;
}
