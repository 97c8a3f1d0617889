#!/bin/sh
# SPDX-License-Identifier: MIT
# A cdlab sweep as a Slurm job array: one task per shard (cdlab run --shard I/N --resume, pinned
# with hwloc inside the task's allocation), then a merge job that waits for every task
# (--dependency=afterok) and merges each config's shards into one run directory, renders its
# figures and writes one HTML report of the merged runs. Prints the job ids and where the results
# will appear; --dry-run prints the two batch scripts instead of submitting them.
#
# Usage: scripts/slurm/sweep.sh [options] SUITE_OR_CONFIGS...
#   --shards N          array tasks, one shard each (default 4)
#   --partition P       Slurm partition (default: the cluster's default)
#   --time T            time limit per task, as sbatch takes it (e.g. 2:00:00)
#   --cpus-per-task C   cores per task (default 1; the runner pins itself to the first)
#   --exclusive         a whole node per task (for timings that other jobs cannot disturb)
#   --output DIR        results root (default results): the sweep goes to DIR/sweeps/ID/
#   --id ID             the sweep's name: letters, digits, '.', '_', '-', not starting with '.' or
#                       '-' (default: UTC time, e.g. 20260101T120000Z)
#   --cdlab PATH        the program (default build/src/cli/cdlab); nodes must see it and the configs
#   --wait              wait for the merge job; exit 0 only when it succeeded
#   --dry-run           check the configs, print the batch scripts, submit nothing
# A suite (experiments/*.suite) lists configs, one per line (blanks around it dropped; '#' starts
# a comment line). Everything the jobs read and write (the program, configs, DIR) must be on a file
# system every node sees; jobs start in the current directory. Paths may hold spaces, quotes and
# other shell characters; none may hold a newline, and DIR/sweeps/ID no backslash (sbatch's
# --output cannot take one): such a path is refused (exit 2).
#
# DIR/sweeps/ID/ then holds: shards/<experiment>/shard-I/ (each task's run directory per config),
# <experiment>/ (the merged run of each config, with its figures), report.html, logs/ (Slurm's
# output of every job), array.sbatch and merge.sbatch (what was submitted). array.sbatch always
# runs the split into N shards, so failed tasks can be submitted again alone, and the merge after
# them: cd DIR/sweeps/ID && j=$(sbatch --parsable --array=1,3 array.sbatch) &&
# sbatch --dependency=afterok:$j --kill-on-invalid-dep=yes merge.sbatch
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
shards=4 partition="" time_limit="" cpus=1 exclusive=0 output=results id="" cdlab="$here/build/src/cli/cdlab"
wait=0 dry=0 inputs=""
nl='
'
die() { printf 'sweep: %s\n' "$*" >&2; exit 2; }
# $1 as one single-quoted shell word: whatever it holds (spaces, quotes, $, `, newlines) reads
# back unchanged, in the generated scripts and in eval here.
q() {
    q_rest=$1 q_out=""
    while :; do
        case $q_rest in
        *\'*) q_out="$q_out${q_rest%%\'*}'\\''" q_rest=${q_rest#*\'} ;;
        *) break ;;
        esac
    done
    printf "'%s%s'" "$q_out" "$q_rest"
}
# $1, a path, as the value of an #SBATCH directive for a file name: in double quotes, which
# sbatch's directive parser removes (a '"' inside escaped as \"), every '%' doubled, as sbatch's
# filename patterns take a literal '%'. A backslash cannot go through (sbatch drops it and then
# expands no pattern), nor can a newline (a directive is one line): both are refused before.
sbatch_path() { printf '"%s"' "$(printf '%s\n' "$1" | sed 's/%/%%/g; s/"/\\"/g')"; }
while [ $# -gt 0 ]; do
    case $1 in
    --shards) [ $# -ge 2 ] || die "--shards needs a value"; shards=$2; shift ;;
    --partition) [ $# -ge 2 ] || die "--partition needs a value"; partition=$2; shift ;;
    --time) [ $# -ge 2 ] || die "--time needs a value"; time_limit=$2; shift ;;
    --cpus-per-task) [ $# -ge 2 ] || die "--cpus-per-task needs a value"; cpus=$2; shift ;;
    --exclusive) exclusive=1 ;;
    --output) [ $# -ge 2 ] || die "--output needs a value"; output=$2; shift ;;
    --id) [ $# -ge 2 ] || die "--id needs a value"; id=$2; shift ;;
    --cdlab) [ $# -ge 2 ] || die "--cdlab needs a value"; cdlab=$2; shift ;;
    --wait) wait=1 ;;
    --dry-run) dry=1 ;;
    -h | --help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) inputs="$inputs $(q "$1")" ;;
    esac
    shift
