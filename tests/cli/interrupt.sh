#!/bin/sh
# SPDX-License-Identifier: MIT
# Ctrl-C (SIGINT) or SIGTERM stops after the current point: exit 130 (143), and the run directory
# never looks finished. The rows measured stay in frames.csv.part and summary.csv.part (no final
# frames.csv, summary.csv or meta.ini), INCOMPLETE says "interrupted (SIGINT) after K of N
# points", meta.ini.part says status = interrupted, `latest` still points at the previous complete
# run, and `cdlab plot` refuses the directory. With order = rounds it stops after the current
# repeat, and every point measured in a finished round keeps its summary row, with the repeats it
# ran. A run killed with SIGKILL is marked too: INCOMPLETE was written when the directory was made,
# and readers call it abandoned (tests/cli/lifecycle.sh: the point's process dies with it).
# usage: interrupt.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A complete run of experiment NAME (a one-point, few-frame version of it) as run id `prev`:
# `latest` must still point there after the interrupted run.
complete_run() {
    sed -e 's/^cubes = .*/cubes = 100/' -e 's/^repeats = .*/repeats = 1/' "$tmp/$1.ini" >"$tmp/$1-small.ini"
    "$cdlab" run --quiet --output "$tmp" --run-id prev "$tmp/$1-small.ini" >/dev/null 2>&1 || fail "$1: small run failed"
    [ "$(readlink "$tmp/$1/latest")" = prev ] || fail "$1: latest is not prev after a complete run"
}

# What every run that did not finish must show in directory $1 (experiment $2): no final name,
# the marker, .part files, latest untouched, plot refuses.
check_incomplete() {
    d=$1 name=$2
    for f in frames.csv summary.csv meta.ini config.ini; do
        [ ! -e "$d/$f" ] || fail "$name: final $f in an incomplete run: $(ls "$d")"
    done
    [ -s "$d/INCOMPLETE" ] || fail "$name: no INCOMPLETE marker: $(ls "$d")"
    [ -s "$d/frames.csv.part" ] && [ -s "$d/summary.csv.part" ] || fail "$name: .part files not kept: $(ls "$d")"
    [ "$(readlink "$tmp/$name/latest")" = prev ] || fail "$name: latest moved to $(readlink "$tmp/$name/latest")"
    "$cdlab" plot "$d" >/dev/null 2>"$tmp/plot.err"
    prc=$?
    [ "$prc" -eq 2 ] || fail "$name: plot of an incomplete run exited $prc, expected 2"
    # "(abandoned: " before the line when nobody holds the marker's lock and it is the start line
    grep -qF "$d: incomplete run (" "$tmp/plot.err" && grep -qF "$(head -n 1 "$d/INCOMPLETE")" "$tmp/plot.err" ||
        fail "$name: plot message: $(cat "$tmp/plot.err")"
    grep -q '); nothing to plot$' "$tmp/plot.err" || fail "$name: plot message: $(cat "$tmp/plot.err")"
}

# Run NAME.ini as run id ID in the background, interrupt it with SIG (INT unless given) once
# `ready` (a function of the run directory) says so, and check what every interrupted run must
# show.
interrupt_when() {
    name=$1 id=$2 ready=$3 sig=${4:-INT}
    want=130
    [ "$sig" = TERM ] && want=143
    "$cdlab" run --quiet --output "$tmp" --run-id "$id" "$tmp/$name.ini" >/dev/null 2>"$tmp/run.err" &
    pid=$!
    d="$tmp/$name/$id"
    n=0
    while [ "$n" -lt 600 ]; do
        if "$ready" "$d"; then break; fi
        sleep 0.1
        n=$((n + 1))
    done
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, expected $want (SIG$sig)"
    check_incomplete "$d" "$name"
    head -n 1 "$d/INCOMPLETE" | grep -q "^interrupted (SIG$sig) after [0-9]* of [0-9]* points" ||
        fail "$name: INCOMPLETE: $(head -n 1 "$d/INCOMPLETE")"
    grep -q "incomplete run left in $d" "$tmp/run.err" || fail "$name: message: $(cat "$tmp/run.err")"
    grep -q '^complete = false' "$d/meta.ini.part" || fail "$name: meta.ini.part does not say incomplete"
    grep -q '^status = interrupted' "$d/meta.ini.part" || fail "$name: status not interrupted"
}

