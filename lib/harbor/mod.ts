/**
 * Task-set tools for Harbor: the rows a trainer starts from (`harbor rows`) and the export of tasks in pgs's own layout
 * to Harbor's single-step `[[steps]]` layout (`harbor export --steps`).
 * @module
 */
export * from "./export_steps.ts";
export * from "./rows.ts";