done
[ -n "$inputs" ] || die "no suite or config given (see --help)"
case $shards in '' | *[!0-9]* | 0*) die "--shards '$shards': expected a whole number >= 1" ;; esac
case $cpus in '' | *[!0-9]* | 0*) die "--cpus-per-task '$cpus': expected a whole number >= 1" ;; esac
# Both go into #SBATCH lines as they are, so only what Slurm's names and times are made of.
case $partition in *[!A-Za-z0-9._,-]*) die "--partition '$partition': expected partition names (letters, digits, '.', '_', '-', ',')" ;; esac
case $time_limit in *[!A-Za-z0-9:-]*) die "--time '$time_limit': expected a time limit as sbatch --time takes it (e.g. 2:00:00, 1-12)" ;; esac
cwd=$(pwd)
case $cdlab in /*) ;; *) cdlab=$cwd/$cdlab ;; esac
[ -x "$cdlab" ] || die "$cdlab: no cdlab program (build it: meson compile -C build, or give --cdlab)"
[ -n "$id" ] || id=$(date -u +%Y%m%dT%H%M%SZ)
# The id names the jobs and a directory, and goes into the scripts: a plain name only.
case $id in
[.-]* | *[!A-Za-z0-9._-]*) die "--id '$id': expected letters, digits, '.', '_' and '-', not starting with '.' or '-'" ;;
esac
case $output in /*) ;; *) output=$cwd/$output ;; esac
sweep=$output/sweeps/$id
case $cwd$nl$cdlab$nl$sweep in *"$nl"*"$nl"*"$nl"*) die "a path with a newline cannot go into a batch script: $cwd, $cdlab, $sweep" ;; esac
case $sweep in *\\*) die "$sweep: sbatch cannot write logs under a path with a backslash (give another --output)" ;; esac

# The configs: suites expanded (one config a line, blanks around it dropped), in order, each kept
# as one shell word in $configs.
configs="" shown=""
add_config() {
    case $1 in *"$nl"*) die "a config path with a newline is not supported" ;; esac
    case $1 in [-[:space:]]*) set -- "./$1" ;; esac # not an option; the plan's lines start with it
    configs="$configs $(q "$1")" shown="$shown $1"
}
eval "set -- $inputs"
for f; do
    [ -f "$f" ] || die "$f: no such suite or config"
    case $f in
    *.suite)
        while IFS= read -r line || [ -n "$line" ]; do
            line=${line#"${line%%[![:space:]]*}"}
            line=${line%"${line##*[![:space:]]}"}
            case $line in '' | '#'*) ;; *) add_config "$line" ;; esac
        done <"$f"
        ;;
    *) add_config "$f" ;;
    esac
done
[ -n "$configs" ] || die "no config in the suites given"
# Check every config (and the split) before submitting anything; the experiments' names say
# where each config's shards and merged run go.
eval "set -- $configs"
plan=$("$cdlab" run --dry-run --shard 0/"$shards" --run-id shard-0 "$@") || die "the configs are not valid (above)"
experiments=$(printf '%s\n' "$plan" |
    sed -n 's/^[^ ].*: experiment \(.*\), kind [^ ]*, [0-9]* point(s), sha256 [0-9a-f]*$/\1/p')
[ -n "$experiments" ] || die "no experiment found in the plan"

sbatch_opts=""
[ -z "$partition" ] || sbatch_opts="$sbatch_opts
#SBATCH --partition=$partition"
array_opts="$sbatch_opts
#SBATCH --cpus-per-task=$cpus"
[ -z "$time_limit" ] || array_opts="$array_opts
#SBATCH --time=$time_limit"
[ "$exclusive" = 0 ] || array_opts="$array_opts
#SBATCH --exclusive"
last=$((shards - 1))
# The shard count is written into the script, not read from Slurm: a resubmission of some tasks
# (sbatch --array=1,3 array.sbatch) must run the split of the first submission.
array_script=$(cat <<EOF
#!/bin/sh
# cdlab sweep $id: shard \$SLURM_ARRAY_TASK_ID of $shards (generated by scripts/slurm/sweep.sh)
#SBATCH --job-name=cdlab-$id
#SBATCH --array=0-$last
#SBATCH --output=$(sbatch_path "$sweep/logs/shard-")%a.out
#SBATCH --requeue$array_opts
# Preempted or requeued, the task runs again and --resume keeps the points it finished; Slurm's
# SIGTERM stops the runner after its current point. --cpu auto pins the runner (hwloc) to the
# first core of this task's allocation. The split is $shards shards whichever tasks run, so failed
# tasks alone can be submitted again: sbatch --array=1,3 array.sbatch
set -eu
cd $(q "$cwd")
exec $(q "$cdlab") run --resume --shard "\$SLURM_ARRAY_TASK_ID/$shards" --cpu auto \\
    --output $(q "$sweep/shards") --run-id "shard-\$SLURM_ARRAY_TASK_ID"$configs
EOF
)
merges=""
dirs=""
done_dirs=""
while IFS= read -r e; do
    list=""
    i=0
    while [ $i -lt "$shards" ]; do list="$list \"\$sweep\"/shards/$(q "$e")/shard-$i"; i=$((i + 1)); done
    merges="$merges
\"\$cdlab\" merge$list -o \"\$sweep\"/$(q "$e")
\"\$cdlab\" plot \"\$sweep\"/$(q "$e") ||
    printf '%s\\n' $(q "sweep: figures of $e failed (gnuplot?); the merged run is complete") >&2"
    dirs="$dirs \"\$sweep\"/$(q "$e")"
    done_dirs="$done_dirs $sweep/$e"
done <<EOF
$experiments
EOF
if "$cdlab" help | grep -q '^  report '; then
    report="\"\$cdlab\" report -o \"\$sweep\"/report.html$dirs"
else
    report="echo 'sweep: this cdlab has no report command; figures are in each merged run'"
fi
merge_script=$(cat <<EOF
#!/bin/sh
# cdlab sweep $id: merge the $shards shards of each config, figures, report (scripts/slurm/sweep.sh)
#SBATCH --job-name=cdlab-$id-merge
#SBATCH --output=$(sbatch_path "$sweep/logs/merge.out")$sbatch_opts
set -eu
cd $(q "$cwd")
cdlab=$(q "$cdlab")
sweep=$(q "$sweep")$merges
$report
printf 'sweep $id: merged runs in %s\\n' "\$sweep"
EOF
)

if [ "$dry" = 1 ]; then
    printf '# --- %s/array.sbatch (sbatch --parsable array.sbatch)\n' "$sweep"
    printf '%s\n' "$array_script"
    printf '# --- %s/merge.sbatch (sbatch --parsable --dependency=afterok:<array job id> merge.sbatch)\n' "$sweep"
    printf '%s\n' "$merge_script"
    exit 0
fi
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: is this a Slurm login node? (--dry-run prints the scripts)"
[ ! -e "$sweep" ] || die "$sweep exists: give another --id"
mkdir -p "$sweep/logs"
printf '%s\n' "$array_script" >"$sweep/array.sbatch"
printf '%s\n' "$merge_script" >"$sweep/merge.sbatch"
array_job=$(sbatch --parsable "$sweep/array.sbatch")
array_job=${array_job%%;*}
printf 'sweep %s: job array %s (%s tasks:%s)\n' "$id" "$array_job" "$shards" "$shown"
wait_opt=""
[ "$wait" = 0 ] || wait_opt=--wait
set +e
merge_job=$(sbatch --parsable $wait_opt --dependency=afterok:"$array_job" --kill-on-invalid-dep=yes "$sweep/merge.sbatch")
rc=$?
set -e
merge_job=$(printf '%s\n' "$merge_job" | tail -n 1)
merge_job=${merge_job%%;*}
printf 'sweep %s: merge job %s (after every task of %s succeeded)\n' "$id" "$merge_job" "$array_job"
printf 'sweep %s: shards in %s/shards/<experiment>/shard-<i>/, merged runs in %s/<experiment>/,\n' "$id" "$sweep" "$sweep"
printf '  report %s/report.html, logs in %s/logs/\n' "$sweep" "$sweep"
if [ "$wait" = 1 ]; then
    # sbatch --wait exits 0 also when the merge job never ran (Slurm cancels it when a task
    # fails): the merged runs themselves say whether it succeeded.
    missing=""
    while IFS= read -r e; do
        [ -f "$sweep/$e/meta.ini" ] && [ ! -e "$sweep/$e/INCOMPLETE" ] || missing="$missing $e"
    done <<EOF
$experiments
EOF
    if [ $rc -ne 0 ] || [ -n "$missing" ]; then
        printf 'sweep %s: the merge job did not succeed (sbatch exit %s; no merged run of:%s): a task or the merge failed; see %s/logs/ and scontrol show job %s\n' \
            "$id" "$rc" "$missing" "$sweep" "$merge_job" >&2
        exit 1
    fi
    printf 'sweep %s: done:%s\n' "$id" "$done_dirs"
fi
