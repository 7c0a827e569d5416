/**
 * claude-code 2.1.332's Bash tool as recorded (tests/golden/claude-code/episode; sizes from the facts' claude-3 run):
 * stdout and stderr interleaved, leading blank lines and trailing whitespace dropped, `Exit code N` before the output
 * of a failing command, `(Bash completed with no output)`, `Command timed out after 1s` (exit 143), a `cd` that
 * leaves the working directory undone with `Shell cwd was reset to DIR`, and output over 30000 characters saved to
 * a file under `$HOME/.claude/projects/` and shown as a `<persisted-output>` preview of its first 2000 characters.
 */
import { posix } from "node:path";
import { shQuote } from "../../lib/runtime/channel.ts";
import { approx } from "../../lib/harness/provenance.ts";
import type { Session } from "../../lib/harness/types.ts";
import { BASH } from "./schemas.ts";
import { inputError } from "./validate.ts";

/** Characters of output shown inline; longer output is persisted (28893 were kept whole, 33892 persisted). */
export const INLINE_LIMIT = 30000;
/** Characters of a persisted output's preview. */
export const PREVIEW_CHARS = 2000;
const DEFAULT_TIMEOUT_MS = 120_000, MAX_TIMEOUT_MS = 600_000;

/** The shell's current directory (a `cd` inside the working directory carries to the next call). */
export function shellCwd(s: Session): string {
  return (s.state.get("cc.cwd") as string | undefined) ?? s.workdir;
}

/** claude-code's size wording: one decimal, 1024-based (`33.1KB`, `1.2MB`). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return approx(`${bytes} bytes`);
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")}KB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "")}MB`;
}

/** Leading blank lines and trailing whitespace go; leading spaces of the first line stay. */
export function tidyOutput(out: string): string {
  return out.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
}

function timeoutText(ms: number): string {
  const secs = ms / 1000;
  // Recorded: 1000 ms gives "1s"; other durations follow the same pattern by assumption.
  return Number.isInteger(secs) && secs < 60 && secs === 1 ? `${secs}s` : approx(`${Math.round(secs)}s`);
}

const inside = (dir: string, root: string) => dir === root || dir.startsWith(root.replace(/\/$/, "") + "/");

/** A random id like claude-code's persisted-output names (`b` and eight base-36 characters). */
function outputId(): string {
  let id = "b";
  for (const b of crypto.getRandomValues(new Uint8Array(8))) id += (b % 36).toString(36);
  return id;
}

/** Saves a large output where claude-code would, and returns the `<persisted-output>` block. */
async function persist(s: Session, out: string): Promise<string> {
  let session = s.state.get("cc.session") as string | undefined;
  if (!session) s.state.set("cc.session", session = crypto.randomUUID());
  const home = new TextDecoder().decode((await s.box.exec('printf %s "$HOME"', { shell: "sh" })).stdout) || "/root";
  const slug = s.workdir.replace(/[^A-Za-z0-9]/g, "-");
  const file = posix.join(home, ".claude", "projects", slug, session, "tool-results", `${outputId()}.txt`);
  const dir = posix.dirname(file);
  await s.box.exec(`mkdir -p ${shQuote(dir)} && cat > ${shQuote(file)} <<'PGS_CC_EOF'\n${out}\nPGS_CC_EOF`, {
    shell: "sh",
    timeoutSec: 60,
  });
  const size = formatSize(new TextEncoder().encode(out).length);
  const preview = out.slice(0, PREVIEW_CHARS);
  return `<persisted-output>\nOutput too large (${size}). Full output saved to: ${file}\n\nPreview (first 2KB):\n` +
    `${preview.endsWith("\n") ? preview : preview + "\n"}...\n</persisted-output>`;
}

/** The Bash tool. */
export async function bash(s: Session, args: Record<string, unknown>): Promise<string> {
  const invalid = inputError(BASH, args);
  if (invalid) return invalid;
  const command = args.command as string;
  const ms = Math.min(
    typeof args.timeout === "number" && args.timeout > 0 ? args.timeout : DEFAULT_TIMEOUT_MS,
    MAX_TIMEOUT_MS,
  );
  const cwd = shellCwd(s);
  const cwdFile = `${s.box.scratch}/.pgs-cc-cwd.${s.box.id.slice(0, 12)}`;
  // The final directory is written on exit, so a `cd` is seen even when the command exits early.
  const script = `cd ${shQuote(cwd)} 2>/dev/null || cd ${shQuote(s.workdir)}\n` +
    `trap 'pwd > ${shQuote(cwdFile)}' EXIT\n${command}`;
  const r = await s.exec(script, { timeout: ms / 1000, merge: true, cwd: s.workdir });
  let out = tidyOutput(r.output);
  if (r.timedOut) {
    return ["Exit code 143", out, `Command timed out after ${timeoutText(ms)}`].filter(Boolean).join("\n");
  }
  const after = new TextDecoder().decode(
    (await s.box.exec(`cat ${shQuote(cwdFile)} 2>/dev/null`, { shell: "sh" })).stdout,
  )
    .trim();
  if (after && !inside(after, s.workdir)) {
    s.state.set("cc.cwd", s.workdir);
    out = [out, `Shell cwd was reset to ${s.workdir}`].filter(Boolean).join("\n");
  } else if (after && r.exitCode === 0) s.state.set("cc.cwd", after);
  if (out.length > INLINE_LIMIT) out = await persist(s, out);
  if (r.exitCode !== 0) return out ? `Exit code ${r.exitCode}\n${out}` : `Exit code ${r.exitCode}`;
  return out || "(Bash completed with no output)";
}
