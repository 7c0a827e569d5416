#!/usr/bin/env bash
# A real two-node Slurm cluster (nodes n1, n2) on one host, every address loopback.
# Debian's slurm-wlm 22.05 + munge. Everything Slurm writes lives under STATE_DIR;
# nothing under /etc/slurm is touched: callers use `export SLURM_CONF=STATE_DIR/etc/slurm.conf`.
#
#   scripts/slurm_cluster.sh start  [STATE_DIR]   # install if missing, start, prove `srun -N2`
#   scripts/slurm_cluster.sh stop   [STATE_DIR]   # cancel jobs, stop daemons, nothing left running
#   scripts/slurm_cluster.sh status [STATE_DIR]   # sinfo, or "not running"
#
# Env overrides: PGS_SLURM_CTLD_PORT (16817; the next free port is taken if busy),
# PGS_SLURM_N1_PORT (17001), PGS_SLURM_N2_PORT (17002), PGS_SLURM_SLURMD_TIMEOUT (10),
# PGS_SLURM_MEM_MB (RealMemory per node; default min(4000, MemTotal/4)).
# See scripts/slurm_cluster_README.md.
set -euo pipefail

CMD="${1:-}"
STATE_DIR="${2:-/var/lib/pgs-slurm}"
ETC="$STATE_DIR/etc"
CONF="$ETC/slurm.conf"
RUN="$STATE_DIR/run"
LOG="$STATE_DIR/log"
SPOOL="$STATE_DIR/spool"
NODES=(n1 n2)
export SLURM_CONF="$CONF"

log() { echo "slurm_cluster: $*" >&2; }

pid_alive() { # pidfile -> 0 if the process in it is alive
  local f="$1" p
  [[ -s "$f" ]] || return 1
  p="$(tr -dc 0-9 <"$f")"
  [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null
}

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q . ; }

dump_logs() {
  local f
  for f in "$LOG/slurmctld.log" "$LOG"/slurmd-n1.log "$LOG"/slurmd-n2.log; do
    [[ -f "$f" ]] || continue
    echo "----- last lines of $f -----" >&2
    tail -n 25 "$f" >&2 || true
  done
}

die() { log "ERROR: $*"; dump_logs; exit 1; }

ensure_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
     command -v srun >/dev/null && command -v munged >/dev/null; then
    return 0
  fi
  log "installing slurm-wlm munge"
  export DEBIAN_FRONTEND=noninteractive
  timeout 900 apt-get update -qq || log "apt-get update failed (continuing)"
  timeout 900 apt-get install -y -qq slurm-wlm munge >/dev/null || die "apt-get install slurm-wlm munge failed"
}

munge_ok() { timeout 10 munge -n 2>/dev/null | timeout 10 unmunge >/dev/null 2>&1; }

ensure_munge() {
  if [[ ! -s /etc/munge/munge.key ]]; then
    log "creating /etc/munge/munge.key"
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
  fi
  # Debian's munged: socket /run/munge/munge.socket.2, pid /run/munge/munged.pid
  mkdir -p /run/munge /var/lib/munge /var/log/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge
  chmod 0755 /run/munge
  if munge_ok; then return 0; fi
  if pid_alive /run/munge/munged.pid; then
    die "munged runs (pid $(cat /run/munge/munged.pid)) but munge -n | unmunge fails"
  fi
  log "starting munged"
  timeout 30 runuser -u munge -- munged || die "munged failed to start"
  cp /run/munge/munged.pid "$RUN/munged.ours" # stop ends munged only if we started it
  local i
  for i in $(seq 1 50); do munge_ok && return 0; sleep 0.2; done
  die "munged started but munge -n | unmunge still fails"
}

pick_ctld_port() {
  local p="${PGS_SLURM_CTLD_PORT:-16817}" i
  for i in $(seq 0 50); do
    if ! port_busy $((p + i)); then echo $((p + i)); return 0; fi
  done
  die "no free port for slurmctld near $p"
}

