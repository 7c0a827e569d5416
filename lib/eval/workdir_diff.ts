/**
 * The files an episode changed: its working directory read out of the container (`docker cp`, a tar stream) once at
 * the start, in the background while the policy answers the first turn, and once after the last turn, then compared
 * as a unified diff (git's layout, jsdiff's algorithm) capped at `WORKDIR_DIFF_CAP`. Nothing is written into the
 * container and nothing runs in it: the agent sees no difference. Binary and large files are named, not diffed. Each
 * tree is read within fixed bounds (`workdir_tree.ts`): past them the diff is cut and says so (`cut`).
 */
import { structuredPatch } from "npm:diff@9.0.0";
import type { Sandbox } from "../runtime/sandbox.ts";
import { inAgentState, type VerifierMode } from "../task/verifier_mode.ts";
import type { WorkdirCut, WorkdirDiff, WorkdirFileChange } from "./records/trajectory.ts";
import { inGit, readTree, type Tree, type TreeEntry } from "./workdir_tree.ts";

export {
  MAX_DIFF_FILE,
  MAX_KEPT_BYTES,
  MAX_TREE_BYTES,
  readTree,
  type Tree,
  type TreeCut,
  type TreeEntry,
  type TreeLimits,
  WORKDIR_MAX_FILES,
  WORKDIR_MAX_PATH_CHARS,
} from "./workdir_tree.ts";

/** The patch is cut at this many bytes (the file list stays whole). */
export const WORKDIR_DIFF_CAP = 256 * 1024;
/** At most this many changed files are listed. */
const MAX_FILES = 2000;
/** Per file: jsdiff gives up past this many edits or milliseconds (the file is then named only). */
const MAX_EDITS = 2000;
const DIFF_TIMEOUT_MS = 100;
/** All files of one diff: past this many milliseconds the rest are named only (the diff runs on the runner's thread). */
const DIFF_BUDGET_MS = 500;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of a file, or undefined when it is binary (a NUL in its first 8000 bytes, as git judges, or not UTF-8). */
function textOf(e: TreeEntry | undefined): string | undefined {
  if (!e) return "";
  if (e.type === "symlink") return `${e.link}\n`;
  if (!e.data) return undefined;
  if (e.data.subarray(0, 8000).includes(0)) return undefined;
  try {
    return utf8.decode(e.data);
  } catch {
    return undefined;
  }
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function same(a: TreeEntry, b: TreeEntry): boolean {
  if (a.type !== b.type || a.mode !== b.mode || a.size !== b.size || a.link !== b.link) return false;
  if (a.hash !== undefined || b.hash !== undefined) return a.hash === b.hash;
  return sameBytes(a.data, b.data);
}

const octal = (m: number) => (m & 0o111 ? "100755" : "100644");

/**
 * The unified diff of two trees (`before` at the episode's start, `after` at its end). Where a tree was cut (`cut`),
 * a path kept on one side only is not compared (the other side may hold it past its cut): it is counted in `cut`.
 */
export function diffTrees(before: Tree, after: Tree): WorkdirDiff {
  const files: WorkdirFileChange[] = [];
  const parts: string[] = [];
  let size = 0, truncated = false, git = 0, listedOut = 0, outOfTime = 0, unmatched = 0;
  const t0 = performance.now();
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const path of paths) {
    const a0 = before.get(path), b0 = after.get(path);
    // Folders show through their files; others (devices, fifos) are not diffed.
    const a = a0 && (a0.type === "file" || a0.type === "symlink") ? a0 : undefined;
    const b = b0 && (b0.type === "file" || b0.type === "symlink") ? b0 : undefined;
    if (!a && !b) continue;
    if (a && b && same(a, b)) continue;
    if ((!a && before.cut) || (!b && after.cut)) {
      unmatched++;
      continue;
    }
    if (inGit(path)) {
      git++;
      continue;
    }
    if (files.length >= MAX_FILES) {
      listedOut++;
      continue;
    }
    const change: WorkdirFileChange["change"] = !a ? "added" : !b ? "deleted" : "modified";
    const head = [`diff --git a/${path} b/${path}`];
    if (!a) head.push(`new file mode ${octal(b!.mode)}`);
    else if (!b) head.push(`deleted file mode ${octal(a.mode)}`);
    else if (octal(a.mode) !== octal(b.mode)) head.push(`old mode ${octal(a.mode)}`, `new mode ${octal(b.mode)}`);
    const [ta, tb] = [textOf(a), textOf(b)];
    const f: WorkdirFileChange = { path, change, added: 0, removed: 0 };
    let body = "";
    const contentChanged = !a || !b || a.hash !== b.hash || a.link !== b.link || !sameBytes(a.data, b.data);
    if ([a, b].some((e) => e?.type === "file" && !e.data)) {
      f.large = true;
      if (contentChanged) body = `(not diffed for its size: ${a?.size ?? 0} → ${b?.size ?? 0} bytes)\n`;
    } else if (ta === undefined || tb === undefined) {
      f.binary = true;
      if (contentChanged) {
        body = `Binary files ${a ? `a/${path}` : "/dev/null"} and ${b ? `b/${path}` : "/dev/null"} differ\n`;
      }
    } else if (ta !== tb) {
      const left = DIFF_BUDGET_MS - (performance.now() - t0);
      const p = left <= 0 ? undefined : structuredPatch(
        a ? `a/${path}` : "/dev/null",
        b ? `b/${path}` : "/dev/null",
        ta,
        tb,
        "",
        "",
        { context: 3, maxEditLength: MAX_EDITS, timeout: Math.min(DIFF_TIMEOUT_MS, left) },
      );
      if (!p && left <= 0) {
        f.too_different = true;
        outOfTime++;
        body = `(not diffed: the diff's time budget ran out)\n`;
      } else if (!p) {
        f.too_different = true;
        body = `(too many changes to diff: ${a?.size ?? 0} → ${b?.size ?? 0} bytes)\n`;
      } else {
        const lines = [`--- ${p.oldFileName}`, `+++ ${p.newFileName}`];
        for (const h of p.hunks) {
          const os = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart,
            ns = h.newLines === 0 ? h.newStart - 1 : h.newStart;
          lines.push(`@@ -${os},${h.oldLines} +${ns},${h.newLines} @@`);
          for (const l of h.lines) {
            lines.push(l);
            if (l[0] === "+") f.added++;
            else if (l[0] === "-") f.removed++;
          }
        }
        body = lines.join("\n") + "\n";
      }
    }
    files.push(f);
    const text = head.join("\n") + "\n" + body;
    if (!truncated && size + text.length <= WORKDIR_DIFF_CAP) {
      parts.push(text);
      size += text.length;
    } else truncated = true;
  }
  const notes: string[] = [];
  const cut = treesCut(before, after, unmatched);
  if (cut) notes.push(cutNote(cut));
  if (truncated) notes.push(`the diff is cut at ${WORKDIR_DIFF_CAP / 1024} KiB; every changed file is listed`);
  if (listedOut) notes.push(`${listedOut} more changed files are not listed`);
  if (git) notes.push(`${git} changed files under .git/ are not shown`);
  if (outOfTime) notes.push(`${outOfTime} files not diffed: the diff's ${DIFF_BUDGET_MS / 1000} s ran out`);
  return {
    patch: parts.join(""),
    files,
    ...(truncated ? { truncated } : {}),
    ...(notes.length ? { note: notes.join("; ") } : {}),
    ...(cut ? { cut } : {}),
  };
}

