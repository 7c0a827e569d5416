/**
 * `harbor audit`: the battery of generic exploits (data), the policy that plays one, the audit of a task set in one or
 * every verifier mode, and its HTML page.
 * @module
 */
export * from "./audit.ts";
export * from "./battery.ts";
export * from "./exploit_policy.ts";
export * from "./report_html.ts";