write_conf() {
  local host ctld_port cpus mem n1p n2p
  host="$(hostname -s)"
  ctld_port="$(pick_ctld_port)"
  n1p="${PGS_SLURM_N1_PORT:-17001}"
  n2p="${PGS_SLURM_N2_PORT:-17002}"
  for p in "$n1p" "$n2p"; do port_busy "$p" && die "slurmd port $p is already in use"; done
  cpus=$(( $(nproc) / 2 )); (( cpus >= 1 )) || cpus=1
  if [[ -n "${PGS_SLURM_MEM_MB:-}" ]]; then mem="$PGS_SLURM_MEM_MB"; else
    mem=$(( $(awk '/^MemTotal:/{print int($2/1024)}' /proc/meminfo) / 4 ))
    (( mem > 4000 )) && mem=4000
    (( mem < 256 )) && mem=256
  fi
  cat >"$CONF.tmp" <<EOF
# Written by scripts/slurm_cluster.sh; use with: export SLURM_CONF=$CONF
ClusterName=pgs
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
# Fast failure detection (defaults: SlurmdTimeout=300, MessageTimeout=10, SlurmctldTimeout=120)
SlurmdTimeout=${PGS_SLURM_SLURMD_TIMEOUT:-10}
MessageTimeout=5
SlurmctldTimeout=30
InactiveLimit=0
KillWait=30
MinJobAge=30
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmdSpoolDir=$SPOOL/%n
StateSaveLocation=$SPOOL/ctld
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$ETC/plugstack.conf
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n1p CPUs=$cpus RealMemory=$mem State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n2p CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$ETC/plugstack.conf"
  mv "$CONF.tmp" "$CONF"
}

any_daemon_alive() {
  pid_alive "$RUN/slurmctld.pid" && return 0
  local n; for n in "${NODES[@]}"; do pid_alive "$RUN/slurmd-$n.pid" && return 0; done
  return 1
}

nodes_idle() { # both nodes idle (or mixed/allocated: up and usable)
  local out
  out="$(timeout 10 sinfo -N -h -o '%N %t' 2>/dev/null | sort -u)" || return 1
  grep -Eq '^n1 (idle|mix|alloc)$' <<<"$out" && grep -Eq '^n2 (idle|mix|alloc)$' <<<"$out"
}