/** What of the two trees was compared, when either was cut. */
function treesCut(before: Tree, after: Tree, unmatched: number): WorkdirCut | undefined {
  if (!before.cut && !after.cut) return undefined;
  const side = (t: Tree) => t.cut ?? { files: t.size, kept: t.size };
  const [a, b] = [side(before), side(after)];
  return { start_files: a.files, start_kept: a.kept, end_files: b.files, end_kept: b.kept, unmatched };
}

function cutNote(c: WorkdirCut): string {
  const kept = Math.min(...[c.start_files > c.start_kept ? c.start_kept : Infinity, c.end_kept]);
  const past = (c.start_files - c.start_kept) + (c.end_files - c.end_kept) + c.unmatched;
  return `the diff is cut at ${kept} files per side: the working directory held ${c.start_files} files and links ` +
    `at the start and ${c.end_files} at the end; ${past} past the cut are counted, not compared`;
}

/** The recording of one episode's working directory (`recordWorkdir`). */
export interface WorkdirRecording {
  /** Settles once the start state is read (or could not be): the agent's first tool call waits for it. */
  ready: Promise<void>;
  /**
   * Takes the end state after the last turn and resolves once the verifier may start; its `diff` then resolves with
   * the changes. Where the tests run in the agent's container (shared, snapshot) the copy finishes first, as the
   * tests may write there; elsewhere it goes on while the verifier works.
   */
  end(): Promise<{ diff: Promise<WorkdirDiff> }>;
}

/**
 * Starts recording `box`'s working directory: its start state is read now, in the background (the container's
 * removal waits for the copy). Call right after the episode started, and wait for `ready` before its first step.
 * `mode`: where the episode's tests run (in the agent's state, the end state is read before they change it).
 */
export function recordWorkdir(box: Sandbox, mode: VerifierMode): WorkdirRecording {
  const start = readTree(box.box, box.workdir);
  box.background(start);
  return {
    ready: start.then(() => {}, () => {}),
    async end() {
      const finish = readTree(box.box, box.workdir);
      box.background(finish);
      const diff = Promise.all([start, finish]).then(([a, b]): WorkdirDiff => {
        if (typeof a === "string" || typeof b === "string") {
          return { patch: "", files: [], note: typeof a === "string" ? `at the start, ${a}` : `at the end, ${b}` };
        }
        return diffTrees(a, b);
      }, (e) => ({ patch: "", files: [], note: `not recorded: ${(e as Error).message}` }));
      if (inAgentState(mode)) await finish.catch(() => {});
      return { diff };
    },
  };
}
