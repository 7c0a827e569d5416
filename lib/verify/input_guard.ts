/**
 * The verifier's inputs cannot be named by the agent. Just before the tests run, in the box they run in and as root,
 * every symbolic link the agent could have made that resolves into what the verifier put there (`/tests`,
 * `/solution`, `/logs/verifier`, `/logs/agent`, a separate verifier's tests folder) is removed, and so is a link
 * through `/proc`'s or `/dev/fd`'s per-reader links (which name whatever the reading process holds); FIFOs, sockets
 * and device nodes in the agent's work are removed too, since a test that opens one would block on it or read without
 * end. Each removal is printed as a frame (`PGS-NEUTRAL kind plen tlen` + the path's and the target's bytes).
 *
 * Why removal in the box, not a filter on the copy: the box's own resolution (the kernel's, through `readlink -m`)
 * follows chains through links of the image and of the agent, relative targets and `..` exactly as the tests' reads
 * will, and the same script serves every mode, including those where no copy is made (shared, snapshot). Hard links
 * cannot reach these inputs: every one of them is made anew (a new inode) after the agent's last command. Binds need
 * a capability no box is given.
 */
import { shQuote } from "../runtime/channel.ts";

/** The folders the verifier fills: no link of the agent's may resolve into them. */
export const VERIFIER_INPUTS = ["/tests", "/solution", "/logs/verifier", "/logs/agent"];

/** Where to look before the tests run. */
export interface InputGuard {
  /** Roots searched for links into the inputs (`/`: the whole box but /proc, /sys and /dev, /dev/shm included). */
  links: string[];
  /** Roots searched for FIFOs, sockets and device nodes (the agent's work: the working directory, the artifacts). */
  specials: string[];
  /** More folders the verifier fills (a separate verifier's tests folder). */
  inputs?: string[];
}

/** One thing removed before the tests ran. */
export interface Neutralised {
  /** Its absolute path in the verifier's box. */
  path: string;
  /** What it was. */
  kind: "symlink" | "fifo" | "socket" | "device";
  /** A link's target, as the agent wrote it. */
  target?: string;
}

/** Frames kept in a result: past this many, removals are counted, not listed. */
export const NEUTRALISED_LISTED = 50;

/**
 * The shell lines that neutralise what `guard` names, for a root script under `/bin/sh`. Links are resolved a batch
 * at a time (one `readlink -m` for each of find's batches); only a batch in which some link resolves into an input,
 * onto a folder holding one (`/`, `/logs`: the tests' own path would then lead in), or through a per-reader link is
 * looked at link by link. A resolved path starts with `/`, so its first line shows it even when it holds a newline.
 */