cmd_start() {
  ensure_packages
  mkdir -p "$ETC" "$RUN" "$LOG" "$SPOOL/ctld" "$SPOOL/n1" "$SPOOL/n2"
  ensure_munge
  if [[ ! -s "$CONF" ]] || ! any_daemon_alive; then
    write_conf # fresh config only when nothing of ours runs with the old one
    local f # fresh logs, so a failure shows this run's lines; the previous run's are kept as *.prev
    for f in "$LOG"/*.log; do [[ -f "$f" ]] && mv -f "$f" "$f.prev"; done
  fi
  local fresh=""
  if ! pid_alive "$RUN/slurmctld.pid"; then
    log "starting slurmctld (port $(sed -n 's/^SlurmctldPort=//p' "$CONF"))"
    # -c: start from a clean state (no jobs or node states from an earlier run)
    timeout 60 slurmctld -c -f "$CONF" || die "slurmctld failed to start"
    fresh=1
  fi
  local i
  for i in $(seq 1 100); do timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.2; done
  timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' || die "slurmctld does not answer scontrol ping"
  local n
  for n in "${NODES[@]}"; do
    if ! pid_alive "$RUN/slurmd-$n.pid"; then
      log "starting slurmd -N $n"
      timeout 60 slurmd -N "$n" -f "$CONF" || die "slurmd -N $n failed to start"
    fi
  done
  local resumed=""
  for i in $(seq 1 120); do # ~60 s
    nodes_idle && break
    # a node left down/drained (e.g. by a kill while slurmctld ran) is resumed once
    if [[ -z "$resumed" && $i -gt 10 ]] &&
       timeout 10 sinfo -N -h -o '%N %t' 2>/dev/null | grep -Eq '^n[12] (down|drain|drng|fail)'; then
      timeout 10 scontrol update nodename=n1,n2 state=resume 2>/dev/null || true
      resumed=1
    fi
    sleep 0.5
  done
  nodes_idle || { timeout 10 sinfo -N 2>&1 >&2 || true; die "nodes n1, n2 not idle after 60 s"; }
  local got
  got="$(timeout 60 srun -N2 -n2 bash -c 'echo $SLURMD_NODENAME' 2>&1 | sort | tr '\n' ' ')" ||
    die "srun -N2 failed: $got"
  [[ "$got" == "n1 n2 " ]] || die "srun -N2 printed '$got', expected n1 n2"
  log "cluster up${fresh:+ (fresh)}: srun -N2 ran on n1 and n2"
  timeout 10 sinfo -N >&2 || true
  echo "export SLURM_CONF=$CONF"
}

kill_pidfiles() { # "pidfile:name"...: SIGTERM all, wait <= 15 s, then SIGKILL the rest
  local spec f name p i pids=()
  for spec in "$@"; do
    f="${spec%%:*}"; name="${spec#*:}"
    if pid_alive "$f"; then
      p="$(tr -dc 0-9 <"$f")"
      log "stopping $name (pid $p)"
      kill -TERM "$p" 2>/dev/null || true
      pids+=("$p")
    fi
    rm -f "$f"
  done
  (( ${#pids[@]} )) || return 0
  for i in $(seq 1 75); do
    local any=""
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && any=1; done
    [[ -z "$any" ]] && break
    sleep 0.2
  done
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then log "pid $p did not stop: SIGKILL"; kill -KILL "$p" 2>/dev/null || true; fi
  done
}

our_leftovers() { # pids whose environment carries our SLURM_CONF and that are slurm daemons/steps or job tasks
  local f d p
  for f in $(grep -lzxF "SLURM_CONF=$CONF" /proc/[0-9]*/environ 2>/dev/null); do
    d="${f%/environ}"; p="${d#/proc/}"
    [[ "$p" == "$$" || "$p" == "$BASHPID" ]] && continue
    if { grep -q '^slurm' "$d/comm" || grep -qz '^SLURM_STEP_ID=' "$f"; } 2>/dev/null; then
      echo "$p"
    fi
  done
}

cmd_stop() {
  [[ -d "$STATE_DIR" ]] || { log "nothing at $STATE_DIR"; return 0; }
  if pid_alive "$RUN/slurmctld.pid"; then
    local ids i
    ids="$(timeout 10 squeue -h -o '%A' 2>/dev/null | tr '\n' ' ')" || ids=""
    if [[ -n "${ids// /}" ]]; then
      log "cancelling jobs: $ids"
      # shellcheck disable=SC2086
      timeout 15 scancel $ids 2>/dev/null || true
      for i in $(seq 1 50); do
        [[ -z "$(timeout 5 squeue -h -t R,PD,CG,CF,S -o %A 2>/dev/null)" ]] && break
        sleep 0.2
      done
    fi
  fi
  kill_pidfiles "$RUN/slurmd-n1.pid:slurmd n1" "$RUN/slurmd-n2.pid:slurmd n2"
  kill_pidfiles "$RUN/slurmctld.pid:slurmctld"
  local left p
  left="$(our_leftovers | tr '\n' ' ')"
  if [[ -n "${left// /}" ]]; then
    log "killing leftover step processes: $left"
    for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
  fi
  if [[ -s "$RUN/munged.ours" ]]; then
    kill_pidfiles "$RUN/munged.ours:munged"
    rm -f /run/munge/munged.pid
  fi
  log "stopped"
}

cmd_status() {
  if pid_alive "$RUN/slurmctld.pid" && timeout 10 sinfo -N 2>/dev/null; then
    echo "export SLURM_CONF=$CONF"
  else
    echo "not running"
  fi
}

case "$CMD" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status [STATE_DIR]" >&2; exit 2 ;;
esac
