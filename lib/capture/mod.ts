/**
 * Recording real harnesses: runs one (locally with its own HOME, or through Harbor's CLI) against the stub and keeps
 * every request it sent, so that profiles can be written from, and diffed against, what the harness really sends.
 * @module
 */
export { type LocalCaptureOptions, type LocalCaptureResult, runLocal } from "./run_local.ts";
export { type HarborCaptureOptions, runHarbor } from "./run_harbor.ts";
export { harborWiring, localRecipe } from "./recipes.ts";
