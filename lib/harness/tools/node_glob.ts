/**
 * node-glob's search as the JavaScript harnesses (gemini-cli, qwen-code) call it, run in the container by one
 * embedded Python walker (node_glob.py); each harness passes its own options and words the hits itself.
 */
import { shQuote, text } from "../../runtime/channel.ts";
import type { ExecEnv } from "../../runtime/exec_env.ts";
import { NODE_GLOB_PY } from "./node_glob_py.ts";

/** How a harness calls node-glob. */
export interface NodeGlobOptions {
  /** Case-insensitive matching (minimatch `nocase`; default false). */
  nocase?: boolean;
  /** Directory names never entered (default none). */
  ignore?: string[];
  /** Skip symlinked files and directories (gemini's realpath filter; default false). */
  dropLinks?: boolean;
  /** Stop after this many hits and set `hitLimit` (default: no cap). */
  cap?: number;
  /** Keep a file that cannot be stat'ed, with mtime 0 (default: drop it). */
  zeroMtime?: boolean;
}

/** What the walk found: the clock when it ran, each hit's absolute path and mtime in ms, and whether it was capped. */
export interface NodeGlobResult {
  now: number;
  hits: [string, number][];
  hitLimit: boolean;
}

/** Runs the search from `root`; null when the container has no python3. */
export async function nodeGlob(
  box: ExecEnv,
  root: string,
  pattern: string,
  opts: NodeGlobOptions = {},
): Promise<NodeGlobResult | null> {
  const o = {
    nocase: opts.nocase ?? false,
    ignore: opts.ignore ?? [],
    drop_links: opts.dropLinks ?? false,
    cap: opts.cap ?? 0,
    zero_mtime: opts.zeroMtime ?? false,
  };
  const r = await box.exec(
    `command -v python3 >/dev/null || exit 127\npython3 -c ${shQuote(NODE_GLOB_PY)} ${shQuote(root)} ${
      shQuote(pattern)
    } ${shQuote(JSON.stringify(o))}`,
    { shell: "sh", timeoutSec: 120, maxOutputBytes: 32 << 20 },
  );
  if (r.exitCode === 127) return null;
  try {
    return JSON.parse(text(r.stdout));
  } catch {
    return { now: Date.now(), hits: [], hitLimit: false };
  }
}
