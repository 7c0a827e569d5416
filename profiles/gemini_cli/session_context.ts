/**
 * The first user content's `<session_context>` part, as getEnvironmentContext builds it: the date in the user's
 * locale, the platform, the project temp directory, the workspace directory and getFolderStructure's listing
 * (breadth first, up to 200 items, names in localeCompare order, node_modules/.git/dist/__pycache__ shown folded).
 * approx.: .gitignore and .geminiignore are not applied to the listing.
 */
import { posix } from "node:path";
import { shQuote, text as utf8 } from "../../lib/runtime/channel.ts";
import type { Session } from "../../lib/harness/types.ts";

/** `new Date().toLocaleDateString(undefined, {weekday, year, month, day})` in an en-US locale. */
export function geminiDate(d = new Date()): string {
  return d.toLocaleDateString("en-US", { weekday: "long", year: "numeric", month: "long", day: "numeric" });
}

/** The template of the session-context part (`{date}`, `{gemini_temp}`, `{workspace}`, `{folder_structure}`). */
export const SESSION_CONTEXT = "<session_context>\n" +
  "This is the Gemini CLI. We are setting up the context for our chat.\n" +
  "Today's date is {date} (formatted according to the user's locale).\n" +
  "My operating system is: linux\n" +
  "The project's temporary directory is: {gemini_temp}\n" +
  "- **Workspace Directories:**\n  - {workspace}\n" +
  "- **Directory Structure:**\n\n{folder_structure}\n\n\n</session_context>";

const MAX_ITEMS = 200;
const IGNORED = new Set(["node_modules", ".git", "dist", "__pycache__"]);

interface Node {
  name: string;
  path: string;
  files: string[];
  subFolders: Node[];
  ignored?: boolean;
  moreFiles?: boolean;
  moreFolders?: boolean;
}

/** Entries below `root` (regular files and directories only, as Dirent sees them), by parent. */
async function entries(s: Session, root: string): Promise<Map<string, { name: string; dir: boolean }[]>> {
  // Depth 8 and 100000 entries bound the walk; the breadth-first listing stops at 200 items long before.
  const prune = [...IGNORED].map((n) => `-name ${shQuote(n)}`).join(" -o ");
  const r = await s.box.exec(
    `cd ${shQuote(root)} 2>/dev/null || exit 2\n` +
      `find . -mindepth 1 -maxdepth 8 \\( -type d \\( ${prune} \\) -printf '%y %P\\0' -prune \\) -o ` +
      `\\( \\( -type f -o -type d \\) -printf '%y %P\\0' \\) 2>/dev/null | head -z -n 100000`,
    { shell: "sh", timeoutSec: 60, maxOutputBytes: 32 << 20 },
  );
  if (r.exitCode === 2) throw new Error("unreadable");
  const byParent = new Map<string, { name: string; dir: boolean }[]>();
  for (const rec of utf8(r.stdout).split("\0")) {
    if (!rec) continue;
    const rel = rec.slice(2), parent = posix.dirname(rel);
    const key = parent === "." ? "" : parent;
    if (!byParent.has(key)) byParent.set(key, []);
    byParent.get(key)!.push({ name: posix.basename(rel), dir: rec[0] === "d" });
  }
  return byParent;
}

/** getFolderStructure(root) with the default options. */
export async function folderStructure(s: Session, root: string): Promise<string> {
  const resolved = posix.resolve(root);
  let byParent;
  try {
    byParent = await entries(s, resolved);
  } catch {
    return `Error: Could not read directory "${resolved}". Check path and permissions.`;
  }
  const top: Node = { name: posix.basename(resolved), path: "", files: [], subFolders: [] };
  const queue: Node[] = [top];
  let count = 0;
  while (queue.length) {
    const node = queue.shift()!;
    if (count >= MAX_ITEMS) continue;
    const list = [...(byParent.get(node.path) ?? [])].sort((a, b) => a.name.localeCompare(b.name, "en-US"));
    for (const e of list) {
      if (e.dir) continue;
      if (count >= MAX_ITEMS) {
        node.moreFiles = true;
        break;
      }
      node.files.push(e.name);
      count++;
    }
    for (const e of list) {
      if (!e.dir) continue;
      if (count >= MAX_ITEMS) {
        node.moreFolders = true;
        break;
      }
      const child: Node = { name: e.name, path: posix.join(node.path, e.name), files: [], subFolders: [] };
      if (IGNORED.has(e.name)) child.ignored = true;
      else queue.push(child);
      node.subFolders.push(child);
      count++;
    }
  }
  const lines: string[] = [];
  format(top, "", true, true, lines);
  let summary = `Showing up to ${MAX_ITEMS} items (files + folders).`;
  if (truncated(top)) {
    summary += ` Folders or files indicated with ... contain more items not shown, were ignored, or the display ` +
      `limit (${MAX_ITEMS} items) was reached.`;
  }
  return `${summary}\n\n${resolved}/\n${lines.join("\n")}`;
}

function truncated(n: Node): boolean {
  return !!(n.moreFiles || n.moreFolders || n.ignored) || n.subFolders.some(truncated);
}

function format(node: Node, indent: string, last: boolean, isRoot: boolean, out: string[]): void {
  if (!isRoot || node.ignored) out.push(`${indent}${last ? "└───" : "├───"}${node.name}/${node.ignored ? "..." : ""}`);
  const inner = isRoot ? "" : indent + (last ? "    " : "│   ");
  node.files.forEach((f, i) => {
    const lastFile = i === node.files.length - 1 && node.subFolders.length === 0 && !node.moreFolders;
    out.push(`${inner}${lastFile ? "└───" : "├───"}${f}`);
  });
  if (node.moreFiles) out.push(`${inner}${node.subFolders.length === 0 && !node.moreFolders ? "└───" : "├───"}...`);
  node.subFolders.forEach((c, i) =>
    format(c, inner, i === node.subFolders.length - 1 && !node.moreFolders, false, out)
  );
  if (node.moreFolders) out.push(`${inner}└───...`);
}
