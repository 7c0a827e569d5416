/**
 * A validator of ATIF v1.7 documents with the rules of Harbor's Pydantic models (`src/harbor/models/trajectories/`)
 * and their model validators, so a file pgs writes is one Harbor would load:
 *
 * - every object forbids keys it does not define (`extra="forbid"`, at every level);
 * - required fields are present and not null; optional ones may be null (Pydantic reads null as unset);
 * - types: strings, integers (never booleans or fractions), numbers, booleans, objects, lists of each;
 * - `schema_version` is one of ATIF-v1.0 .. ATIF-v1.7; `steps` has at least one step, and `step_id`s are 1..n in order;
 * - `source` is system, user or agent; `timestamp` is ISO 8601; `llm_call_count` is an integer ≥ 0;
 * - `model_name`, `reasoning_effort`, `reasoning_content`, `tool_calls` and `metrics` only on agent steps, and an
 *   agent step with `llm_call_count` 0 has neither `metrics` nor `reasoning_content`;
 * - every observation result's `source_call_id` names a `tool_call_id` of the same step, and a step's
 *   `tool_call_id`s are unique (Harbor's later validator; a duplicate makes the link ambiguous);
 * - a text content part has `text` and no `source`, an image part a `source` (jpeg, png, gif or webp) and no `text`;
 * - a subagent reference has a `trajectory_id` or a `trajectory_path`; embedded subagent trajectories are valid
 *   trajectories, each with its own unique `trajectory_id`.
 *
 * Stricter than Pydantic's lax mode in one way, on purpose: values are never coerced (`"3"` is not an integer), and
 * token counts are not negative. The checks are data (one spec per model) so each rule reads as Harbor states it.
 */
import { ATIF_SCHEMA_VERSIONS } from "./atif_types.ts";

type Errors = string[];
/** Checks a value at `path`, appending `path: problem` lines. */
type Check = (v: unknown, path: string, out: Errors) => void;
/** A field of a model: its check, and whether it must be present (and not null). */
type Field = { check: Check; required?: boolean };
type Obj = Record<string, unknown>;

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return typeof v === "string"
    ? "a string"
    : typeof v === "number"
    ? "a number"
    : typeof v === "boolean"
    ? "a boolean"
    : typeof v;
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const str: Check = (v, p, out) => {
  if (typeof v !== "string") out.push(`${p}: expected a string, got ${kind(v)}`);
};

const num: Check = (v, p, out) => {
  if (typeof v !== "number" || !Number.isFinite(v)) out.push(`${p}: expected a number, got ${kind(v)}`);
};

const bool: Check = (v, p, out) => {
  if (typeof v !== "boolean") out.push(`${p}: expected a boolean, got ${kind(v)}`);
};

function int(min?: number): Check {
  return (v, p, out) => {
    if (typeof v !== "number" || !Number.isInteger(v)) out.push(`${p}: expected an integer, got ${kind(v)}`);
    else if (min !== undefined && v < min) out.push(`${p}: must be ≥ ${min}, got ${v}`);
  };
}

/** A free-form object (`dict[str, Any]`). */
const dict: Check = (v, p, out) => {
  if (!isObj(v)) out.push(`${p}: expected an object, got ${kind(v)}`);
};

function list(item: Check, minItems = 0): Check {
  return (v, p, out) => {
    if (!Array.isArray(v)) return void out.push(`${p}: expected a list, got ${kind(v)}`);
    if (v.length < minItems) out.push(`${p}: needs at least ${minItems} item${minItems === 1 ? "" : "s"}`);
    v.forEach((x, i) => item(x, `${p}[${i}]`, out));
  };
}

function literal(values: readonly string[]): Check {
  return (v, p, out) => {
    if (typeof v !== "string" || !values.includes(v)) {
      out.push(`${p}: must be one of ${values.join(", ")}, got ${JSON.stringify(v)}`);
    }
  };
}

/** The first check of `checks` the value's JSON type matches (a Pydantic union of distinct types). */
function union(label: string, checks: [(v: unknown) => boolean, Check][]): Check {
  return (v, p, out) => {
    const hit = checks.find(([is]) => is(v));
    if (hit) hit[1](v, p, out);
    else out.push(`${p}: expected ${label}, got ${kind(v)}`);
  };
}

