/**
 * Model-conditioned dialects: real harnesses change what they send with the model name they are configured with (its
 * `-m`, its config's `model`). A profile states, as data, the name it was recorded with and the rules that change it
 * for other names (`ModelDialects`); `withHarnessModel` applies them. A rule is a test on the name (`ModelMatch`:
 * regexes, exact names, and, or, not) and a change (`DialectChange`: the system text, tool descriptions and schemas,
 * tools added or removed, generation settings), each citing where it was read.
 */
import type { HarnessProfile, ToolSpec } from "./types.ts";

/** A test on a model name, as data. */
export type ModelMatch =
  | { regex: string; flags?: string }
  | { names: string[] }
  | { not: ModelMatch }
  | { all: ModelMatch[] }
  | { any: ModelMatch[] };

/** What a rule changes in the dialect. Absent fields change nothing. */
export interface DialectChange {
  /** The system text instead of the profile's. */
  system?: string;
  /** Tool name → its description instead of the profile's. */
  descriptions?: Record<string, string>;
  /** Tool name → its parameter schema instead of the profile's. */
  parameters?: Record<string, Record<string, unknown>>;
  /** Tools the harness sends only for such names, each after the named tool (default: last). */
  addTools?: { tool: ToolSpec; after?: string }[];
  /** Tools the harness leaves out for such names. */
  removeTools?: string[];
  /** Settings the harness leaves out for such names (top-level `generation` keys), removed before `generation`. */
  removeGeneration?: string[];
  /** Merged (deeply, objects only) into the profile's `generation`. */
  generation?: Record<string, unknown>;
}

/** One rule: which names it applies to and what it changes. */
export interface ModelRule {
  /** A short name, e.g. `gemini-3-tools`. */
  name: string;
  /** One line: what the harness does for these names. */
  doc: string;
  /** The names it applies to. */
  when: ModelMatch;
  /** Test the name as configured, before the harness's own aliases (default: after them). */
  raw?: boolean;
  /** The change. */
  change: DialectChange;
  /** Where the rule was read or recorded (the provenance forms of `lib/harness/provenance.ts`). */
  sources: string[];
}

/** A profile's model dependence. */
export interface ModelDialects {
  /** The model name the profile's own dialect was recorded with (the default harness model). */
  recordedWith: string;
  /** One line: whether and how the harness's requests depend on the model name. */
  note: string;
  /** Names the harness rewrites before it looks (e.g. `auto` → a full model name); rules see the result. */
  aliases?: Record<string, string>;
  /** The rules, applied in order to the profile's own dialect; every rule whose test passes applies. */
  rules: ModelRule[];
  /**
   * What the harness changes for some names that the profile does not follow (its prompt family, a tool surface it
   * cannot run), each said in words: such a name gets the rules that apply and a `dialectGaps` entry, which the CLI
   * prints as a warning (an overlay recorded with that name is exact; default none).
   */
  unmodeled?: { when: ModelMatch; what: string; raw?: boolean; sources: string[] }[];
}

/** True when `name` passes `m`. */
export function modelMatches(m: ModelMatch, name: string): boolean {
  if ("regex" in m) return new RegExp(m.regex, m.flags).test(name);
  if ("names" in m) return m.names.includes(name);
  if ("not" in m) return !modelMatches(m.not, name);
  if ("all" in m) return m.all.every((x) => modelMatches(x, name));
  return m.any.some((x) => modelMatches(x, name));
}

/** The rules of `d` that apply to `name` (raw rules see it as given, the others after the aliases). */
export function rulesFor(d: ModelDialects, name: string): ModelRule[] {
  const resolved = d.aliases?.[name] ?? name;
  return d.rules.filter((r) => modelMatches(r.when, r.raw ? name : resolved));
}

/** `a` with `b` merged in: objects merge key by key, anything else in `b` replaces. */
function mergeDeep(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const old = out[k];
    const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);
    out[k] = isObj(old) && isObj(v) ? mergeDeep(old, v) : v;
  }
  return out;
}

function withTool(t: ToolSpec, description?: string, parameters?: Record<string, unknown>): ToolSpec {
  if (description === undefined && parameters === undefined) return t;
  const f = t.schema.function;
  return {
    ...t,
    schema: {
      ...t.schema,
      function: { ...f, description: description ?? f.description, parameters: parameters ?? f.parameters },
    },
  };
}

/** `p` with one change applied. */
export function applyChange(p: HarnessProfile, c: DialectChange): HarnessProfile {
  let tools = p.tools.filter((t) => !c.removeTools?.includes(t.schema.function.name));
  let generation = p.generation;
  if (c.removeGeneration && generation) {
    generation = Object.fromEntries(Object.entries(generation).filter(([k]) => !c.removeGeneration!.includes(k)));
  }
  for (const { tool, after } of c.addTools ?? []) {
    const at = after === undefined ? -1 : tools.findIndex((t) => t.schema.function.name === after);
    tools = at < 0 ? [...tools, tool] : [...tools.slice(0, at + 1), tool, ...tools.slice(at + 1)];
  }
  tools = tools.map((t) => {
    const n = t.schema.function.name;
    return withTool(t, c.descriptions?.[n], c.parameters?.[n]);
  });
  return {
    ...p,
    system: c.system ?? p.system,
    tools,
    generation: c.generation ? mergeDeep(generation ?? {}, c.generation) : generation,
  };
}

/**
 * The profile as its harness speaks when configured with model `name` (undefined: the name it was recorded with).
 * A profile without model rules is returned with the name recorded and nothing else changed: its harness sends the
 * same requests whatever the name (its `emulates` says so).
 */
export function withHarnessModel(p: HarnessProfile, name?: string): HarnessProfile {
  const model = name ?? p.models?.recordedWith ?? p.harnessModel;
  if (!p.models || model === undefined) return model === undefined ? p : { ...p, harnessModel: model };
  let out: HarnessProfile = p;
  for (const r of rulesFor(p.models, model)) out = applyChange(out, r.change);
  const resolved = p.models.aliases?.[model] ?? model;
  const gaps = (p.models.unmodeled ?? []).filter((u) => modelMatches(u.when, u.raw ? model : resolved)).map((u) =>
    u.what
  );
  return { ...out, harnessModel: model, ...(gaps.length ? { dialectGaps: gaps } : {}) };
}

/** The warning for a dialect its profile follows only in part (`dialectGaps`), or undefined. */
export function dialectGapWarning(p: HarnessProfile): string | undefined {
  if (!p.dialectGaps?.length) return undefined;
  return `${p.name}@${p.version} with harness model ${p.harnessModel}: the real harness also changes ` +
    `${p.dialectGaps.join("; ")}, which the profile does not follow (record it with that name and use --overlay)`;
}
