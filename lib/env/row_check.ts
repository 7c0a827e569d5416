/** One check of a row's fields (`EnvRow`), for the env server's requests and a rows JSONL alike. */
import { resolveProfileName } from "../harness/registry.ts";
import type { EnvRow } from "./harbor_env.ts";

/** The keys a row may hold; others are dropped. */
const ROW_KEYS = [
  "task_dir",
  "messages",
  "harness_profile",
  "harness_model",
  "overlay",
  "chat_template_kwargs",
  "max_turns",
] as const;

const nonEmpty = (v: unknown) => typeof v === "string" && v !== "";

/** The first problem of a row, as `field must be ...` (or `harness_profile: <why>`); undefined when it is fine. */
export function rowProblem(r: Record<string, unknown>): string | undefined {
  if (!nonEmpty(r.task_dir)) return "task_dir must be a non-empty string (a task directory)";
  if (r.messages !== undefined && !Array.isArray(r.messages)) return "messages must be a list";
  if (r.harness_profile !== undefined) {
    if (typeof r.harness_profile !== "string") return "harness_profile must be a string";
    try {
      resolveProfileName(r.harness_profile);
    } catch (e) {
      return `harness_profile: ${(e as Error).message}`;
    }
  }
  if (r.harness_model !== undefined && !nonEmpty(r.harness_model)) return "harness_model must be a non-empty string";
  if (r.overlay !== undefined && !nonEmpty(r.overlay)) return "overlay must be a file path";
  if (r.max_turns !== undefined && !(Number.isInteger(r.max_turns) && (r.max_turns as number) > 0)) {
    return "max_turns must be a positive integer";
  }
  return undefined;
}

/** The row's known fields (a checked row: see `rowProblem`). */
export function pickRow(r: Record<string, unknown>): EnvRow {
  const row: Record<string, unknown> = {};
  for (const k of ROW_KEYS) if (r[k] !== undefined) row[k] = r[k];
  return row as unknown as EnvRow;
}
