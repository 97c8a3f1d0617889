#!/bin/sh
# SPDX-License-Identifier: MIT
# A sweep on a real Slurm: a throwaway single-node cluster (scripts/slurm/local-cluster.sh:
# munged with its own key and socket, slurmctld and slurmd from a generated slurm.conf, all under
# a temporary directory), a 12-point config submitted by scripts/slurm/sweep.sh as a 4-task job
# array plus its afterok merge job, waited for; the merged run must equal a single-machine run of
# the same config in every deterministic column of frames.csv and summary.csv, come from 4 shards
# that each pinned themselves inside their allocation, and the daemons must be gone afterwards.
# The sweep starts in a directory whose name holds a space, both quotes, '$x', a command
# substitution and '%a' (an sbatch filename pattern), with a config whose name holds a space; the
# logs must land under it and nothing in the name may run. Then a sweep whose task 1 fails: --wait
# exits 1; task 1 submitted again alone (sbatch --array=1 array.sbatch) and the merge after it give
# the single-machine run again.
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
trap 'exit 143' TERM # meson's timeout: stop the daemons all the same
trap 'exit 130' INT
fail() {
    echo "FAIL: $*"
    for log in "$cluster"/*.log "$work"/results/sweeps/*/logs/*; do
        [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
    done
    exit 1
}
work="$tmp/run dir 'q\" \$x \`touch pwned\` %a"
mkdir "$work" && cd "$work" || exit 1

sh "$src/scripts/slurm/local-cluster.sh" start "$cluster" || fail "the local cluster did not start"
export SLURM_CONF="$cluster/slurm.conf"
sinfo -h -o '%P %a %D %t' | grep -q '^local\* up 1 idle' || fail "sinfo: $(sinfo)"
echo "ok: local Slurm up: $(sinfo -h -N -o '%N %c CPUs %t')"

# 12 points: 3 methods × 4 cube counts; pin = optional, so each task pins itself (--cpu auto).
cat >"my sweep.ini" <<'INI'
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
"$cdlab" run --quiet --output single "my sweep.ini" >/dev/null || fail "single-machine run failed"

sh "$src/scripts/slurm/sweep.sh" --dry-run --cdlab "$cdlab" --output results "my sweep.ini" >dry.txt || fail "--dry-run failed"
grep -q '^#SBATCH --array=0-3$' dry.txt && grep -q 'afterok' dry.txt && grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/4"' dry.txt ||
    fail "--dry-run does not print the array and merge scripts: $(cat dry.txt)"
[ ! -e results ] || fail "--dry-run wrote results/"

sh "$src/scripts/slurm/sweep.sh" --shards 4 --id t --wait --cdlab "$cdlab" --output results "my sweep.ini" >sweep.txt 2>&1 ||
    fail "the sweep failed: $(cat sweep.txt)"
cat sweep.txt
merged=results/sweeps/t/sweep
grep -q '^shards = 4$' $merged/meta.ini || fail "merged meta.ini: not 4 shards"
for log in shard-0 shard-1 shard-2 shard-3 merge; do
    [ -f "results/sweeps/t/logs/$log.out" ] || fail "no log $log.out: $(ls results/sweeps/t/logs)"
done
grep -qxF "sweep t: merged runs in $work/results/sweeps/t" results/sweeps/t/logs/merge.out || fail "merge.out: $(cat results/sweeps/t/logs/merge.out)"
[ ! -e pwned ] && [ ! -e "$tmp/pwned" ] || fail "a command in the directory's name ran"
echo "ok: the sweep ran in a directory named with quotes, \$, \` and %a; its logs are where they belong"
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

# A sweep whose task 1 fails: --wait must say so (exit 1), though sbatch --wait exits 0 for the
# merge job that Slurm cancels. Then, as docs/cluster.md says, task 1 submitted again alone (from
# another directory) and the merge after it: task 1 must run shard 1 of 4, not 1 of 1, and the
# merged run must equal the single-machine run.
cat >fail1.sh <<'SH'
#!/bin/sh
[ "${SLURM_ARRAY_TASK_ID:-}" != 1 ] || [ ! -e fail1 ] || { echo "fail1.sh: task 1 fails" >&2; exit 3; }
exec "$CDLAB_REAL" "$@"
SH
chmod +x fail1.sh && touch fail1 || fail "cannot write fail1.sh"
CDLAB_REAL=$cdlab
export CDLAB_REAL
sh "$src/scripts/slurm/sweep.sh" --shards 4 --id f --wait --cdlab ./fail1.sh --output results "my sweep.ini" >fsweep.txt 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'the merge job did not succeed' fsweep.txt || fail "a sweep with a failed task: exit $rc: $(cat fsweep.txt)"
[ ! -e results/sweeps/f/sweep ] || fail "a sweep with a failed task was merged"
echo "ok: a sweep whose task 1 failed: --wait exits 1"
rm fail1
j=$(cd "$tmp" && sbatch --parsable --array=1 "$work/results/sweeps/f/array.sbatch") || fail "task 1 not submitted again: $j"
(cd results/sweeps/f && sbatch --parsable --wait --dependency=afterok:"${j%%;*}" --kill-on-invalid-dep=yes merge.sbatch) \
    >resubmit.txt 2>&1 ||
    fail "the merge after task 1 submitted again failed: $(cat resubmit.txt)"
m=results/sweeps/f/shards/sweep/shard-1/meta.ini
grep -q '^index = 1$' $m && grep -q '^count = 4$' $m ||
    fail "task 1 submitted again: not shard 1 of 4: $(sed -n '/^\[shard\]/,/^$/p' $m)"
for f in frames.csv summary.csv; do
    sh "$src/scripts/deterministic-columns.sh" single/sweep/latest $f >single.txt &&
        sh "$src/scripts/deterministic-columns.sh" results/sweeps/f/sweep $f >merged.txt || fail "$f: no deterministic columns"
    cmp -s single.txt merged.txt || { diff single.txt merged.txt | head; fail "$f: the sweep with task 1 run again differs"; }
done
echo "ok: task 1 submitted again alone (sbatch --array=1) ran shard 1 of 4; merged after it = the single-machine run"

pids=$(cat "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid") || fail "a daemon's pid file is gone"
[ "$(echo $pids | wc -w)" -eq 3 ] || fail "pid files hold '$pids'"
sh "$src/scripts/slurm/local-cluster.sh" stop "$cluster" || fail "stop failed"
for p in $pids; do
    ! kill -0 "$p" 2>/dev/null || fail "pid $p ($(cat /proc/"$p"/comm)) still runs after stop"
done
echo "ok: slurmd, slurmctld and munged stopped"
exit 0
