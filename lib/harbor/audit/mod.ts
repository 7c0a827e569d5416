/**
 * `harbor audit`: the battery of exploits (data; the task-aware ones read the task's folder first), the policy that
 * plays one, the audit of a task set in one or every verifier mode with its findings, and its HTML page.
 * @module
 */
export * from "./audit.ts";
export * from "./battery.ts";
export * from "./exploit_policy.ts";
export * from "./report_html.ts";
export type { ExploitOutcome, Finding } from "./findings.ts";
export type { KeyFile, TaskFacts } from "./task_facts.ts";
