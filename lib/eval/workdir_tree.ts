/**
 * A working directory read out of its container as a tree of files and symlinks (`getArchive`, a tar stream read as it
 * comes), kept within fixed bounds whatever the directory holds: past `WORKDIR_MAX_FILES` entries or
 * `WORKDIR_MAX_PATH_CHARS` characters of their paths, entries are counted, not kept (the tree says it was cut).
 */
import { createHash } from "node:crypto";
import { readTar, type TarMember } from "../base/tar_read.ts";
import type { Box } from "../runtime/runtime.ts";

/** Files larger than this are compared by hash and named, not diffed. */
export const MAX_DIFF_FILE = 1024 * 1024;
/** Of a tree's files, at most this many bytes are kept for diffing; the files past it are compared by hash. */
export const MAX_KEPT_BYTES = 32 * 1024 * 1024;
/** A working directory whose files add up to more than this is not diffed (its copy stops there). */
export const MAX_TREE_BYTES = 256 * 1024 * 1024;
/** At most this many files and symlinks of a tree are kept to compare; the ones past it are counted. */
export const WORKDIR_MAX_FILES = 50_000;
/** At most this many characters of kept paths per tree (a path may be 4 KiB long); past it, entries are counted. */
export const WORKDIR_MAX_PATH_CHARS = 8 * 1024 * 1024;
/** The bound of one copy out of the container. */
const COPY_MS = 120_000;

/** One path of a tree: its kind, mode, and content (small files), or its hash (large ones, .git/). */
export interface TreeEntry {
  /** What it is (only files and symlinks are kept by `readTree`). */
  type: TarMember["type"];
  /** Permission bits. */
  mode: number;
  /** Content length. */
  size: number;
  /** The content, for files up to `MAX_DIFF_FILE` outside .git/, up to `MAX_KEPT_BYTES` in all. */
  data?: Uint8Array;
  /** sha1 of the content, for the other files. */
  hash?: string;
  /** A symlink's target. */
  link?: string;
}

/** How much of a tree `readTree` kept, when it could not keep it all. */
export interface TreeCut {
  /** Files and symlinks the directory held. */
  files: number;
  /** Of them, how many the tree kept (the first ones in the archive's order). */
  kept: number;
}

/**
 * A working directory as read: paths relative to it, `/`-separated, files and symlinks only (folders show through
 * their files; devices and fifos are not diffed). `cut` is set when entries past the caps were counted, not kept.
 */
export type Tree = Map<string, TreeEntry> & { cut?: TreeCut };

/** The bounds of one tree read (defaults: the constants of the same names above). */
export interface TreeLimits {
  /** Larger files are hashed, not kept (default `MAX_DIFF_FILE`). */
  maxFile?: number;
  /** Bytes of content kept in all; files past it are hashed (default `MAX_KEPT_BYTES`). */
  maxKept?: number;
  /** Bytes of files in all before the read stops and the tree is not diffed (default `MAX_TREE_BYTES`). */
  maxTree?: number;
  /** Files and symlinks kept; past it they are counted only (default `WORKDIR_MAX_FILES`). */
  maxFiles?: number;
  /** Characters of kept paths in all; past it entries are counted only (default `WORKDIR_MAX_PATH_CHARS`). */
  maxPathChars?: number;
}

/** Every empty file's content: one shared array, so that a million empty files hold no array each. */
const EMPTY = new Uint8Array(0);

/** Reads `path` of `container` as a tree; a string says why it could not (too large, the copy failed). */
export async function readTree(
  container: Pick<Box, "getArchive">,
  path: string,
  limits: TreeLimits = {},
): Promise<Tree | string> {
  const {
    maxFile = MAX_DIFF_FILE,
    maxKept = MAX_KEPT_BYTES,
    maxTree = MAX_TREE_BYTES,
    maxFiles = WORKDIR_MAX_FILES,
    maxPathChars = WORKDIR_MAX_PATH_CHARS,
  } = limits;
  const read = container.getArchive(path, COPY_MS);
  const tree: Tree = new Map();
  let total = 0, kept = 0, files = 0, pathChars = 0, full = false;
  // The one file being hashed: its content has all passed once the next member's header is read.
  let hashing: { e: TreeEntry; h: ReturnType<typeof createHash> } | undefined;
  const finishHash = () => {
    if (hashing) hashing.e.hash = hashing.h.digest("hex");
    hashing = undefined;
  };
  let failure: string | undefined;
  try {
    await readTar(read.stream, (m) => {
      finishHash();
      // The archive's first component is the folder itself (`workdir/...`).
      const slash = m.name.indexOf("/");
      if (slash < 0) return "skip";
      total += m.size;
      if (total > maxTree) throw new TooLarge();
      if (m.type !== "file" && m.type !== "symlink") return "skip";
      files++;
      const rel = m.name.slice(slash + 1);
      if (full || tree.size >= maxFiles || pathChars + rel.length > maxPathChars) {
        full = true;
        return "skip";
      }
      pathChars += rel.length;
      if (m.type === "symlink") {
        tree.set(rel, { type: m.type, mode: m.mode, size: m.size, link: m.linkname });
        return "skip";
      }
      const e: TreeEntry = { type: m.type, mode: m.mode, size: m.size };
      tree.set(rel, e);
      if (m.size === 0) {
        e.data = EMPTY;
        return "skip";
      }
      if (m.size <= maxFile && kept + m.size <= maxKept && !inGit(rel)) {
        kept += m.size;
        return "keep";
      }
      const h = createHash("sha1");
      hashing = { e, h };
      return (chunk) => h.update(chunk);
    }, (m, data) => {
      tree.get(m.name.slice(m.name.indexOf("/") + 1))!.data = data;
    });
    finishHash();
  } catch (e) {
    failure = e instanceof TooLarge
      ? `the working directory holds more than ${mib(maxTree)} of files: not diffed`
      : `cannot read the working directory: ${(e as Error).message}`;
    read.cancel();
    await read.stream.cancel().catch(() => {});
  }
  const done = await read.done;
  if (failure) return failure;
  if (!done.ok) return `cannot read the working directory: ${done.error}`;
  if (full) tree.cut = { files, kept: tree.size };
  return tree;
}

class TooLarge extends Error {}

const mib = (n: number) => n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MiB` : `${n} bytes`;

/** Whether `rel` lies under a `.git` folder. */
export function inGit(rel: string): boolean {
  return rel === ".git" || rel.startsWith(".git/") || rel.includes("/.git/");
}
