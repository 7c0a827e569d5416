/**
 * write_todos (WriteTodosTool), which gemini registers only for Gemini 2 model names (`models.ts`): the list is kept
 * by the harness, never in the container, and the result restates it (`npm:@google/gemini-cli@0.61.0:
 * bundle/chunk-JDPZ4CE3.js`, WriteTodosToolInvocation; every string here is from that source).
 */
import { WRITE_TODOS_PARAMS } from "./schemas.ts";
import { type Args, geminiTool, ok, type Outcome } from "./tool.ts";

const STATUSES = ["pending", "in_progress", "completed", "cancelled", "blocked"];

interface Todo {
  description: string;
  status: string;
}

/** validateToolParamValues, after the schema's own check. */
function check(_s: unknown, a: Args): Promise<string | null> {
  const todos = a.todos;
  if (!Array.isArray(todos)) return Promise.resolve("`todos` parameter must be an array");
  for (const t of todos as unknown[]) {
    if (typeof t !== "object" || t === null) return Promise.resolve("Each todo item must be an object");
    const { description, status } = t as Record<string, unknown>;
    if (typeof description !== "string" || !description.trim()) {
      return Promise.resolve("Each todo must have a non-empty description string");
    }
    if (!STATUSES.includes(status as string)) {
      return Promise.resolve(`Each todo must have a valid status (${STATUSES.join(", ")})`);
    }
  }
  if ((todos as Todo[]).filter((t) => t.status === "in_progress").length > 1) {
    return Promise.resolve('Invalid parameters: Only one task can be "in_progress" at a time.');
  }
  return Promise.resolve(null);
}

function exec(_s: unknown, a: Args): Promise<Outcome> {
  const todos = (a.todos ?? []) as Todo[];
  if (todos.length === 0) return Promise.resolve(ok("Successfully cleared the todo list."));
  const list = todos.map((t, i) => `${i + 1}. [${t.status}] ${t.description}`).join("\n");
  return Promise.resolve(ok(`Successfully updated the todo list. The current list is now:\n${list}`));
}

/** The tool. */
export const writeTodosTool = geminiTool({ name: "write_todos", params: WRITE_TODOS_PARAMS, check, exec });
