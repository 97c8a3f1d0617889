#!/bin/sh
# SPDX-License-Identifier: MIT
# The batch scripts of scripts/slurm/sweep.sh, without Slurm: a sweep started in a directory
# whose name holds a space, both quotes, '$HOME', a command substitution, ';' and '%a', of a suite
# and a config whose names hold spaces, printed by --dry-run, then run with sh as Slurm would run
# them: each array task alone, as a resubmission of that one task (SLURM_ARRAY_TASK_COUNT=1), from
# another directory, then the merge script. The merged run must equal a single-machine run in every
# deterministic column of frames.csv and summary.csv, and nothing in the names may run. An --id
# that is not a plain name, a results path that sbatch cannot take and options that would add
# #SBATCH lines are refused (exit 2). Needs no Slurm (cli_slurm_sweep runs the scripts on one).
# usage: slurm_scripts.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
src=$(cd "$2/../.." && pwd)
sweep_sh=$src/scripts/slurm/sweep.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
work="$tmp/run dir 'q\" \$HOME \`touch pwned\`; %a"
mkdir "$work" && cd "$work" || fail "cannot make $work"

# 6 points: 2 methods × 3 cube counts.
cat >"my sweep.ini" <<'INI'
[experiment]
name = sweep
seed = 5
warmup = 1
frames = 4
repeats = 2
[scene]
cubes = 30, 60, 120
density = 0.2
[method]
method = naive, sap
[run]
pin = optional
counters =
INI
printf '# a suite and a config with spaces in their names\n\n   my sweep.ini  \n' >"my suite.suite"
"$cdlab" run --quiet --output single "my sweep.ini" >/dev/null || fail "single-machine run failed"

id=s_1.b-2
sh "$sweep_sh" --dry-run --shards 3 --id $id --cdlab "$cdlab" --output "out dir" "my suite.suite" >dry.txt 2>err.txt ||
    fail "--dry-run with spaces and quotes in the paths: $(cat err.txt)"
awk '/^# --- .*\/array\.sbatch \(/ { f = "array.sbatch"; next }
     /^# --- .*\/merge\.sbatch \(/ { f = "merge.sbatch"; next }
     f { print > f }' dry.txt
[ -s array.sbatch ] && [ -s merge.sbatch ] || fail "--dry-run did not print both scripts: $(cat dry.txt)"
[ ! -e "out dir" ] || fail "--dry-run wrote the results directory"
sh -n array.sbatch && sh -n merge.sbatch || fail "the scripts are not valid sh"
grep -q '^#SBATCH --array=0-2$' array.sbatch || fail "array.sbatch: no --array=0-2"
grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/3"' array.sbatch && ! grep -q SLURM_ARRAY_TASK_COUNT array.sbatch ||
    fail "array.sbatch does not fix the split at 3 shards: $(grep -- --shard array.sbatch)"
echo "ok: --dry-run prints two valid scripts; the split is fixed at 3 shards"

# Slurm starts each task in its own directory (the script's cd) with the task's variables; a task
# submitted again alone (sbatch --array=I) sees SLURM_ARRAY_TASK_COUNT=1.
cd "$tmp" || fail "cd $tmp"
for i in 2 0 1; do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=1 sh "$work/array.sbatch" >"$work/task$i.txt" 2>&1 ||
        fail "task $i: $(tail -n 5 "$work/task$i.txt")"
done
sh "$work/merge.sbatch" >"$work/merge.txt" 2>&1 || fail "the merge script failed: $(tail -n 5 "$work/merge.txt")"
[ ! -e "$tmp/pwned" ] && [ ! -e "$work/pwned" ] || fail "a command in the directory's name ran"
cd "$work" || fail "cd $work"
sweep="out dir/sweeps/$id"
grep -qxF "sweep $id: merged runs in $work/$sweep" merge.txt || fail "merge.sbatch says: $(tail -n 1 merge.txt)"
grep -q '^shards = 3$' "$sweep/sweep/meta.ini" || fail "merged meta.ini: not 3 shards"
for i in 0 1 2; do
    grep -q '^count = 3$' "$sweep/shards/sweep/shard-$i/meta.ini" || fail "shard $i: not a shard of 3"
done
for f in frames.csv summary.csv; do
    sh "$src/scripts/deterministic-columns.sh" single/sweep/latest $f >single.txt &&
        sh "$src/scripts/deterministic-columns.sh" "$sweep/sweep" $f >merged.txt || fail "$f: no deterministic columns"
    [ "$(wc -l <single.txt)" -gt 6 ] || fail "$f: too few rows"
    cmp -s single.txt merged.txt || { diff single.txt merged.txt | head; fail "$f: the merged sweep differs from one machine"; }
done
if "$cdlab" help | grep -q '^  report '; then
    [ -s "$sweep/report.html" ] || fail "no report.html"
fi
echo "ok: the tasks run alone, from elsewhere, then the merge, in a directory named with quotes, \$, \` and %:" \
    "the merged run = the single-machine run in every deterministic column"

# refused STATUS_TEXT ARGS...: sweep.sh --dry-run ARGS exits 2, says TEXT and prints no script.
refused() {
    text=$1
    shift
    sh "$sweep_sh" --dry-run --cdlab "$cdlab" "$@" >out.txt 2>err.txt
    rc=$?
    [ $rc -eq 2 ] && grep -q -e "$text" err.txt && [ ! -s out.txt ] ||
        fail "sweep.sh $*: exit $rc, expected 2 and '$text': $(cat err.txt out.txt)"
}
for bad in 'q"x' 'd$HOME' 'b`touch pwned`' "s'q" 'a b' a/b .hidden -x ..; do
    refused "--id '.*': expected letters, digits" --id "$bad" "my sweep.ini"
done
refused "backslash" --output 'back\slash' "my sweep.ini"
refused "newline" --output 'new
line' "my sweep.ini"
refused "--partition" --partition 'p
#SBATCH --wrap=x' "my sweep.ini"
refused "--time" --time '1:00 --exclusive' "my sweep.ini"
refused "no such suite or config" "no such.ini"
[ ! -e pwned ] || fail "a command in an --id ran"
echo "ok: ids other than plain names, paths sbatch cannot take and extra #SBATCH lines are refused (exit 2)"
exit 0