export function guardScript(guard: InputGuard): string {
  const inputs = [...new Set([...VERIFIER_INPUTS, ...(guard.inputs ?? [])])].filter((p) => p !== "/");
  const ancestors = [...new Set(inputs.flatMap(ancestorsOf))];
  // One path per line of `$r` (a single resolution) or of `$all` (a batch, with a newline before and after).
  const inside = [...inputs.map((p) => `${shQuote(p)}|${shQuote(`${p}/`)}*`), ...ancestors.map(shQuote)].join("|");
  const inBatch = [
    ...inputs.flatMap((p) => [`*${shQuote(`${NL}${p}/`)}*`, `*${shQuote(`${NL}${p}${NL}`)}*`]),
    ...ancestors.map((a) => `*${shQuote(`${NL}${a}${NL}`)}*`),
  ].join("|");
  const magic = ["*proc/*/cwd", "*proc/*/cwd/*", "*proc/*/root", "*proc/*/root/*", "*proc/*/fd/*", "*proc/*/fd"]
    .concat(["*proc/*/map_files/*", "*/dev/fd/*", "*/dev/fd", "/dev/std*", "*/dev/std*"]);
  const check = [
    `LC_ALL=C; export LC_ALL`,
    `all=$(readlink -m -- "$@" 2>/dev/null) || all=/`,
    `raws=$(readlink -- "$@" 2>/dev/null)`,
    `case "${NL}$all${NL}" in ${inBatch}) ;; *) case "$raws" in ${magic.join("|")}) ;; *) exit 0;; esac;; esac`,
    // Every link of the batch is judged before any is removed: a chain through a removed link would dangle instead.
    `i=0; hits=' '`,
    `for p do`,
    `  i=$((i+1)); raw=$(readlink -- "$p") || continue`,
    `  r=$(readlink -m -- "$p" 2>/dev/null) || r=$(readlink -f -- "$p" 2>/dev/null) || r=$raw`,
    `  case "$r" in ${inside}) ;; *) case "$raw" in ${magic.join("|")}) ;; *) continue;; esac;; esac`,
    `  hits="$hits$i "`,
    `done`,
    `i=0`,
    `for p do`,
    `  i=$((i+1)); case "$hits" in *" $i "*) ;; *) continue;; esac`,
    `  raw=$(readlink -- "$p") && rm -f -- "$p" && printf 'PGS-NEUTRAL symlink %s %s\\n%s%s' "\${#p}" "\${#raw}" "$p" "$raw"`,
    `done`,
  ].join("\n");
  const special = [
    `LC_ALL=C; export LC_ALL`,
    `for p do`,
    `  if [ -p "$p" ]; then k=fifo; elif [ -S "$p" ]; then k=socket; else k=device; fi`,
    `  rm -f -- "$p" && printf 'PGS-NEUTRAL %s %s 0\\n%s' "$k" "\${#p}" "$p"`,
    `done`,
  ].join("\n");
  const lines: string[] = [];
  if (guard.links.length) {
    const whole = guard.links.includes("/");
    const roots = whole ? ["/", "/dev/shm"] : guard.links;
    const prune = whole ? ["/proc", "/sys", "/dev", ...inputs] : inputs;
    const pruneExpr = `\\( ${prune.map((p) => `-path ${shQuote(p)}`).join(" -o ")} \\) -prune -o`;
    const R = roots.map(shQuote).join(" ");
    lines.push(`find ${R} ${pruneExpr} -type l -exec /bin/sh -c ${shQuote(check)} pgs-guard {} + 2>/dev/null`);
  }
  if (guard.specials.length) {
    const R = guard.specials.map(shQuote).join(" ");
    const kinds = `\\( -type p -o -type s -o -type b -o -type c \\)`;
    lines.push(`find ${R} ${kinds} -exec /bin/sh -c ${shQuote(special)} pgs-guard {} + 2>/dev/null`);
  }
  // The guard never fails the script: what it could not look at is what the tests would find anyway.
  if (lines.length) lines.push(`:`);
  return lines.join("\n");
}

const NL = "\n";

/** `/` and every folder above `p` (`/logs` for `/logs/agent`). */
function ancestorsOf(p: string): string[] {
  const parts = p.split("/").filter(Boolean);
  return ["/", ...parts.slice(0, -1).map((_, i) => `/${parts.slice(0, i + 1).join("/")}`)];
}

const dec = new TextDecoder();

/**
 * Reads one `PGS-NEUTRAL kind plen tlen` frame's bytes at `i` of `out` (the header line already read); returns the
 * entry and the index past it.
 */
export function readNeutralFrame(
  header: string,
  out: Uint8Array,
  i: number,
): { entry: Neutralised; next: number } | undefined {
  const m = header.match(/^PGS-NEUTRAL (symlink|fifo|socket|device) (\d+) (\d+)$/);
  if (!m) return undefined;
  const [plen, tlen] = [Number(m[2]), Number(m[3])];
  const path = dec.decode(out.subarray(i, i + plen));
  const target = dec.decode(out.subarray(i + plen, i + plen + tlen));
  const entry: Neutralised = { path, kind: m[1] as Neutralised["kind"], ...(tlen ? { target } : {}) };
  return { entry, next: i + plen + tlen };
}
