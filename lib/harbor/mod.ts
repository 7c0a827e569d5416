/**
 * The `pgs harbor` commands over a task set: `check` (oracle and nop per task), `audit` (the exploit battery in one or
 * every verifier mode), `rows` (the rows a trainer starts from) and `export --steps` (pgs's own layout to Harbor's
 * single-step `[[steps]]` layout).
 * @module
 */
export * from "./audit/mod.ts";
export * from "./check.ts";
export * from "./export_steps.ts";
export * from "./rows.ts";
