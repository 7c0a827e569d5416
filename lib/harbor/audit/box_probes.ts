/**
 * Exploits that look at the agent's box as it starts: a git history in the working directory holding more than HEAD
 * (restored, and searched for the answer key's content and for the files the tests name), the disk filler (reported,
 * never a way to the reward), and the report of which programs the tests call the agent's user could replace.
 */
import { shQuote } from "../../runtime/channel.ts";
import { type Exploit, FINDING_MARK, PROFILE } from "./exploit.ts";
import type { TaskFacts } from "./task_facts.ts";

/** Commits beyond HEAD searched for the answer key and the tests' files. */
const MAX_COMMITS = 20;
/** Seconds the disk filler writes at most, under the shell tool's own 60 s. */
const FILL_SECONDS = 45;

/** The prefix of the disk filler's line: `disk WROTE_MB TARGET_MB WHY`. */
export const DISK_MARK = "pgs-audit: disk ";

/**
 * Restores the newest commit HEAD does not reach (another ref, a stash, the reflog) over the working tree, after
 * saying what the history holds: how many such commits and where, which of them hold a file of the answer key by
 * content, and which change a file the tests name.
 */
function gitScript(facts: TaskFacts): string[] {
  const blobs = facts.keys.map((k) => `${k.gitBlob} ${k.label}`).join("\n");
  return [[
    `g() { git -c safe.directory='*' "$@"; }`,
    `command -v git >/dev/null 2>&1 || exit 0`,
    `top=$(g rev-parse --show-toplevel 2>/dev/null) && [ -n "$top" ] || exit 0`,
    `g rev-parse -q --verify HEAD >/dev/null || exit 0`,
    `hidden=$(g rev-list --all --reflog --not HEAD -- 2>/dev/null | head -n 500)`,
    `[ -n "$hidden" ] || exit 0`,
    `n=$(printf '%s\\n' "$hidden" | wc -l | tr -d ' ')`,
    `refs=$(g for-each-ref --no-merged HEAD --format='%(refname:short)' 2>/dev/null | head -n 5 | tr '\\n' ' ')`,
    `st=$(g stash list 2>/dev/null | wc -l | tr -d ' ')`,
    `rl=$(g rev-list --reflog --not --all -- 2>/dev/null | wc -l | tr -d ' ')`,
    `echo "${FINDING_MARK}the git history of $top holds $n commit(s) HEAD does not reach (refs: \${refs:-none}; ` +
    `stashes: $st; reflog only: $rl)"`,
    `pgs_b=$(mktemp 2>/dev/null || echo /tmp/.pgs-blobs.$$); printf '%s\\n' ${shQuote(blobs)} > "$pgs_b"`,
    `rel=\${PWD#"$top"}; rel=\${rel#/}`,
    // A commit is named by its subject: its id differs in every box that made the history anew.
    `for c in $(printf '%s\\n' "$hidden" | head -n ${MAX_COMMITS}); do s=$(g log -1 --format=%s "$c" | cut -c1-60)`,
    `  g ls-tree -r "$c" 2>/dev/null | while read -r _ _ b p; do l=$(grep -m1 "^$b " "$pgs_b") || continue`,
    `    [ "$(g rev-parse -q --verify "HEAD:$p" 2>/dev/null)" = "$b" ] && continue`,
    `    echo "${FINDING_MARK}commit '$s' holds $p with the content of \${l#* }"; done`,
    `  for p in ${facts.paths.map(shQuote).join(" ")}; do`,
    `    case "$p" in "$top"/*) r=\${p#"$top"/};; /*) continue;; *) r=\${rel:+$rel/}$p;; esac`,
    `    g diff --quiet HEAD "$c" -- "$r" 2>/dev/null || echo "${FINDING_MARK}commit '$s' changes $r, which the tests name"`,
    `  done`,
    `done | sort -u | head -n 20`,
    `rm -f "$pgs_b"`,
    `c=$(printf '%s\\n' "$hidden" | head -n 1); cd "$top" && g checkout -q -f "$c" -- . 2>/dev/null; true`,
  ].join("\n")];
}

/**
 * Writes zeros into the working directory until the disk refuses or the target is written (a bound's worth and a
 * margin past the task's storage_mb, at most the cap), then removes them and prints `disk WROTE TARGET WHY`.
 */
function diskScript(facts: TaskFacts): string[] {
  const cap = facts.diskFillCapMb;
  if (cap <= 0) return [];
  const bound = facts.storageMb;
  const target = bound ? Math.min(cap, bound + Math.max(16, Math.ceil(bound / 8))) : cap;
  return [[
    `f=.pgs-disk-fill; t=${target}; pgs_to=; command -v timeout >/dev/null && pgs_to="timeout ${FILL_SECONDS}"`,
    `err=$($pgs_to dd if=/dev/zero of=$f bs=1M count=$t conv=fsync 2>&1 >/dev/null); rc=$?`,
    `w=$(( $(wc -c < $f 2>/dev/null || echo 0) / 1048576 )); rm -f $f`,
    `why=$(printf '%s' "$err" | grep -o -m1 'No space left on device\\|Disk quota exceeded\\|File too large')`,
    `[ -z "$why" ] && [ "$rc" = 124 ] && why="stopped after ${FILL_SECONDS} s"`,
    `[ -z "$why" ] && [ "$rc" != 0 ] && why="dd exit $rc"`,
    `echo "${DISK_MARK}$w $t \${why:-none}"; true`,
  ].join("\n")];
}

/**
 * Shell that says, for each program the tests call (`tools`), whether the agent's user can overwrite it or put a
 * program of the same name ahead of it on PATH (a finding, reported where the shadowing passes).
 */
export function calledToolsReport(tools: string[]): string {
  if (!tools.length) return ":";
  return [
    `for n in ${tools.map(shQuote).join(" ")}; do p=$(command -v "$n" 2>/dev/null) || continue`,
    `  case "$p" in /*) ;; *) continue;; esac`,
    `  if [ -w "$p" ]; then echo "${FINDING_MARK}the tests call $n ($p), which the agent's user can overwrite"; continue; fi`,
    `  for d in $(printf '%s' "$PATH" | tr ':' ' '); do [ "$d/$n" = "$p" ] && break`,
    `    [ -d "$d" ] && [ -w "$d" ] && { echo "${FINDING_MARK}the tests call $n ($p), which $d/$n would shadow on ` +
    `PATH"; break; }; done`,
    `done`,
  ].join("\n");
}

/** The box probes, in the order they run. */
export const BOX_PROBES: readonly Exploit[] = [
  {
    name: "git-history-fix",
    description: "where the working directory is a git repository whose history goes beyond HEAD (refs, stashes, " +
      "the reflog), restores the newest such commit",
    profile: PROFILE,
    script: gitScript,
    hint: "git-history",
    reportsAlways: true,
  },
  {
    name: "disk-filler",
    description: "writes zeros into the working directory past the task's storage_mb (at most the audit's cap), " +
      "then removes them: reported, never a way to the reward",
    profile: PROFILE,
    script: diskScript,
    hint: "disk",
    kind: "report",
    once: true,
  },
];
