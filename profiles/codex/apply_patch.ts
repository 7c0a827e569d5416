/**
 * codex 0.171.0 intercepting `apply_patch` inside `exec_command` (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b:
 * codex-rs/core/src/tools/handlers/apply_patch.rs `intercept_apply_patch`, codex-rs/apply-patch/src/invocation.rs
 * `maybe_parse_apply_patch_verified`): when the shell is bash, zsh or sh with `-lc`/`-c` and the script is exactly
 * an `apply_patch` heredoc (optionally after `cd DIR &&`), codex verifies and applies the patch itself instead of
 * running the command. A script that is itself a patch is refused as an implicit invocation. The wording: a failure
 * is `apply_patch verification failed: …` (or `patch rejected: empty patch`), a success is the patch tool's exec
 * output (`Exit code: 0`, `Wall time: 0 seconds`, `Output:`, the summary) inside unified exec's own header.
 */
import type { Session } from "../../lib/harness/types.ts";
import { OpError } from "../../lib/harness/tools/ops.ts";
import { applyPatch, patchSummaryText, resolvePatchPath } from "./patch/apply.ts";
import { extractHeredocPatch } from "./patch/heredoc.ts";
import { parsePatch } from "./patch/parse.ts";
import { responseText } from "./output.ts";

const SHELLS = new Set(["bash", "zsh", "sh"]);

function isPatch(text: string): boolean {
  try {
    parsePatch(text);
    return true;
  } catch {
    return false;
  }
}

/** The intercepted result, or null when the command is not a patch and runs as a command. */
export async function interceptApplyPatch(s: Session, argv: string[], cwd: string): Promise<string | null> {
  const [shell, flag, script] = argv;
  const name = (shell.split("/").pop() ?? "").replace(/\.[^.]*$/, "").toLowerCase();
  if (!SHELLS.has(name) || (flag !== "-lc" && flag !== "-c")) return null;
  if (isPatch(script)) {
    return 'apply_patch verification failed: patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]';
  }
  const found = extractHeredocPatch(script);
  if (!found) return null;
  const dir = found.workdir === null ? cwd : resolvePatchPath(cwd, found.workdir);
  try {
    const summary = await applyPatch(s.box, found.body, dir);
    const inner = `Exit code: 0\nWall time: 0 seconds\nOutput:\n${patchSummaryText(summary)}`;
    return responseText({
      chunkId: "",
      wallSeconds: 0,
      exitCode: null,
      sessionId: null,
      originalTokenCount: null,
      output: inner,
      omittedBytes: 0,
    });
  } catch (e) {
    if (!(e instanceof OpError) || e.kind !== "bad_patch") throw e;
    const { stage, message } = e.data as { stage: string; message: string };
    if (stage === "empty") return `patch rejected: ${message}`;
    return `apply_patch verification failed: ${message}`;
  }
}
