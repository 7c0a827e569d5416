/**
 * The shell side of the fast exec channel: a POSIX sh loop that runs inside the container under one long-lived
 * `docker exec -i`. It needs /bin/sh plus `head`, `rm`, `chmod` and (only for output past the cap) `wc` (coreutils or
 * busybox); `setsid`, when present, puts each command in its own process group so a timeout kills the whole group.
 *
 * Start: the client first sends `PGS-HELPER N` and N bytes: the static helper of `channel_helper/helper.c` for the
 * container's architecture (N = 0 for none). When it runs here, it replaces `setsid` and `head`, whose dynamic
 * loading costs ~1.2 ms per exec on a small VM. The server answers `PGS-READY SETSID SHELL HELPER`.
 * Requests: a line `ID MODE CAP MARK CWD K`, then the script as K lines (its text split at newlines, so the last line
 * is empty when the script ends with one). MODE is `s` (/bin/sh) or `b` (bash -l), upper-case to merge stderr into
 * stdout; CAP is the byte cap per stream; MARK is a random token the client draws per command; CWD is the directory to
 * start in (`.` for the server's; it has no spaces or backslashes, the client puts other directories in the script).
 * Lines are read with the `read` builtin, so a command costs no fork before its own. The script runs as
 * `/bin/sh -c SCRIPT` (or `bash -lc`), as a harness's subprocess would, so `$0` and error messages read as they do
 * there; scripts too long for an argument run from a file.
 * Replies: `PGS-PID ID PID` when the command starts; `PGS-HELD ID` when it exited but a process of its group still
 * holds its output (the client then sends an empty line every 50 ms until the end); then `PGS-END ID RC` followed
 * by up to CAP+1 bytes of stdout, MARK, up to CAP+1 bytes of stderr, MARK. Framing by the mark instead of by counts spares a `wc` per command (a
 * fork+exec, ~1.3 ms here); a stream longer than CAP is sized afterwards by a request `ID z 0 - . 1` whose one line
 * is the command's ID, answered `PGS-SIZE ID OUT ERR` (the files of the last command are still there then).
 */
export const CHANNEL_SERVER = String.raw`
d="\${TMPDIR:-/tmp}/.pgs-ch.$$"
mkdir -p "$d" 2>/dev/null || { d="$HOME/.pgs-ch.$$"; mkdir -p "$d" || exit 97; }
# Where a command's output goes when "$d" takes no new file (the box's disk at its bound): a tmpfs, so the agent
# still reads what its commands say, "No space left on device" included, and can free room.
d2=/dev/shm/.pgs-ch.$$; ld=$d
S=; command -v setsid >/dev/null 2>&1 && S=setsid
S0=$S
B=/bin/sh; P=/bin/sh; command -v bash >/dev/null 2>&1 && B=bash && P=$(command -v bash)
X=; IFS= read -r h; h=\${h#PGS-HELPER }
if [ "$h" -gt 0 ] 2>/dev/null; then
  # A dot file, so the every-64-commands sweep of "$d"/* keeps it.
  head -c "$h" > "$d/.h" && chmod 700 "$d/.h" && "$d/.h" -e /bin/sh sh -c 'exit 0' 2>/dev/null && X="$d/.h" && S=helper
fi
printf 'PGS-READY %s %s %s\n' "\${S:-none}" "$B" "\${X:+helper}"
run() {
  cd "$w" || exit 1
  if [ -n "$X" ]; then exec "$X" -e "$e" "$sh" $o "$1"; else exec $S $sh $o "$1"; fi
}
# A process that vanished between the glob and its test counts as a holder: a fork bomb's members live for
# milliseconds, so a scan of them alone can find every one gone while their children hold the output; the next
# tick looks again.
held() {
  for o in /proc/[0-9]*/fd/[12]; do
    [ "$o" -ef "$f.o" ] || [ "$o" -ef "$f.e" ] || [ ! -e "$o" ] && return 0
  done
  return 1
}
n=0
while IFS= read -r l; do
  [ -n "$l" ] || continue # a tick that came after the command was over
  i=\${l%% *}; l=\${l#* }; m=\${l%% *}; l=\${l#* }; c=\${l%% *}; l=\${l#* }; t=\${l%% *}; l=\${l#* }
  w=\${l%% *}; k=\${l#* }
  IFS= read -r q; while [ "$k" -gt 1 ]; do IFS= read -r x; q="$q
$x"; k=$((k-1)); done
  if [ "$m" = z ]; then
    set -- $(wc -c "$ld/$q.o" "$ld/$q.e" 2>/dev/null) 0 x 0 x
    printf 'PGS-SIZE %s %s %s\n' "$i" "$1" "$3"; continue
  fi
  [ -d "$d" ] || mkdir -p "$d"
  # The agent may have emptied the temp folder: then the image's setsid and head take over.
  if [ -n "$X" ] && [ ! -x "$X" ]; then X=; S=$S0; fi
  n=$((n+1)); if [ $n -ge 64 ]; then rm -f "$d"/* "$d2"/* 2>/dev/null; n=0; fi
  f="$d/$i"
  if ! { : >"$f.o"; } 2>/dev/null; then mkdir -p "$d2" 2>/dev/null; f="$d2/$i"; fi
  ld=\${f%/*}
  case $m in s|S) sh=/bin/sh; e=/bin/sh; o=-c;; *) sh=$B; e=$P; o=-lc;; esac
  if [ \${#q} -ge 100000 ]; then printf '%s' "$q" > "$f.s"; q="$f.s"; o=\${o%c}; fi
  case $m in
    s|b) run "$q" >"$f.o" 2>"$f.e" </dev/null & ;;
    *) : >"$f.e"; run "$q" >"$f.o" 2>&1 </dev/null & ;;
  esac
  p=$!
  printf 'PGS-PID %s %s\n' "$i" "$p"
  wait "$p"; r=$?
  # Over only once no process holds its output open, as for a harness reading pipes: a background job that still
  # writes there (a fork bomb) keeps the command running until its timeout; one sent elsewhere (nohup ... >log &)
  # does not. A builtin probe first: the usual command leaves no process in its group. While held, the server waits
  # on the client's ticks (empty lines, one per 50 ms) rather than forking a sleep, which a fork bomb would deny.
  if kill -0 -"$p" 2>/dev/null && held; then
    printf 'PGS-HELD %s\n' "$i"
    while IFS= read -r _ && kill -0 -"$p" 2>/dev/null && held; do :; done
  fi
  c=$((c+1))
  if [ ! -s "$f.o" ] && [ ! -s "$f.e" ]; then printf 'PGS-END %s %s\n%s%s' "$i" "$r" "$t" "$t"
  elif [ -n "$X" ]; then
    printf 'PGS-END %s %s\n' "$i" "$r"
    # 126/127: the helper did not run, so it wrote nothing; the marks still end the reply.
    "$X" -r "$c" "$t" "$f.o" "$f.e" || [ $? -lt 126 ] || printf '%s%s' "$t" "$t"
  else
    printf 'PGS-END %s %s\n' "$i" "$r"
    [ -s "$f.o" ] && head -c "$c" "$f.o"; printf '%s' "$t"
    [ -s "$f.e" ] && head -c "$c" "$f.e"; printf '%s' "$t"
  fi
done
rm -rf "$d" "$d2"
`.replaceAll("\\$", "$");