# The first point has landed in summary.csv.part.
first_point_done() { [ -f "$1/summary.csv.part" ] && [ "$(wc -l <"$1/summary.csv.part")" -ge 2 ]; }
# A frames.csv row of repeat 1 (round 2) is there (the column found by its name).
second_round_started() {
    [ -f "$1/frames.csv.part" ] &&
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "repeat") c = i; next } c && $c == 1 { f = 1; exit }
                 END { exit !f }' "$1/frames.csv.part"
}

cat >"$tmp/long.ini" <<'INI'
[experiment]
name = long
warmup = 0
frames = 20
repeats = 1
[scene]
cubes = 200..400000 *2
[run]
counters =
pin = off
cpu = -1
INI
complete_run long
interrupt_when long i first_point_done
done_points=$(sed -n 's/^points_done = //p' "$d/meta.ini.part")
rows=$(($(wc -l <"$d/summary.csv.part") - 1))
[ "$rows" -eq "$done_points" ] && [ "$rows" -ge 1 ] || fail "$rows summary rows, $done_points points done"
planned=$(sed -n 's/^points_planned = //p' "$d/meta.ini.part")
head -n 1 "$d/INCOMPLETE" | grep -q "^interrupted (SIGINT) after $done_points of $planned points" ||
    fail "INCOMPLETE: $(head -n 1 "$d/INCOMPLETE"), meta.ini.part: $done_points of $planned points done"
echo "ok: interrupted after $done_points of $planned points: marked INCOMPLETE, .part files kept, latest unchanged"
# SIGTERM, what a batch system sends before it preempts a job, stops the run the same way.
interrupt_when long t first_point_done TERM
echo "ok: SIGTERM: exit 143, marked INCOMPLETE with the reason"

# order = rounds, stopped in round 2 or later. A round takes about 70 ms here; 1000 of them keep the
# run going for a minute, so that a poll delayed by a loaded machine still finds it running (with
# 50 rounds it could finish first).
cat >"$tmp/rounds.ini" <<'INI'
[experiment]
name = rounds
warmup = 0
frames = 20
repeats = 1000
order = rounds
[scene]
cubes = 200, 400, 800
[run]
counters =
pin = off
cpu = -1
INI
complete_run rounds
interrupt_when rounds r second_round_started
rows=$(($(wc -l <"$d/summary.csv.part") - 1))
[ "$rows" -eq 3 ] || fail "rounds: $rows summary rows, expected all 3 points"
# The repeats column holds what each point ran: at least 1, fewer than 1000 for some.
r=$(head -n 1 "$d/summary.csv.part" | tr , '\n' | grep -nx repeats | cut -d: -f1)
awk -F, -v r="$r" 'NR > 1 && ($r < 1 || $r > 1000) { bad = 1 } NR > 1 && $r < 1000 { short = 1 } END { exit bad || !short }' \
    "$d/summary.csv.part" || fail "rounds: repeats column wrong: $(cut -d, -f1,"$r" "$d/summary.csv.part")"
frames=$(($(wc -l <"$d/frames.csv.part") - 1))
want=$(awk -F, -v r="$r" 'NR > 1 { s += $r * 20 } END { print s }' "$d/summary.csv.part")
[ "$frames" -eq "$want" ] || fail "rounds: $frames frame rows, summary says $want"
grep -q 'repeats measured (run stopped)' "$d/meta.ini.part" || fail "rounds: no warning about short points"
echo "ok: rounds interrupted, 3 summary rows with the repeats they ran, frames match"

# SIGKILL: nothing runs after it, yet the directory is marked from its start, and plot says the
# process is gone.
"$cdlab" run --quiet --output "$tmp" --run-id k "$tmp/long.ini" >/dev/null 2>&1 &
pid=$!
d="$tmp/long/k"
n=0
while [ "$n" -lt 600 ] && ! first_point_done "$d"; do
    sleep 0.1
    n=$((n + 1))
done
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
check_incomplete "$d" long
head -n 1 "$d/INCOMPLETE" | grep -q "^run started .* by pid $pid on " ||
    fail "SIGKILL: INCOMPLETE: $(head -n 1 "$d/INCOMPLETE")"
grep -q "(abandoned: run started .* by pid $pid on .*; no process holds the run's lock" "$tmp/plot.err" ||
    fail "SIGKILL: plot does not say the run was abandoned: $(cat "$tmp/plot.err")"
[ -s "$d/config.ini.part" ] || fail "SIGKILL: no config.ini.part"
echo "ok: SIGKILL: marked from the start, plot refuses and says the run was abandoned"