/**
 * A model: an object with exactly `fields` (extra="forbid"); `after` runs once the fields are valid, as a Pydantic
 * `model_validator(mode="after")` does.
 */
function model(name: string, fields: Record<string, Field>, after?: (o: Obj, p: string, out: Errors) => void): Check {
  return (v, p, out) => {
    if (!isObj(v)) return void out.push(`${p || "document"}: expected ${name} (an object), got ${kind(v)}`);
    const before = out.length;
    const at = (k: string) => (p ? `${p}.${k}` : k);
    for (const k of Object.keys(v)) {
      if (!Object.hasOwn(fields, k)) out.push(`${at(k)}: extra key not permitted in ${name} (extra="forbid")`);
    }
    for (const [k, f] of Object.entries(fields)) {
      const x = v[k];
      if (x === undefined || x === null) {
        if (f.required) out.push(`${at(k)}: required in ${name}`);
        continue;
      }
      f.check(x, at(k), out);
    }
    if (after && out.length === before) after(v, p, out);
  };
}

const opt = (check: Check): Field => ({ check });
const req = (check: Check): Field => ({ check, required: true });

// ISO 8601 as Python's datetime.fromisoformat reads it after Harbor's `Z` → `+00:00`: a date, optionally a time
// (hh, hh:mm, hh:mm:ss or with a fraction of up to 6 digits) and an offset.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,]\d{1,6})?)?)?(?:Z|[+-]\d{2}:?\d{2}(?::?\d{2}(?:\.\d{1,6})?)?)?)?$/;

const timestamp: Check = (v, p, out) => {
  if (typeof v !== "string") return str(v, p, out);
  const m = ISO_8601.exec(v);
  const [y, mo, d, h, mi, s] = (m ?? []).slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  const days = m ? new Date(Date.UTC(y, mo, 0)).getUTCDate() : 0; // day 0 of the next month: this month's length
  if (!m || mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59) {
    out.push(`${p}: invalid ISO 8601 timestamp ${JSON.stringify(v)}`);
  }
};

const imageSource = model("ImageSource", {
  media_type: req(literal(["image/jpeg", "image/png", "image/gif", "image/webp"])),
  path: req(str),
});

const contentPart = model("ContentPart", {
  type: req(literal(["text", "image"])),
  text: opt(str),
  source: opt(imageSource),
}, (o, p, out) => {
  const has = (k: string) => o[k] !== undefined && o[k] !== null;
  if (o.type === "text" && !has("text")) out.push(`${p}.text: required when type is "text"`);
  if (o.type === "text" && has("source")) out.push(`${p}.source: not allowed when type is "text"`);
  if (o.type === "image" && !has("source")) out.push(`${p}.source: required when type is "image"`);
  if (o.type === "image" && has("text")) out.push(`${p}.text: not allowed when type is "image"`);
});

/** `str | list[ContentPart]`. */
const content = union("a string or a list of content parts", [
  [(v) => typeof v === "string", str],
  [Array.isArray, list(contentPart)],
]);

const toolCall = model("ToolCall", {
  tool_call_id: req(str),
  function_name: req(str),
  arguments: req(dict),
  extra: opt(dict),
});

const subagentRef = model("SubagentTrajectoryRef", {
  trajectory_id: opt(str),
  session_id: opt(str),
  trajectory_path: opt(str),
  extra: opt(dict),
}, (o, p, out) => {
  if (o.trajectory_id == null && o.trajectory_path == null) {
    out.push(`${p}: needs trajectory_id or trajectory_path (session_id alone does not resolve)`);
  }
});

const observationResult = model("ObservationResult", {
  source_call_id: opt(str),
  content: opt(content),
  subagent_trajectory_ref: opt(list(subagentRef)),
  extra: opt(dict),
});

const observation = model("Observation", { results: req(list(observationResult)) });

const count = int(0);

const metrics = model("Metrics", {
  prompt_tokens: opt(count),
  completion_tokens: opt(count),
  cached_tokens: opt(count),
  cost_usd: opt(num),
  prompt_token_ids: opt(list(int())),
  completion_token_ids: opt(list(int())),
  logprobs: opt(list(num)),
  extra: opt(dict),
});

const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] as const;
const LLM_ONLY = ["metrics", "reasoning_content"] as const;

