/**
 * pi's bash tool (bash.js, output-accumulator.js): `/bin/bash -c`, stdout and stderr merged, the tail kept; a truncated
 * output is saved whole to `/tmp/pi-bash-<16 hex>.log`, which here is written in the container.
 */
import { shQuote, text } from "../../lib/runtime/channel.ts";
import type { Session } from "../../lib/harness/types.ts";
import { PiError } from "./errors.ts";
import { formatSize, MAX_BYTES, MAX_LINES, truncateTail } from "./truncate.ts";

/** output-accumulator.js keeps a rolling tail of at least 2 x 50KB for its snapshot. */
const ROLLING_BYTES = MAX_BYTES * 2;
const SPOOL = "/tmp/.pgs-pi-bash";

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
/** bash: runs the command and answers its output's tail, with pi's truncation and exit-status notices. */
export async function bashTool(s: Session, a: Record<string, unknown>): Promise<string> {
  const command = a.command as string;
  const timeout = a.timeout as number | undefined;
  const hex = randomHex(8);
  // While the command runs its output goes to a hidden spool (like the exec channel's own), so that `ls /tmp` shows
  // no file pi would not have made; it becomes pi's temp file only when pi would have saved one.
  const spool = `${SPOOL}/${hex}`;
  const file = `/tmp/pi-bash-${hex}.log`;
  // pi has no default timeout; the profile's execTimeout bounds every call.
  const asked = timeout !== undefined && timeout > 0 ? timeout : undefined;
  const limit = asked !== undefined ? Math.min(asked, s.profile.execTimeout) : s.profile.execTimeout;
  // One channel command a call: the command into the spool, then its size, line count, last-line size and tail
  // (the whole output kept only when pi would have, past a limit); the script exits with the command's code. A
  // command killed at its timeout takes the statistics with it: they are read by a second command then.
  // One `wc` for bytes and lines (a fork a call saved).
  const stats = `f=${spool}\n[ -f "$f" ] || { echo 0 0 0; exit 0; }\n` +
    `set -- $(wc -lc < "$f"); n=$1; b=$2; l=0\n` +
    `if [ "$b" -gt 0 ] && [ "$(tail -c 1 "$f" | wc -l)" -eq 0 ]; then l=$(tail -n 1 "$f" | wc -c); fi\n` +
    `echo $b $n $l\ntail -c ${ROLLING_BYTES + 1} "$f"\n` +
    `if [ $((n + 1)) -le ${MAX_LINES} ] && [ "$b" -le ${MAX_BYTES} ]; then rm -f "$f"; else mv -f "$f" ${file}; fi`;
  const run = await s.box.exec(
    `[ -d ${SPOOL} ] || mkdir -p ${SPOOL} 2>/dev/null; b=/bin/bash; [ -x "$b" ] || b=$(command -v bash) || b=sh\n` +
      `"$b" -c ${shQuote(command)} > ${spool} 2>&1 < /dev/null; rc=$?\n(${stats})\nexit $rc`,
    { shell: "sh", timeoutSec: limit, cwd: s.box.workdir },
  );
  const stat = run.timedOut ? await s.box.exec(stats, { shell: "sh", timeoutSec: 60 }) : run;
  const nl = stat.stdout.indexOf(0x0a);
  const [totalBytes, newlines, lastLineBytes] = text(stat.stdout.subarray(0, nl)).trim().split(/\s+/).map(Number);
  let tail = stat.stdout.subarray(nl + 1);
  let atLineStart = true;
  if (totalBytes > ROLLING_BYTES) {
    // The window starts inside the output: skip to a character start, then (like getSnapshotText) to a line start.
    let i = 1;
    while (i < tail.length && (tail[i] & 0xc0) === 0x80) i++;
    atLineStart = tail[i - 1] === 0x0a;
    tail = tail.subarray(i);
  }
  let snapshot = new TextDecoder().decode(tail);
  if (!atLineStart) {
    const first = snapshot.indexOf("\n");
    if (first !== -1) snapshot = snapshot.slice(first + 1);
  }
  const totalLines = newlines + 1;
  const truncated = totalLines > MAX_LINES || totalBytes > MAX_BYTES;
  const t = truncateTail(snapshot);
  const truncatedBy = truncated ? (t.truncatedBy ?? (totalBytes > MAX_BYTES ? "bytes" : "lines")) : null;
  const format = (emptyText: string) => {
    let out = t.content || emptyText;
    if (truncated) {
      const startLine = totalLines - t.outputLines + 1;
      if (t.lastLinePartial) {
        out += `\n\n[Showing last ${formatSize(t.outputBytes)} of line ${totalLines} (line is ` +
          `${formatSize(lastLineBytes)}). Full output: ${file}]`;
      } else if (truncatedBy === "lines") {
        out += `\n\n[Showing lines ${startLine}-${totalLines} of ${totalLines}. Full output: ${file}]`;
      } else {
        out += `\n\n[Showing lines ${startLine}-${totalLines} of ${totalLines} (${formatSize(MAX_BYTES)} limit). ` +
          `Full output: ${file}]`;
      }
    }
    return out;
  };
  const withStatus = (body: string, status: string) => `${body ? `${body}\n\n` : ""}${status}`;
  if (run.timedOut) {
    // With no timeout asked (or one above execTimeout) pi would still be waiting: the limit here is approx.
    throw new PiError(withStatus(format(""), `Command timed out after ${asked ?? limit} seconds`));
  }
  // A command killed by a signal has no exit code in Node (pi then reports success); here it is 128+n. approx.
  if (run.exitCode !== 0) {
    throw new PiError(withStatus(format("(no output)"), `Command exited with code ${run.exitCode}`));
  }
  return format("(no output)");
}
