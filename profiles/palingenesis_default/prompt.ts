/** The default dialect's texts (palingenesis-default@1), exactly as its design gives them (docs/spec-notes.md). */

/** The system prompt of palingenesis-default@1; `/workdir` is replaced by the task's working directory. */
export const DEFAULT_SYSTEM_PROMPT: string =
  "You work in a Linux container through tools; the working directory is /workdir and there is no internet. " +
  "Inspect before you change things, check your result, then call submit and tell the user briefly what you did.";

/** The default system prompt for a task whose working directory is `workdir`. */
export function defaultSystemPrompt(workdir = "/workdir"): string {
  return DEFAULT_SYSTEM_PROMPT.replace("/workdir", workdir);
}
