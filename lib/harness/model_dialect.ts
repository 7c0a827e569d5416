/**
 * Model-conditioned dialects: real harnesses change what they send with the model name they are configured with (its
 * `-m`, its config's `model`). A profile states, as data, the name it was recorded with and the rules that change it
 * for other names (`ModelDialects`); `withHarnessModel` applies them. A rule is a test on the name (`ModelMatch`:
 * regexes, exact names, and, or, not) and a change (`DialectChange`: the system text, tool descriptions and schemas,
 * tools added or removed, generation settings), each citing where it was read.
 */
import type { DialectChange, HarnessProfile, ModelDialects, ModelMatch, ModelRule, ToolSpec } from "./types.ts";

export type { DialectChange, ModelDialects, ModelMatch, ModelRule } from "./types.ts";

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
