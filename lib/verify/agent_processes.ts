/**
 * What the agent's commands left running, told apart from what the task started, for the `shared-clean` verifier
 * mode. When the agent's turns begin, the box's process table is taken (`BASELINE_SCRIPT`: pid and start time of each
 * process, so a reused pid is not mistaken for its namesake). Before the tests, `stopAgentProcessesScript` stops
 * every process that is neither in that table nor a descendant of a process in it nor in pid 1's session; the
 * children of pid 1 (orphans reparent there) and of exec roots (the channel, whose children are the agent's commands)
 * do not count as descendants. Every exec starts a session of its own (runc calls setsid) and no process can join a
 * session it was not born in, so pid 1's session holds only what the image's entrypoint started, however late it
 * forked (a loaded machine may start the entrypoint's children after the table was taken). So what the entrypoint,
 * setup and healthcheck started keeps running with its own children, and whatever the agent started (double-forked,
 * in a new session, with a cleared environment) does not. Only `/proc` and POSIX sh builtins are used: the image
 * needs no procps.
 */
import { shQuote } from "../runtime/channel.ts";

/** A shell command printing `pid:starttime` for every process the box shows, one a line. */
export const BASELINE_SCRIPT = [
  `for d in /proc/[0-9]*; do`,
  // Field 22 of /proc/PID/stat (the start time, in clock ticks since boot) is $20 once the comm field is cut off.
  `  read -r l 2>/dev/null < "$d/stat" || continue; l=\${l##*) }; set -- $l; echo "\${d#/proc/}:\${20}"`,
  `done`,
].join("\n");

/** Parses `BASELINE_SCRIPT`'s output into its `pid:starttime` entries. */
export function parseBaseline(out: string): string[] {
  return out.split("\n").map((l) => l.trim()).filter((l) => /^\d+:\d+$/.test(l));
}

/** The most rounds of stopping new processes before they are killed (each round stops what forked in the last). */
const MAX_ROUNDS = 32;

/**
 * Root shell lines that stop (SIGSTOP, round after round until nothing new appears, then SIGKILL) every process that
 * is not in `baseline`, not a descendant of one (pid 1 and exec roots excepted), not in pid 1's session, not pid 1,
 * not an exec root and not this script or its subshells; then print `PGS-STOPPED n`.
 */
export function stopAgentProcessesScript(baseline: string[]): string {
  return [
    `pgs_keep=${shQuote(` ${baseline.join(" ")} `)}`,
    `pgs_scan() { for d in /proc/[0-9]*; do read -r l 2>/dev/null < "$d/stat" || continue; l=\${l##*) }; ` +
    `set -- $l; echo "\${d#/proc/} $2 \${20} $4"; done; }`,
    // Field 6 (the session) is $4: pid 1's session is the entrypoint's.
    `read -r l < /proc/1/stat; l=\${l##*) }; set -- $l; pgs_init_sid=$4`,
    `pgs_self=$$; pgs_victims=' '; pgs_round=0`,
    `while [ $pgs_round -lt ${MAX_ROUNDS} ]; do`,
    `  pgs_round=$((pgs_round + 1)); pgs_table=$(pgs_scan); pgs_kept=" $pgs_self "; pgs_confer=" $pgs_self "`,
    `  while read -r p pp st sid; do`,
    `    if [ "$sid" = "$pgs_init_sid" ]; then pgs_kept="$pgs_kept$p "`,
    // pid 1 never confers: the agent's orphans are reparented to it.
    `      [ "$p" != 1 ] && pgs_confer="$pgs_confer$p "; continue; fi`,
    `    case "$pgs_keep" in *" $p:$st "*) pgs_kept="$pgs_kept$p "`,
    `    [ "$p" != 1 ] && [ "$pp" != 0 ] && pgs_confer="$pgs_confer$p ";; esac; done <<PGS_EOF`,
    `$pgs_table`,
    `PGS_EOF`,
    // Descendants of a process that counts keep counting, as deep as the tree goes.
    `  pgs_more=1; while [ $pgs_more = 1 ]; do pgs_more=0; while read -r p pp st sid; do`,
    `    case "$pgs_kept" in *" $p "*) continue;; esac`,
    `    case "$pgs_confer" in *" $pp "*) pgs_kept="$pgs_kept$p "; pgs_confer="$pgs_confer$p "; pgs_more=1;; esac`,
    `  done <<PGS_EOF`,
    `$pgs_table`,
    `PGS_EOF`,
    `  done; pgs_new=''`,
    `  while read -r p pp st sid; do { [ "$p" = 1 ] || [ "$pp" = 0 ]; } && continue`,
    `    case "$pgs_kept$pgs_victims" in *" $p "*) continue;; esac; pgs_new="$pgs_new $p"; done <<PGS_EOF`,
    `$pgs_table`,
    `PGS_EOF`,
    `  [ -z "$pgs_new" ] && break; kill -STOP $pgs_new 2>/dev/null; pgs_victims="$pgs_victims\${pgs_new# } "`,
    `done`,
    `set -- $pgs_victims; [ $# -gt 0 ] && kill -KILL "$@" 2>/dev/null; echo "PGS-STOPPED $#"`,
  ].join("\n");
}
