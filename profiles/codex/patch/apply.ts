/**
 * The `applyPatch` op: codex's patch language applied to the episode's files, in codex 0.171.0's two stages
 * (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b: codex-rs/apply-patch/src/invocation.rs
 * `try_verify_apply_patch_args`, then lib.rs `apply_hunks_to_files`). Verification parses the patch, resolves each
 * path against the working directory, reads every file it deletes or updates and computes the new text, all before a
 * byte is written; any failure there leaves the files untouched. Then the hunks are written in order: an added file
 * is created (parents too) or overwritten, a moved file is written at its destination and removed at its source.
 *
 * Failures raise `OpError("bad_patch", { stage, message })`, `message` being codex's error display: `stage` is
 * `verify` (parse and verification errors), `empty` (a patch with no hunks, which codex's safety check rejects) or
 * `apply` (a write that failed after verification). Profiles word them (codex prefixes `apply_patch verification
 * failed: `).
 */
import { shQuote, text } from "../../../lib/runtime/channel.ts";
import type { ExecEnv } from "../../../lib/runtime/exec_env.ts";
import { rustIoError } from "../../../lib/harness/lang/rust_str.ts";
import { OpError, readBytes, write } from "../../../lib/harness/tools/ops.ts";
import { parsePatch, PatchParseError } from "./parse.ts";
import { ChunkMismatch, updatedText } from "./update.ts";

/** The files a patch touched, as spelled in the patch (codex's summary lists added, then modified, then deleted). */
export interface PatchSummary {
  /** Files added (`A`). */
  added: string[];
  /** Files updated or moved, by their new name (`M`). */
  modified: string[];
  /** Files deleted (`D`). */
  deleted: string[];
}

type Change =
  | { kind: "add"; path: string; shown: string; contents: string }
  | { kind: "delete"; path: string; shown: string }
  | { kind: "update"; path: string; shown: string; moveTo: string | null; contents: string };

const ERRNO: Record<string, number> = { not_found: 2, denied: 13, is_dir: 21, not_dir: 20 };

function fail(stage: "verify" | "empty" | "apply", message: string): OpError {
  return new OpError("bad_patch", { stage, message });
}

/** A patch path against `cwd`, as codex joins it (no normalisation of `.` or `..`: approx.). */
export function resolvePatchPath(cwd: string, p: string): string {
  return p.startsWith("/") ? p : `${cwd.replace(/\/+$/, "")}/${p}`;
}

/** A file's text as codex's `read_file_text` gives it, or the Rust io error's display. */
async function readText(box: ExecEnv, path: string): Promise<string | { error: string }> {
  try {
    const { data } = await readBytes(box, path);
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
  } catch (e) {
    if (e instanceof OpError && ERRNO[e.kind]) return { error: rustIoError(ERRNO[e.kind]) };
    if (e instanceof TypeError) return { error: "stream did not contain valid UTF-8" }; // approx.
    throw e;
  }
}

/** Parses and verifies a patch against the files: what it will change, or a `bad_patch` OpError. */
export async function verifyPatch(box: ExecEnv, patch: string, cwd: string): Promise<Change[]> {
  let hunks;
  try {
    hunks = parsePatch(patch);
  } catch (e) {
    if (e instanceof PatchParseError) throw fail("verify", e.message);
    throw e;
  }
  const changes: Change[] = [];
  for (const h of hunks) {
    const path = resolvePatchPath(cwd, h.path);
    if (changes.some((c) => c.path === path)) throw fail("verify", `invalid patch: multiple operations target ${path}`);
    if (h.kind === "add") {
      changes.push({ kind: "add", path, shown: h.path, contents: h.contents });
      continue;
    }
    const body = await readText(box, path);
    if (h.kind === "delete") {
      if (typeof body !== "string") throw fail("verify", `Failed to read ${path}: ${body.error}`);
      changes.push({ kind: "delete", path, shown: h.path });
      continue;
    }
    if (typeof body !== "string") throw fail("verify", `Failed to read file to update ${path}: ${body.error}`);
    let contents: string;
    try {
      contents = updatedText(body, h.chunks, path);
    } catch (e) {
      if (e instanceof ChunkMismatch) throw fail("verify", e.message);
      throw e;
    }
    const moveTo = h.moveTo === null ? null : resolvePatchPath(cwd, h.moveTo);
    changes.push({ kind: "update", path, shown: h.moveTo ?? h.path, moveTo, contents });
  }
  if (changes.length === 0) throw fail("empty", "empty patch");
  return changes;
}

async function remove(box: ExecEnv, path: string, what: string): Promise<void> {
  const r = await box.exec(`p=${shQuote(path)}; [ -d "$p" ] && exit 21; rm -- "$p"`, { shell: "sh", timeoutSec: 60 });
  if (r.exitCode === 21) throw fail("apply", `${what} ${path}: path is a directory`);
  if (r.exitCode !== 0) throw fail("apply", `${what} ${path}: ${text(r.stderr).trim()}`);
}

async function put(box: ExecEnv, path: string, contents: string): Promise<void> {
  try {
    await write(box, path, contents);
  } catch (e) {
    if (e instanceof OpError) throw fail("apply", `Failed to write file ${path}: ${rustIoError(ERRNO[e.kind] ?? 5)}`);
    throw e;
  }
}

/** Verifies, then applies a patch with `cwd` as the base of relative paths; returns what it touched. */
export async function applyPatch(box: ExecEnv, patch: string, cwd = box.workdir): Promise<PatchSummary> {
  const changes = await verifyPatch(box, patch, cwd);
  const out: PatchSummary = { added: [], modified: [], deleted: [] };
  for (const c of changes) {
    if (c.kind === "add") {
      await put(box, c.path, c.contents);
      out.added.push(c.shown);
    } else if (c.kind === "delete") {
      await remove(box, c.path, "Failed to delete file");
      out.deleted.push(c.shown);
    } else if (c.moveTo !== null) {
      await put(box, c.moveTo, c.contents);
      await remove(box, c.path, "Failed to remove original");
      out.modified.push(c.shown);
    } else {
      await put(box, c.path, c.contents);
      out.modified.push(c.shown);
    }
  }
  return out;
}

/** codex's summary of an applied patch (`Success. Updated the following files:` then `A`/`M`/`D` lines). */
export function patchSummaryText(s: PatchSummary): string {
  const lines = ["Success. Updated the following files:"];
  for (const p of s.added) lines.push(`A ${p}`);
  for (const p of s.modified) lines.push(`M ${p}`);
  for (const p of s.deleted) lines.push(`D ${p}`);
  return lines.join("\n") + "\n";
}
