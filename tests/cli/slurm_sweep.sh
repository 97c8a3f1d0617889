#!/bin/sh
# SPDX-License-Identifier: MIT
# A sweep on a real Slurm: a throwaway single-node cluster (scripts/slurm/local-cluster.sh:
# munged with its own key and socket, slurmctld and slurmd from a generated slurm.conf, all under
# a temporary directory), a 12-point config submitted by scripts/slurm/sweep.sh as a 4-task job
# array plus its afterok merge job, waited for; the merged run must equal a single-machine run of
# the same config in every deterministic column of frames.csv and summary.csv, come from 4 shards
# that each pinned themselves inside their allocation, and the daemons must be gone afterwards.
# Skips (77) only when slurm-wlm or munge is not installed (scripts/install-deps.sh installs them).
# usage: slurm_sweep.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
src=$(cd "$2/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
for prog in munged slurmctld slurmd sbatch; do
    command -v $prog >/dev/null 2>&1 || { echo "SKIP: $prog not installed (Debian packages slurm-wlm, munge)"; exit 77; }
done
tmp=$(mktemp -d)
cluster=$tmp/cluster
cleanup() {
    sh "$src/scripts/slurm/local-cluster.sh" stop "$cluster" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    for log in "$cluster"/*.log "$tmp"/results/sweeps/t/logs/*; do
        [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
    done
    exit 1
}
cd "$tmp" || exit 1

sh "$src/scripts/slurm/local-cluster.sh" start "$cluster" || fail "the local cluster did not start"
export SLURM_CONF="$cluster/slurm.conf"
sinfo -h -o '%P %a %D %t' | grep -q '^local\* up 1 idle' || fail "sinfo: $(sinfo)"
echo "ok: local Slurm up: $(sinfo -h -N -o '%N %c CPUs %t')"

# 12 points: 3 methods × 4 cube counts; pin = optional, so each task pins itself (--cpu auto).
cat >sweep.ini <<'INI'
[experiment]
name = sweep
seed = 3
warmup = 1
frames = 6
repeats = 2
[scene]
cubes = 50, 100, 200, 400
density = 0.2
[method]
method = naive, grid_multi, sap
[run]
pin = optional
counters =
INI
"$cdlab" run --quiet --output single sweep.ini >/dev/null || fail "single-machine run failed"

sh "$src/scripts/slurm/sweep.sh" --dry-run --cdlab "$cdlab" --output results sweep.ini >dry.txt || fail "--dry-run failed"
grep -q '^#SBATCH --array=0-3$' dry.txt && grep -q 'afterok' dry.txt && grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/' dry.txt ||
    fail "--dry-run does not print the array and merge scripts: $(cat dry.txt)"
[ ! -e results ] || fail "--dry-run wrote results/"

sh "$src/scripts/slurm/sweep.sh" --shards 4 --id t --wait --cdlab "$cdlab" --output results sweep.ini >sweep.txt 2>&1 ||
    fail "the sweep failed: $(cat sweep.txt)"
cat sweep.txt
merged=results/sweeps/t/sweep
grep -q '^shards = 4$' $merged/meta.ini || fail "merged meta.ini: not 4 shards"
for i in 0 1 2 3; do
    m=results/sweeps/t/shards/sweep/shard-$i/meta.ini
    grep -q "^index = $i$" $m || fail "shard $i: meta.ini [shard] index"
    cpu=$(sed -n 's/^requested_cpu = //p' $m)
    [ -n "$cpu" ] && [ "$cpu" -ge 0 ] || fail "shard $i did not pin itself inside its allocation (requested_cpu $cpu)"
    echo "ok: shard $i: $(sed -n 's/^points = //p' $m | head -n 1) on cpu $cpu ($(sed -n '/^\[pinning\]/,/^$/s/^status = //p' $m))"
done
for f in frames.csv summary.csv; do
    sh "$src/scripts/deterministic-columns.sh" single/sweep/latest $f >single.txt &&
        sh "$src/scripts/deterministic-columns.sh" $merged $f >merged.txt || fail "$f: no deterministic columns"
    [ "$(wc -l <single.txt)" -gt 12 ] || fail "$f: too few rows"
    cmp -s single.txt merged.txt || { diff single.txt merged.txt | head; fail "$f: the Slurm sweep differs from one machine"; }
    echo "ok: $f of the 4-task Slurm sweep = the single-machine run in every deterministic column ($(($(wc -l <single.txt) - 1)) rows)"
done
if "$cdlab" help | grep -q '^  report '; then
    [ -s results/sweeps/t/report.html ] || fail "no report.html"
    echo "ok: report.html written"
fi

pids=$(cat "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid") || fail "a daemon's pid file is gone"
[ "$(echo $pids | wc -w)" -eq 3 ] || fail "pid files hold '$pids'"
sh "$src/scripts/slurm/local-cluster.sh" stop "$cluster" || fail "stop failed"
for p in $pids; do
    ! kill -0 "$p" 2>/dev/null || fail "pid $p ($(cat /proc/"$p"/comm)) still runs after stop"
done
echo "ok: slurmd, slurmctld and munged stopped"
exit 0