/**
 * Kills a timed-out channel command and everything it started, as root, given the command's pid and, on a retry, the
 * start time an earlier attempt printed. It kills the command's process group while any member is left, then every
 * process that escaped it: one in the command's session (`set -m` jobs), or started since the command began (`setsid`
 * escapes; commands on one channel run one at a time, so anything that new is the command's, or a background job's
 * child). Builtins only, so that it works while a fork bomb holds every pid. It prints `PGS-KILL START` (`-` when the
 * command was gone before its start time could be read) and returns 0 once no such process is left, zombies included
 * (they hold pids until reaped), else 3: the caller asks again.
 */
const KILL_FUNCTION = String.raw`
pgs_kill() {
  p=$1; st=\${2#-}
  if [ -z "$2" ] && read -r x < /proc/$p/stat 2>/dev/null; then x=\${x##*) }; set -- $x; shift 19; st=$1; fi
  printf 'PGS-KILL %s\n' "\${st:--}"
  n=0; while kill -9 -"$p" 2>/dev/null && [ $n -lt 200 ]; do n=$((n+1)); done
  for pass in 1 2 3; do
    left=0
    for s in /proc/[0-9]*/stat; do
      q=\${s#/proc/}; q=\${q%/stat}
      [ "$q" = 1 ] || [ "$q" = $$ ] && continue
      read -r x < "$s" 2>/dev/null || continue
      x=\${x##*) }; set -- $x
      # $1 state, $3 process group, $4 session; field 22 (start time) is $20
      if [ "$3" = "$p" ] || [ "$4" = "$p" ] || { [ -n "$st" ] && [ "\${20:-0}" -ge "$st" ]; }; then
        left=$((left+1)); [ "$1" = Z ] || kill -9 "$q" 2>/dev/null
      fi
    done
    [ $left -eq 0 ] && return 0
  done
  return 3
}
`;

/** One kill through its own `docker exec` (`sh -c KILL_SCRIPT kill PID [START]`): the killer's fallback. */
export const KILL_SCRIPT = (KILL_FUNCTION + String.raw`pgs_kill "$1" "$2"; exit $?
`).replaceAll("\\$", "$");

/**
 * The killer: a root shell that each channel keeps beside its server, reading `PID START` lines (START `-` on a first
 * attempt) and answering `PGS-KILL START` then `PGS-KILLED RC`; it says `PGS-KILLER` when it is ready. It exists
 * because a fresh `docker exec` needs a free pid, which a fork bomb may deny for as long as it runs; a resident shell
 * with builtins needs none. It holds one pid of the task's `pids_limit` (the server holds another).
 */
export const KILLER_SERVER = (KILL_FUNCTION + String.raw`
echo PGS-KILLER
while IFS= read -r l; do
  set -- $l
  pgs_kill "$1" "$2"; printf 'PGS-KILLED %s\n' "$?"
done
`).replaceAll("\\$", "$");

/** The script as the server reads it: its line count, then its lines (cut at a NUL, as an argv string would be). */
export function encodeBody(script: string): string {
  const nul = script.indexOf("\0");
  const text = nul < 0 ? script : script.slice(0, nul);
  const lines = text.split("\n");
  return `${lines.length}\n${lines.join("\n")}\n`;
}
