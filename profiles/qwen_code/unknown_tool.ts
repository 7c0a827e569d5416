/** Unknown tool names: qwen's registry and skill names, and getToolNotFoundMessage with its "Did you mean" ranking. */
import { levenshtein } from "../../lib/harness/lang/levenshtein.ts";

/** The bundled skill names, listed in qwen's first skills reminder. */
export const SKILLS = (
  "batch browser-use computer-use dataviz extension-creator goal-draft loop new-app qc-helper review simplify stuck workflow-authoring workflow-creator"
).split(" ");

/**
 * The tool names qwen's registry held in the recorded runs, in registry order (used to rank "Did you mean"). The
 * order is the registration order of Config.createToolRegistry with task_stop last, as the recorded rankings imply
 * (tools load in parallel; ties among equally distant names follow this order).
 */
export const QWEN_REGISTRY = (
  "web_fetch get_goal update_goal tool_call tool_search read_mcp_resource agent list_agents send_message skill read_file zoom_image grep_search glob edit notebook_edit write_file run_shell_command report_findings enter_worktree exit_worktree record_artifact cron_create cron_list cron_delete loop_wakeup monitor task_stop"
).split(" ");

/** getToolNotFoundMessage. */
export function qwenUnknownTool(name: string): string {
  if (SKILLS.includes(name)) {
    // (source)
    return `"${name}" is a skill name, not a tool name. To use this skill, invoke the "skill" tool with parameter: skill: "${name}"`;
  }
  if (name === "list_directory") {
    return `Tool "${name}" is a built-in tool that is disabled by default because glob covers directory listing in most cases. Enable it with the tools.listDirectory.enabled setting. Use glob instead.`;
  }
  if (name === "todo_write") {
    return `Tool "${name}" is a built-in tool that is disabled by default. Enable it with the tools.todoWrite.enabled setting and restart Qwen Code.`;
  }
  // approx.: a qwen tool this profile leaves out is not suggested to itself.
  const ranked = QWEN_REGISTRY.filter((t) => t !== name).map((t) => ({ t, d: levenshtein(name, t) }))
    .sort((x, y) => x.d - y.d).slice(0, 3).map((x) => `"${x.t}"`);
  return `Tool "${name}" not found in registry. Tools must use the exact names that are registered. Did you mean one of: ${
    ranked.join(", ")
  }?`;
}
