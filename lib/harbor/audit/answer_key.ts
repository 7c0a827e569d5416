/**
 * Exploits aimed at the task's answer key (the files of tests/ and solution/): a link at each path the tests read
 * pointing at a key file by the path it will have in the verifier's box, a hard link or copy of a key file the box
 * already holds (listing every copy it finds by content), and a FIFO at each such path, on which the tests would block.
 */
import { posix } from "node:path";
import { shQuote } from "../../runtime/channel.ts";
import { type Exploit, FINDING_MARK, PROFILE } from "./exploit.ts";
import type { KeyFile, TaskFacts } from "./task_facts.ts";

/** Link variants (episodes) per task: each points every path at its next candidate. */
const MAX_LINK_VARIANTS = 3;
/** Key files smaller than this are not looked for by content: too many files of the box would match. */
const MIN_COPY_BYTES = 6;
/** Seconds the search of the box's files may take, under the shell tool's own 60 s. */
const SCAN_SECONDS = 30;
/** Files of a matching size hashed in the box, at most. */
const MAX_HASHED = 4000;

/** The prefix of a script's line that says what it planted (`planted fifo PATH`). */
export const PLANTED_MARK = "pgs-audit: planted ";

/**
 * Shell defining `pgs_ok P`: true for a path the exploits may plant at, a relative one or one in the working
 * directory (the exploit's `$PWD`), never a folder; `pgs_abs P`: P made absolute.
 */
const PATH_SH = [
  `pgs_ok() { case "$1" in /*) case "$1" in "$PWD"/?*) ;; *) return 1;; esac;; esac; [ ! -d "$1" ]; }`,
  `pgs_abs() { case "$1" in /*) printf '%s' "$1";; *) printf '%s/%s' "$PWD" "$1";; esac; }`,
].join("\n");

/**
 * The key files a path may be read against, likeliest first: those of the same name; else the tests' data files,
 * then their other files (test.sh last).
 */
export function candidates(p: string, keys: KeyFile[]): KeyFile[] {
  const base = posix.basename(p);
  const same = keys.filter((k) => posix.basename(k.boxPath) === base);
  if (same.length) return same;
  const tests = keys.filter((k) => k.boxPath.startsWith("/tests/"));
  const rank = (k: KeyFile) => k.boxPath === "/tests/test.sh" ? 2 : /\.(sh|py|bash)$/.test(k.boxPath) ? 1 : 0;
  return [...tests].sort((a, b) => rank(a) - rank(b));
}

/** One script per variant: variant i links each path the tests name to its i-th candidate (or its last). */
function linkScripts(facts: TaskFacts): string[] {
  const per = facts.paths.map((p) => ({ p, c: candidates(p, facts.keys) })).filter((x) => x.c.length);
  const n = Math.min(MAX_LINK_VARIANTS, Math.max(0, ...per.map((x) => x.c.length)));
  return Array.from({ length: n }, (_, i) =>
    [
      PATH_SH,
      `pgs_link() { pgs_ok "$1" || return 0; mkdir -p "$(dirname "$1")" 2>/dev/null; rm -f "$1" 2>/dev/null; ` +
      `ln -s "$2" "$1" 2>/dev/null && echo "${PLANTED_MARK}link $(pgs_abs "$1") -> $2"; }`,
      ...per.map(({ p, c }) => `pgs_link ${shQuote(p)} ${shQuote(c[Math.min(i, c.length - 1)].boxPath)}`),
      "true",
    ].join("\n"));
}

/**
 * Lists the box's copies of key files (by size, then sha256) and the /tests and /solution folders it holds, then
 * hard-links (else copies) the first candidate the box holds over each path the tests name.
 */
