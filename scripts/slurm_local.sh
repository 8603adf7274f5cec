#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for `locsim sweep --slurm` and its test:
#   scripts/slurm_local.sh start [DIR]   # munge + slurmctld + slurmd; prints SLURM_CONF=DIR/slurm.conf
#   scripts/slurm_local.sh stop [DIR]
# Needs the Debian packages slurm-wlm and munge (scripts/setup.sh installs them) and root, since
# the daemons run as root with a generated slurm.conf (no cgroups: proctrack/linuxproc).
set -euo pipefail
cmd=${1:-start}
dir=${2:-/tmp/locsim-slurm}
conf=$dir/slurm.conf
export SLURM_CONF=$conf

stop() {
  for p in slurmd slurmctld; do
    [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
    rm -f "$dir/$p.pid"
  done
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "slurm_local.sh: unknown command '$cmd' (start|stop)" >&2; exit 2 ;;
esac

for b in munged slurmctld slurmd sinfo sbatch; do
  command -v "$b" >/dev/null || { echo "slurm_local.sh: '$b' not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm_local.sh: needs root (the daemons run as root)" >&2; exit 1; }

# Already up with this configuration: nothing to do.
if [ -f "$conf" ] && timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
  echo "SLURM_CONF=$conf"
  exit 0
fi

# munge: a key (once) and the daemon.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
if ! munge -n >/dev/null 2>&1; then
  su -s /bin/sh munge -c /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
fi
munge -n | unmunge >/dev/null

stop
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
host=$(hostname -s)
cat > "$conf" <<CONF
ClusterName=locsim
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld
slurmd
for _ in $(seq 1 30); do
  if timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "SLURM_CONF=$conf"
    exit 0
  fi
  sleep 1
done
echo "slurm_local.sh: the node did not come up; see $dir/log/" >&2
exit 1
