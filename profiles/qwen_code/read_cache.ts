/** qwen's FileReadCache (keyed by inode, fingerprinted by mtime and size) and its prior-read rule for writes. */
import type { Session } from "../../lib/harness/types.ts";
import type { Stat } from "./fs.ts";
import { episodeState } from "../../lib/harness/session_state.ts";

interface CacheEntry {
  mtime: string;
  size: number;
  readAt?: number;
  writeAt?: number;
  full: boolean;
  cacheable: boolean;
  resident: boolean;
}

const cache = (s: Session) => episodeState(s, "qwen.reads", () => new Map<string, CacheEntry>());

/** A logical clock: qwen compares Date.now() stamps, a counter keeps "read after write" strict. */
function tick(s: Session): number {
  const n = Number(s.state.get("qwen.clock") ?? 0) + 1;
  s.state.set("qwen.clock", n);
  return n;
}

function upsert(s: Session, st: Stat): CacheEntry {
  const c = cache(s);
  const e = c.get(st.key) ?? { mtime: st.mtime, size: st.size, full: false, cacheable: false, resident: false };
  e.mtime = st.mtime;
  e.size = st.size;
  c.set(st.key, e);
  return e;
}

/** Records a read (full or partial; cacheable when its text reached the model). */
export function recordRead(s: Session, st: Stat, full: boolean, cacheable: boolean): void {
  const old = cache(s).get(st.key);
  const same = old !== undefined && old.mtime === st.mtime && old.size === st.size;
  const e = upsert(s, st);
  e.readAt = tick(s);
  if (full) e.resident = true;
  if (same) {
    if (full) e.full = true;
    if (cacheable) e.cacheable = true;
  } else {
    e.full = full;
    e.cacheable = cacheable;
  }
}

/** Records a write by edit or write_file: the file counts as fully read. */
export function recordWrite(s: Session, st: Stat): void {
  const e = upsert(s, st);
  e.writeAt = e.readAt = tick(s);
  e.full = e.cacheable = e.resident = true;
}

/** The cache state of a file: unknown, stale (changed since) or fresh. */
export function checkCache(s: Session, st: Stat): { state: "unknown" | "stale" | "fresh"; entry?: CacheEntry } {
  const e = cache(s).get(st.key);
  if (!e) return { state: "unknown" };
  return { state: e.mtime !== st.mtime || e.size !== st.size ? "stale" : "fresh", entry: e };
}

/** checkPriorRead: the refusal text, or undefined when the write may go ahead. */
export function priorRead(
  s: Session,
  path: string,
  st: Stat | null,
  verb: "editing" | "overwriting",
): string | undefined {
  if (!st) return undefined;
  const bare = verb === "editing" ? "edit" : "overwrite";
  if (st.kind === "dir") {
    // (source)
    return `${path} is a directory. The Edit / WriteFile tools only operate on regular files. Use a different mechanism (e.g. the shell tool) if you need to ${bare} the contents of this directory.`;
  }
  if (st.kind === "other") {
    // (source)
    return `${path} is a FIFO / socket / character or block device. The Edit / WriteFile tools only operate on regular files; the read_file tool also rejects these targets. Use a different mechanism (e.g. shell tool with the appropriate command) if you need to ${bare} this path.`;
  }
  const c = checkCache(s, st);
  if (c.state === "fresh" && c.entry?.readAt !== undefined && c.entry.cacheable) return undefined;
  if (c.state === "stale") {
    return `File ${path} has been modified since you last read it (mtime or size changed). Re-read it with the read_file tool before ${verb} it to ensure your changes are based on current content.`;
  }
  if (c.state === "fresh" && c.entry?.readAt !== undefined) {
    // (source)
    return `File ${path} is a binary / image / audio / video / PDF / notebook payload that the read_file tool returns as a structured value rather than as plain text. The Edit / WriteFile tools cannot mutate that payload safely — re-reading it would not change this. If this is a Jupyter notebook (.ipynb), use the notebook_edit tool for cell-level edits after reading it. For other non-text files, use a different mechanism (e.g. shell tool with an appropriate writer) if you need to ${bare} it.`;
  }
  const guidance = verb === "editing"
    ? "(a partial read with offset / limit is fine — you only need to have seen the bytes you intend to edit)"
    : "(read the full file — overwriting replaces every byte, so any unseen bytes would be discarded)";
  return `File ${path} has not been read in this session. Use the read_file tool first to load the current content ${guidance} before ${verb} it.`;
}
