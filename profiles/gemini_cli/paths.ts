/**
 * Paths as gemini's tools resolve and police them: the workspace (the working directory, realpath'd once at the
 * start), the project temp directory `~/.gemini/tmp/<slug>`, resolveDefensiveToolPath's `@` handling, and
 * Config.validatePathAccess with its wording.
 */
import { posix } from "node:path";
import type { Session } from "../../lib/harness/types.ts";
import { probe } from "./fs.ts";

/** What the episode's start learnt about the container, kept in the session state. */
export interface GeminiEnv {
  /** The agent user's $HOME. */
  home: string;
  /** The workspace directory with symlinks resolved (WorkspaceContext keeps it so). */
  workspace: string;
  /** `~/.gemini/tmp/<slug>`: the project temp directory. */
  tempDir: string;
  /** The session id (a random UUID), which names the folder of saved tool outputs. */
  sessionId: string;
  /** Where `bash` resolves on the PATH (spawn errors name it). */
  bash: string;
}

/** The start's findings. */
export function env(s: Session): GeminiEnv {
  const e = s.state.get("gemini.env") as GeminiEnv | undefined;
  if (!e) throw new Error("gemini-cli: the episode has not started");
  return e;
}

/** ProjectRegistry.slugify: the project temp directory's name from the project root's basename. */
export function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "") || "project";
}

/** The project temp directory for a home and project root (a fresh registry: no slug taken yet). */
export function projectTempDir(home: string, root: string): string {
  return posix.join(home, ".gemini", "tmp", slugify(posix.basename(root) || "project"));
}

/** resolveDefensiveToolPath: NULs dropped; a leading `@` (a model's file mention) dropped unless the path exists. */
export async function defensivePath(s: Session, p: string): Promise<string> {
  const clean = p.replace(/\0/g, "");
  if (!clean.startsWith("@") || clean.length < 2) return clean;
  if ((await probe(s, posix.resolve(s.workdir, clean))).kind !== "missing") return clean;
  const stripped = clean.slice(1).replace(/^[\\/]+/, "");
  if (clean.startsWith("@/") || clean.startsWith("@\\")) return stripped.length ? stripped : clean;
  const first = stripped.split(/[\\/]/)[0];
  if (!first) return clean;
  return (await probe(s, posix.resolve(s.workdir, "@" + first))).kind !== "missing" ? clean : stripped;
}

function within(p: string, root: string): boolean {
  return p === root || p.startsWith(root === "/" ? "/" : root + "/");
}

function trimSpacesDots(seg: string): string {
  return seg.replace(/[ .]+$/, "");
}

/** hasBlockedPathSegment: `.git`, `.env` and `node_modules` (and their 8.3 short names) are never workspace. */
export function blockedSegment(rel: string): boolean {
  return rel.split(/[/\\]/).some((segment) => {
    const c = trimSpacesDots(segment.split(":")[0]).toLowerCase();
    return c === ".git" || c === ".env" || c === "node_modules" || /^(git|gi[0-9a-f]{4})~\d+$/.test(c) ||
      /^(env|en[0-9a-f]{4})~\d+$/.test(c) || /^(node_m|no[0-9a-f]{4})~\d+$/.test(c) ||
      (c.startsWith("gha-creds-") && c.endsWith(".json")) || /^(gha-cr|gh[0-9a-f]{4})~\d+\.jso(n)?$/.test(c);
  });
}

/** isPathWithinWorkspace for a path whose symlinks are already resolved. */
export function inWorkspace(s: Session, real: string): boolean {
  const ws = env(s).workspace;
  return within(real, ws) && !blockedSegment(posix.relative(ws, real));
}

/** validatePath's checks on the string itself (control characters, log fragments, quotes, `...`, lengths) (source). */
function invalidPath(p: string): string | null {
  if (!p) return "Path must be a non-empty string.";
  if (/[\n\r\0\t]/.test(p)) return "Path contains invalid characters (newlines or control characters).";
  const markers = [/(^|[/\\])AssertionError:/, /(^|[/\\])FAIL /, /(^|[/\\])✓ /, /(^|[/\\])× /];
  if ([...markers, /(^|[/\\])TestingLibraryElementError:/].some((r) => r.test(p))) {
    return "Path appears to be a misinterpreted log fragment.";
  }
  if ((p.includes('"') || p.includes("...")) && p.length > 20) {
    return "Path contains suspicious characters (double quotes or ellipses) and is too long to be a simple filename.";
  }
  if (p.length > 4096) return "Path is too long (maximum 4096 characters).";
  const long = p.split(/[/\\]/).find((c) => c.length > 255);
  if (long !== undefined) return `Path component "${long.substring(0, 20)}..." is too long (maximum 255 characters).`;
  return null;
}

/**
 * Config.validatePathAccess for an absolute path whose symlinks are resolved (`real`; `shown` is the path as the
 * message names it): the workspace, the project temp directory, or the global GEMINI.md; null when allowed.
 */
export function pathAccessError(s: Session, real: string, shown = real): string | null {
  const bad = invalidPath(shown);
  if (bad) return `Invalid path: ${bad}`;
  const e = env(s);
  if (inWorkspace(s, real) || within(real, e.tempDir) || real === posix.join(e.home, ".gemini", "GEMINI.md")) {
    return null;
  }
  return `Path not in workspace: Attempted path "${shown}" resolves outside the allowed workspace directories: ${e.workspace} or the project temp directory: ${e.tempDir}`;
}
