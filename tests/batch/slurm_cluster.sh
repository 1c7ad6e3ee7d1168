#!/usr/bin/env bash
# A single-node Slurm cluster in a folder of its own, for the batch engine's test:
#   slurm_cluster.sh start DIR   munged (its own key and socket), slurmctld and slurmd (node
#                                "node0" on 127.0.0.1, free ports), all state, logs and pids in
#                                DIR; prints SLURM_CONF=DIR/slurm.conf when the node is idle
#   slurm_cluster.sh stop DIR    stops everything started in DIR
# Exit 77 (skip) with one line saying why when it cannot run here: not root, Debian's
# slurm-wlm or munge missing, or the daemons do not come up.
set -uo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: slurm_cluster.sh start|stop DIR" >&2; exit 2; }

stop() {
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null
  done
  for _ in $(seq 50); do
    alive=0
    for p in slurmd slurmctld munged; do
      [ -f "$dir/$p.pid" ] && kill -0 "$(cat "$dir/$p.pid")" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.pid" ] && kill -9 "$(cat "$dir/$p.pid")" 2>/dev/null
    rm -f "$dir/$p.pid"
  done
  return 0
}
if [ "$cmd" = stop ]; then stop; exit 0; fi

skip() { echo "SKIP: Slurm test cluster: $*"; stop; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (the daemons run as root in $dir)"
for b in munged slurmctld slurmd sbatch squeue; do
  command -v "$b" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$b" >/dev/null 2>&1 \
    || skip "$b not installed (Debian packages slurm-wlm and munge)"
done
export PATH=$PATH:/usr/sbin
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# A free TCP port on loopback (python3 asks the kernel for one).
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctld_port=$(port); d_port=$(port)

dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
  >/dev/null 2>&1 || skip "munged did not start (see $dir/munged.log)"

cpus=$(nproc)
cat >"$dir/slurm.conf" <<CONF
ClusterName=animeshtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MaxArraySize=10001
NodeName=node0 NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=node0 Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" -i >/dev/null 2>&1 || skip "slurmctld did not start (see $dir/slurmctld.log)"
slurmd -f "$SLURM_CONF" -N node0 >/dev/null 2>&1 || skip "slurmd did not start (see $dir/slurmd.log)"
for _ in $(seq 100); do
  state=$(sinfo -h -n node0 -o %t 2>/dev/null)
  case "$state" in idle*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
  sleep 0.2
done
skip "node0 not idle after 20 s (state '${state:-none}'; see $dir/slurmd.log)"
