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
 * Replies: `PGS-PID ID PID` when the command starts, then `PGS-END ID RC` followed by up to CAP+1 bytes of stdout,
 * MARK, up to CAP+1 bytes of stderr, MARK. Framing by the mark instead of by counts spares a `wc` per command (a
 * fork+exec, ~1.3 ms here); a stream longer than CAP is sized afterwards by a request `ID z 0 - . 1` whose one line
 * is the command's ID, answered `PGS-SIZE ID OUT ERR` (the files of the last command are still there then).
 */
export const CHANNEL_SERVER = String.raw`
d="\${TMPDIR:-/tmp}/.pgs-ch.$$"
mkdir -p "$d" 2>/dev/null || { d="$HOME/.pgs-ch.$$"; mkdir -p "$d" || exit 97; }
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
n=0
while IFS= read -r l; do
  i=\${l%% *}; l=\${l#* }; m=\${l%% *}; l=\${l#* }; c=\${l%% *}; l=\${l#* }; t=\${l%% *}; l=\${l#* }
  w=\${l%% *}; k=\${l#* }
  IFS= read -r q; while [ "$k" -gt 1 ]; do IFS= read -r x; q="$q
$x"; k=$((k-1)); done
  if [ "$m" = z ]; then
    set -- $(wc -c "$d/$q.o" "$d/$q.e" 2>/dev/null) 0 x 0 x
    printf 'PGS-SIZE %s %s %s\n' "$i" "$1" "$3"; continue
  fi
  [ -d "$d" ] || mkdir -p "$d"
  # The agent may have emptied the temp folder: then the image's setsid and head take over.
  if [ -n "$X" ] && [ ! -x "$X" ]; then X=; S=$S0; fi
  n=$((n+1)); if [ $n -ge 64 ]; then rm -f "$d"/*; n=0; fi
  f="$d/$i"
  case $m in s|S) sh=/bin/sh; e=/bin/sh; o=-c;; *) sh=$B; e=$P; o=-lc;; esac
  if [ \${#q} -ge 100000 ]; then printf '%s' "$q" > "$f.s"; q="$f.s"; o=\${o%c}; fi
  case $m in
    s|b) run "$q" >"$f.o" 2>"$f.e" </dev/null & ;;
    *) : >"$f.e"; run "$q" >"$f.o" 2>&1 </dev/null & ;;
  esac
  p=$!
  printf 'PGS-PID %s %s\n' "$i" "$p"
  wait "$p"; r=$?
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
rm -rf "$d"
`.replaceAll("\\$", "$");

/**
 * Kills a channel command by pid, run as root through `docker exec`: its process group when it leads one (setsid),
 * until the group is empty; else the process and its descendants found through /proc, three passes to catch children
 * forked meanwhile.
 */
export const KILL_SCRIPT = String.raw`
p=$1
if kill -9 -"$p" 2>/dev/null; then
  # A process caught mid-fork can leave a child in the group: repeat until the group is empty (builtins only, so
  # this works even when a fork bomb holds every pid the container may have).
  n=0; while kill -9 -"$p" 2>/dev/null && [ $n -lt 200 ]; do n=$((n+1)); done
  exit 0
fi
all=" $p "
for pass in 1 2 3; do
  for s in /proc/[0-9]*/stat; do
    read -r x < "$s" 2>/dev/null || continue
    q=\${s#/proc/}; q=\${q%/stat}
    x=\${x##*) }; set -- $x
    case "$all" in *" $2 "*) case "$all" in *" $q "*) ;; *) all="$all$q ";; esac;; esac
  done
done
kill -KILL $all 2>/dev/null
exit 0
`.replaceAll("\\$", "$");

/** The script as the server reads it: its line count, then its lines (cut at a NUL, as an argv string would be). */
export function encodeBody(script: string): string {
  const nul = script.indexOf("\0");
  const text = nul < 0 ? script : script.slice(0, nul);
  const lines = text.split("\n");
  return `${lines.length}\n${lines.join("\n")}\n`;
}
