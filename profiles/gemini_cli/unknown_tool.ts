/**
 * Calls to tools gemini does not have: the scheduler's `Tool "X" not found.` with getToolSuggestion's three nearest
 * registered names by Levenshtein distance (a stable sort, so ties keep the registry's order; recorded:
 * `no_such_tool` → update_topic, list_directory, read_file). The registry is the 15 tools gemini sends, the ones this
 * profile leaves out included.
 */
import { levenshtein } from "../../lib/harness/lang/levenshtein.ts";
import { approx } from "../../lib/harness/provenance.ts";

/** The tool names in the order gemini 0.61.0 registers and sends them (`-m stub-model`). */
export const GEMINI_REGISTRY = [
  "update_topic",
  "list_directory",
  "read_file",
  "grep_search",
  "glob",
  "replace",
  "write_file",
  "web_fetch",
  "run_shell_command",
  "list_background_processes",
  "read_background_output",
  "google_web_search",
  "enter_plan_mode",
  "invoke_agent",
  "activate_skill",
];

/** getToolSuggestion: ` Did you mean one of: "a", "b", "c"?` (or ` Did you mean "a"?` for one name). */
export function toolSuggestion(name: string, names: string[], topN = 3): string {
  const top = names.map((n) => ({ n, d: levenshtein(name, n) })).sort((x, y) => x.d - y.d).slice(0, topN);
  if (top.length === 0) return "";
  const list = top.map((m) => `"${m.n}"`).join(", ");
  return top.length > 1 ? ` Did you mean one of: ${list}?` : ` Did you mean ${list}?`;
}

/** The registry an episode's harness holds: with Gemini 2 names, write_todos after google_web_search (`models.ts`). */
export function registryOf(exposed: string[]): string[] {
  if (!exposed.includes("write_todos")) return GEMINI_REGISTRY;
  const at = GEMINI_REGISTRY.indexOf("google_web_search") + 1;
  return [...GEMINI_REGISTRY.slice(0, at), "write_todos", ...GEMINI_REGISTRY.slice(at)];
}

/** The error message for a call to `name`, which the episode does not expose (`exposed`: the tools it does). */
export function unknownToolMessage(name: string, exposed: string[] = []): string {
  const registry = registryOf(exposed);
  // approx.: gemini runs the tools this profile leaves out (web_fetch, invoke_agent, ...); here they fail.
  if (registry.includes(name)) return approx(`Tool "${name}" is not available in this environment.`);
  return `Tool "${name}" not found.${toolSuggestion(name, registry)}`;
}
