/**
 * The verifier's box tied to a pipe (`BoxSpec.pipe`): its main process is a one-request server on its stdin, so that
 * the tests' inputs (tests/ and the working directory as one tar, the final message, capture.json), the script and
 * its framed results all travel through the `run -i --rm` pgs already holds, and closing that pipe removes the box.
 * No `cp`, `exec` or `rm` of the engine is on the verifier's path. A box whose image cannot read an exact byte count
 * from a pipe (no GNU `head` and `tar`) says `plain`, and is then verified through execs and copies like any other.
 */
import type { Box, ProcResult } from "../runtime/runtime.ts";

/** The ready line's first word. */
export const TIED_READY = "PGS-TIED";

/**
 * The main process. It says whether the image has GNU tar and coreutils' head (which reads no byte past its count),
 * then reads one request, `n mark` and a script of n bytes, and runs it on the rest of its stdin with stderr to a file;
 * then prints `\nPGS-DONE-<mark> rc errbytes` and the stderr, and idles until its stdin ends. The end of stdin
 * before a request ends it at once.
 */
export const TIED_VERIFIER_MAIN = [
  `case "$(tar --version 2>/dev/null; head --version 2>/dev/null)" in`,
  `  *"GNU tar"*"GNU coreutils"*) echo "${TIED_READY} exact" ;;`,
  `  *) echo "${TIED_READY} plain" ;;`,
  `esac`,
  `IFS=' ' read -r n mark || exit 0`,
  `s=$(head -c "$n") || exit 0`,
  `e=/tmp/.pgs-stderr; [ -d /tmp ] || e=/.pgs-stderr`,
  `/bin/sh -c "$s" 2>"$e"`,
  `rc=$?`,
  `printf '\\nPGS-DONE-%s %s %s\\n' "$mark" "$rc" "$(wc -c < "$e")"`,
  `cat "$e"`,
  `exec cat >/dev/null`,
].join("\n");

const enc = new TextEncoder();
const dec = new TextDecoder();

/** True when `box` is a tied verifier box that takes its inputs through its pipe. */
export function tiedExact(box: Box): boolean {
  return box.main?.hello === `${TIED_READY} exact` && !box.main.busy;
}

/**
 * Runs `script` (as root, in the box's working directory) through the tied box's main process with `input` on its
 * stdin, bounded by `timeoutMs`; once only. A script still running at its bound leaves the box busy (its removal
 * kills it).
 */
export async function runTied(box: Box, script: string, input: Uint8Array, timeoutMs: number): Promise<ProcResult> {
  const pipe = box.main;
  if (!pipe) throw new Error("runTied: the box is not tied to a pipe");
  pipe.busy = true;
  const release = pipe.hold();
  const mark = crypto.randomUUID().replaceAll("-", "");
  const body = enc.encode(script);
  const request = new Uint8Array([...enc.encode(`${body.length} ${mark}\n`), ...body]);
  const none = new Uint8Array();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"timeout">((ok) => timer = setTimeout(() => ok("timeout"), timeoutMs));
  const work = (async () => {
    // Written while the reply is read: a large input must not wait on a full stdout pipe.
    const writing = pipe.writer.write(request).then(() => pipe.writer.write(input)).catch(() => {});
    const out = await pipe.reader.readUntil(enc.encode(`\nPGS-DONE-${mark} `));
    const tail = out && await pipe.reader.readLine();
    await writing;
    return { out, tail };
  })();
  try {
    const r = await Promise.race([work, expired]);
    if (r === "timeout") return { code: 137, stdout: none, stderr: "", stderrRaw: none, timedOut: true };
    const [rc, errBytes] = (r.tail ?? "").split(" ").map(Number);
    if (!r.out || r.tail === null || !Number.isInteger(rc)) {
      // The main process went (the tests may stop their own box): what it printed is all there is.
      const status = await pipe.status.catch(() => ({ code: -1 }));
      pipe.busy = false;
      return { code: status.code, stdout: r.out ?? none, stderr: "", stderrRaw: none, timedOut: false };
    }
    const err = (Number.isInteger(errBytes) && errBytes > 0 && await pipe.reader.readExact(errBytes)) || none;
    pipe.busy = false;
    return { code: rc, stdout: r.out, stderr: dec.decode(err).trim(), stderrRaw: err, timedOut: false };
  } finally {
    clearTimeout(timer);
    release();
  }
}
