/** Argument validation: Ajv's first error (`params` as data name) after qwen's coercions, and directory checks. */
import { ajvHasType } from "../../lib/harness/lang/ajv_types.ts";
import type { Session } from "../../lib/harness/types.ts";
import { statPath } from "./fs.ts";
import type { Args } from "./outcome.ts";
import { inWorkspace, resolvePath } from "./paths.ts";

interface PropSchema {
  type: string | string[];
  minimum?: number;
  maximum?: number;
}
/** The part of a parameter schema the validator reads. */
export interface ParamSchema {
  properties: Record<string, PropSchema>;
  required: string[];
}

const typesOf = (p: PropSchema): string[] => Array.isArray(p.type) ? p.type : [p.type];

function ajvError(schema: ParamSchema, args: Args): string | null {
  for (const r of schema.required) if (args[r] === undefined) return `params must have required property '${r}'`;
  for (const [k, p] of Object.entries(schema.properties)) {
    const v = args[k];
    if (v === undefined) continue;
    const types = typesOf(p);
    if (!types.some((t) => ajvHasType(t, v))) return `params/${k} must be ${types.join(",")}`;
    if (typeof v === "number") {
      if (p.maximum !== undefined && v > p.maximum) return `params/${k} must be <= ${p.maximum}`;
      if (p.minimum !== undefined && v < p.minimum) return `params/${k} must be >= ${p.minimum}`;
    }
  }
  return null;
}

/** fixBooleanValues, fixStringValues, fixNumericValues (applied only after a failed first validation). */
function coerce(schema: ParamSchema, args: Args): void {
  for (const k of Object.keys(args)) {
    const p = schema.properties[k];
    if (!p) continue;
    const acc = new Set(typesOf(p));
    const v = args[k];
    if (typeof v === "string" && acc.has("boolean") && !acc.has("string")) {
      const l = v.toLowerCase();
      if (l === "true" || l === "false") args[k] = l === "true";
    }
    const w = args[k];
    if ((typeof w === "number" || typeof w === "boolean") && acc.has("string")) {
      const t = typeof w === "boolean" ? "boolean" : Number.isInteger(w) ? "integer" : "number";
      if (!acc.has(t) && !(t === "integer" && acc.has("number"))) args[k] = String(w);
    }
    const x = args[k];
    if (typeof x === "string" && !acc.has("string") && (acc.has("integer") || acc.has("number"))) {
      const t = x.trim();
      if (/^-?\d+(\.\d+)?$/.test(t)) {
        const num = parseFloat(t);
        if (!(acc.has("integer") && !acc.has("number") && num % 1 !== 0)) {
          const parsed = acc.has("number") ? num : parseInt(t, 10);
          if (Number.isFinite(parsed)) args[k] = parsed;
        }
      }
    }
  }
}

/** Ajv's first error; on failure, qwen's coercions and a second validation. */
export function validateSchema(schema: ParamSchema, args: Args): string | null {
  if (ajvError(schema, args) === null) return null;
  coerce(schema, args);
  return ajvError(schema, args);
}

/** resolveAndValidatePath with allowExternalPaths: only workspace paths are checked. */
export async function validateDir(s: Session, p: string): Promise<string | null> {
  if (!p) return null;
  const resolved = resolvePath(s, s.workdir, p);
  if (!inWorkspace(s, resolved)) return null;
  const st = await statPath(s, resolved);
  if (!st) return `Path does not exist: ${resolved}`;
  if (st.kind !== "dir") return `Path is not a directory: ${resolved}`;
  return null;
}
