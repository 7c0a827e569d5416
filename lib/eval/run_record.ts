/**
 * run.json: the settings that make a run what it is (a folder holding other ones is not resumed) and what the report's
 * header shows besides them: the model, when the run started, whether it is crossed, the pgs version and the git
 * revision of the tasks' folder when it is in a git checkout.
 */
import { dirname, resolve } from "node:path";
import denoJson from "../../deno.json" with { type: "json" };

/** The format tag of run.json. */
export const RUN_FORMAT = "pgs.run/1";

/** The version of pgs that writes run.json. */
export const PGS_VERSION: string = denoJson.version;

/** run.json. */
export interface RunRecord {
  /** Always RUN_FORMAT. */
  format: typeof RUN_FORMAT;
  /** The settings that change what an episode is (null when unset); a re-run with other values is refused. */
  settings: Record<string, unknown>;
  /** Samples per row. */
  k: number;
  /** Every listed profile runs on every task (`--cross`); false when one profile is drawn per task. */
  cross: boolean;
  /** The model: `--model`, else the one the endpoint listed first; absent when neither says. */
  model?: string;
  /** The pgs version of the latest run into this folder. */
  pgs_version: string;
  /** `git rev-parse HEAD` of the tasks' folder; absent when it is in no git checkout (or git is missing). */
  tasks_git_revision?: string;
  /** When the first run into this folder started (kept on resume), ISO 8601. */
  started_at: string;
  /** When the latest run into this folder started, ISO 8601. */
  resumed_at?: string;
}

/** How long `git rev-parse` may take before the revision is left out. */
const GIT_TIMEOUT_MS = 5_000;

/**
 * The git revision (HEAD) of the checkout holding `path` (a folder, or a file such as a rows JSONL: its folder), or
 * undefined when it is in none, git is missing, or git does not answer within `GIT_TIMEOUT_MS`.
 */
export async function gitRevision(path: string): Promise<string | undefined> {
  let dir = resolve(path);
  try {
    if (!(await Deno.stat(dir)).isDirectory) dir = dirname(dir);
  } catch {
    return undefined;
  }
  try {
    const out = await new Deno.Command("git", {
      args: ["-C", dir, "rev-parse", "HEAD"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      env: { GIT_TERMINAL_PROMPT: "0" },
      signal: AbortSignal.timeout(GIT_TIMEOUT_MS),
    }).output();
    const rev = new TextDecoder().decode(out.stdout).trim();
    return out.success && /^[0-9a-f]{40,64}$/.test(rev) ? rev : undefined;
  } catch {
    return undefined; // no git on PATH, or it was killed at the bound
  }
}