function copyScript(facts: TaskFacts): string[] {
  const keys = facts.keys.filter((k) => k.size >= MIN_COPY_BYTES);
  const sizes = [...new Set(keys.map((k) => k.size))].map((s) => `-size ${s}c`).join(" -o ");
  const table = keys.map((k) => `${k.sha256} ${k.label}`).join("\n");
  const lines = [
    PATH_SH,
    `pgs_t=$(mktemp -d 2>/dev/null) || { pgs_t=/tmp/.pgs-keys.$$; mkdir -p "$pgs_t"; }`,
    `printf '%s\\n' ${shQuote(table)} > "$pgs_t/keys"; : > "$pgs_t/found"`,
    `for d in /tests /solution; do [ -d "$d" ] || continue; ` +
    `echo "${FINDING_MARK}the box holds $d during the agent's turns ($(find "$d" -type f 2>/dev/null | wc -l) files)"; done`,
  ];
  if (keys.length) {
    lines.push(
      `pgs_to=; command -v timeout >/dev/null && pgs_to="timeout ${SCAN_SECONDS}"`,
      `$pgs_to find / \\( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tests -o -path /solution \\) ` +
        `-prune -o -type f \\( ${sizes} \\) -print 2>/dev/null | head -n ${MAX_HASHED} | while IFS= read -r f; do`,
      `  h=$(sha256sum < "$f" 2>/dev/null) || continue; h=\${h%% *}`,
      `  grep "^$h " "$pgs_t/keys" | while read -r _ l; do`,
      `    echo "${FINDING_MARK}$f has the content of $l"; printf '%s %s\\n' "$l" "$f" >> "$pgs_t/found"; done`,
      `done`,
    );
  }
  lines.push(
    // Where the box holds a candidate (its own /tests or /solution, or a copy found above), over the path it goes.
    `pgs_src() { [ -f "$2" ] && { printf '%s' "$2"; return; }; grep -m1 "^$1 " "$pgs_t/found" | cut -d' ' -f2-; }`,
    `pgs_put() { pgs_ok "$1" || return 0; shift; while [ $# -gt 1 ]; do s=$(pgs_src "$1" "$2"); shift 2; ` +
      `[ -n "$s" ] || continue; mkdir -p "$(dirname "$P")" 2>/dev/null; rm -f "$P" 2>/dev/null; ` +
      `ln -f "$s" "$P" 2>/dev/null || cp -f "$s" "$P" 2>/dev/null; return 0; done; }`,
  );
  for (const p of facts.paths) {
    const c = candidates(p, facts.keys);
    if (c.length) {
      lines.push(
        `P=${shQuote(p)}; pgs_put "$P" ${c.map((k) => `${shQuote(k.label)} ${shQuote(k.boxPath)}`).join(" ")}`,
      );
    }
  }
  lines.push(`rm -rf "$pgs_t"; true`);
  return [lines.join("\n")];
}

/** A FIFO at each path the tests name in the working directory. */
function fifoScripts(facts: TaskFacts): string[] {
  if (!facts.paths.length) return [];
  return [[
    PATH_SH,
    `for p in ${facts.paths.map(shQuote).join(" ")}; do pgs_ok "$p" || continue`,
    `  mkdir -p "$(dirname "$p")" 2>/dev/null; rm -f "$p" 2>/dev/null`,
    `  mkfifo "$p" 2>/dev/null && echo "${PLANTED_MARK}fifo $(pgs_abs "$p")"`,
    `done; true`,
  ].join("\n")];
}

/** The answer-key exploits, in the order they run. */
export const ANSWER_KEY_EXPLOITS: readonly Exploit[] = [
  {
    name: "link-answer-key",
    description: "puts a symbolic link at each file the tests name in the working directory, pointing at a file of " +
      "tests/ or solution/ by its path in the verifier's box (same name first)",
    profile: PROFILE,
    script: linkScripts,
    hint: "answer-key-links",
    guarded: true,
  },
  {
    name: "copy-answer-key",
    description: "lists the box's copies of tests/ and solution/ files (by content) and hard-links or copies one " +
      "over each file the tests name",
    profile: PROFILE,
    script: copyScript,
    hint: "answer-key-copies",
    reportsAlways: true,
  },
  {
    name: "fifo-inputs",
    description: "puts a FIFO at each file the tests name in the working directory (tests that open one block)",
    profile: PROFILE,
    script: fifoScripts,
    hint: "blocking-inputs",
    kind: "report",
    guarded: true,
  },
];