const step = model("Step", {
  step_id: req(int(1)),
  timestamp: opt(timestamp),
  source: req(literal(["system", "user", "agent"])),
  model_name: opt(str),
  reasoning_effort: opt(
    union("a string or a number", [[(v) => typeof v === "string", str], [(v) => typeof v === "number", num]]),
  ),
  message: req(content),
  reasoning_content: opt(str),
  tool_calls: opt(list(toolCall)),
  observation: opt(observation),
  metrics: opt(metrics),
  is_copied_context: opt(bool),
  llm_call_count: opt(int(0)),
  extra: opt(dict),
}, (o, p, out) => {
  const has = (k: string) => o[k] !== undefined && o[k] !== null;
  if (o.source !== "agent") {
    for (const k of AGENT_ONLY) if (has(k)) out.push(`${p}.${k}: only allowed on agent steps (source is ${o.source})`);
  } else if (o.llm_call_count === 0) {
    for (const k of LLM_ONLY) if (has(k)) out.push(`${p}.${k}: not allowed on an agent step with llm_call_count 0`);
  }
  const ids = ((o.tool_calls ?? []) as Obj[]).map((c) => c.tool_call_id as string);
  ids.forEach((id, i) => {
    if (ids.indexOf(id) !== i) out.push(`${p}.tool_calls[${i}].tool_call_id: duplicate ${JSON.stringify(id)}`);
  });
  const results = ((o.observation as Obj | undefined)?.results ?? []) as Obj[];
  results.forEach((r, i) => {
    const src = r.source_call_id;
    if (src != null && !ids.includes(src as string)) {
      out.push(`${p}.observation.results[${i}].source_call_id: ${JSON.stringify(src)} is no tool_call_id of this step`);
    }
  });
});

const agent = model("Agent", {
  name: req(str),
  version: req(str),
  model_name: opt(str),
  tool_definitions: opt(list(dict)),
  extra: opt(dict),
});

const finalMetrics = model("FinalMetrics", {
  total_prompt_tokens: opt(count),
  total_completion_tokens: opt(count),
  total_cached_tokens: opt(count),
  total_cost_usd: opt(num),
  total_steps: opt(count),
  extra: opt(dict),
});

// Recursive through subagent_trajectories: `trajectory` defers to the model defined right after it.
const trajectory: Check = (v, p, out) => trajectoryModel(v, p, out);
const trajectoryModel: Check = model("Trajectory", {
  schema_version: req(literal(ATIF_SCHEMA_VERSIONS)),
  session_id: opt(str),
  trajectory_id: opt(str),
  agent: req(agent),
  steps: req(list(step, 1)),
  notes: opt(str),
  final_metrics: opt(finalMetrics),
  continued_trajectory_ref: opt(str),
  extra: opt(dict),
  subagent_trajectories: opt(list(trajectory)),
}, (o, p, out) => {
  const at = (k: string) => (p ? `${p}.${k}` : k);
  (o.steps as Obj[]).forEach((s, i) => {
    if (s.step_id !== i + 1) {
      out.push(`${at(`steps[${i}]`)}.step_id: expected ${i + 1} (1..n in order), got ${s.step_id}`);
    }
  });
  const seen = new Set<string>();
  ((o.subagent_trajectories ?? []) as Obj[]).forEach((sub, i) => {
    const id = sub.trajectory_id as string | undefined;
    const q = `${at(`subagent_trajectories[${i}]`)}.trajectory_id`;
    if (id == null) out.push(`${q}: required on an embedded subagent trajectory`);
    else if (seen.has(id)) out.push(`${q}: duplicate ${JSON.stringify(id)} among subagent_trajectories`);
    else seen.add(id);
  });
});

/**
 * Checks `doc` (a parsed `trajectory.json`) against ATIF v1.7 as Harbor's models define it; returns one
 * `path: problem` line per violation, none when the document is valid.
 *
 * @example
 * ```ts
 * import { validateAtif } from "./atif_validate.ts";
 * const errors = validateAtif({ schema_version: "ATIF-v1.7", agent: { name: "a", version: "1" }, steps: [] });
 * // ["steps: needs at least 1 item"]
 * ```
 */
export function validateAtif(doc: unknown): string[] {
  const out: string[] = [];
  trajectory(doc, "", out);
  return out;
}
