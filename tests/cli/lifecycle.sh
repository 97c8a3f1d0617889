#!/bin/sh
# SPDX-License-Identifier: MIT
# A run never outlives its runner and never writes into a dead run:
# - `kill -9` of the runner in the middle of a long point: after 1 s no process of the run is
#   left, frames.csv.part grows no more, and every reader (plot, report, compare, merge, snapshot,
#   run --resume) calls the directory abandoned; while it ran they called it in progress, told by
#   the lock on INCOMPLETE, not by a pid.
# - A second SIGINT/SIGTERM ends the current point at once: with isolate = process its process is
#   killed and the run stops as interrupted; with isolate = none the runner ends at once and
#   INCOMPLETE says why.
# - [run] point_timeout fails a point that runs too long (either isolation) and lets others be.
# - With isolate = none an allocation that fails still leaves INCOMPLETE with the reason.
# The points never end on their own (10^7 frames of 500 cubes with the naive method), so every
# step is bounded by the test's signals, not by the machine's speed.
# usage: lifecycle.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
pids=
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# NAME [KEY = VALUE]...: a config NAME.ini whose one point runs until stopped.
long_config() {
    name=$1
    shift
    printf '[experiment]\nname = %s\nwarmup = 0\nframes = 10000000\nrepeats = 1\n[scene]\ncubes = 500\n' "$name" >"$name.ini"
    printf '[method]\nmethod = naive\n[run]\ncounters =\npin = off\ncpu = -1\n' >>"$name.ini"
    for kv in "$@"; do echo "$kv" >>"$name.ini"; done
}

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# Wait (at most 60 s) until DIR's frames.csv.part holds rows and grows.
wait_writing() {
    n=0
    while [ "$n" -lt 600 ]; do
        a=$(size "$1/frames.csv.part")
        if [ "$a" -gt 4096 ]; then
            sleep 0.2
            [ "$(size "$1/frames.csv.part")" -gt "$a" ] && return 0
        fi
        sleep 0.1
        n=$((n + 1))
    done
    fail "$1: no frame rows after 60 s"
}

# Is process PID still running (a zombie waiting for its reaper runs no more)?
running() {
    st=$(ps -o stat= -p "$1" 2>/dev/null)
    [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# ---------------------------------------------------------------------------------------------
# kill -9 of the runner mid-point.
long_config long
"$cdlab" run --quiet --output out --run-id k long.ini >/dev/null 2>run.err &
runner=$!
pids="$runner"
d=out/long/k
wait_writing "$d"
kids=$(pgrep -P "$runner")
[ -n "$kids" ] || fail "no point process under the runner (isolate = auto is process)"
pids="$pids $kids"
"$cdlab" plot "$d" >/dev/null 2>live.txt
grep -q "incomplete run (in progress: run started .* by pid $runner on .*; its runner holds the run's lock)" live.txt ||
    fail "plot of a live run: $(cat live.txt)"
"$cdlab" run --quiet --resume --run-id k --output out long.ini >/dev/null 2>resume_live.txt
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot continue this run: in progress" resume_live.txt ||
    fail "--resume of a live run: exit $rc: $(cat resume_live.txt)"
echo "ok: while it runs: $(cat live.txt)"

kill -9 "$runner"
{ wait "$runner"; } 2>/dev/null
sleep 1
for k in $kids; do
    running "$k" && fail "the point's process $k still runs 1 s after the runner was killed: $(ps -o pid,stat,cmd -p "$k")"
done
a=$(size "$d/frames.csv.part")
sleep 1
b=$(size "$d/frames.csv.part")
[ "$a" -eq "$b" ] || fail "frames.csv.part grew from $a to $b bytes after the runner was killed"
echo "ok: kill -9: no process of the run left after 1 s; frames.csv.part stays at $b bytes"

# What each reader says of the directory: abandoned, exit 2.
abandoned="incomplete run (abandoned: run started .* by pid $runner on .*; no process holds the run's lock"
reader() {
    what=$1
    shift
    "$@" >/dev/null 2>reader.txt
    rc=$?
    [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2: $(cat reader.txt)"
    grep -q "$abandoned" reader.txt || fail "$what: $(cat reader.txt)"
    echo "ok: $what (exit 2): $(head -n 1 reader.txt)"
}
reader plot "$cdlab" plot "$d"
reader report "$cdlab" report -o report.html "$d"
reader compare "$cdlab" compare "$d" "$d"
reader merge "$cdlab" merge "$d" -o merged
reader snapshot "$cdlab" snapshot "$d"
[ ! -e merged ] && [ ! -e report.html ] || fail "a reader wrote output for an abandoned run"

# --resume takes the abandoned run over; two signals then end its point at once (isolate = process).
"$cdlab" run --resume --run-id k --output out long.ini >/dev/null 2>resume.txt &
runner=$!
pids="$pids $runner"
n=0
until grep -q "resuming" resume.txt || [ "$n" -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
grep -q "resuming .*$d: 0 of 1 points done already (abandoned: run started .* by pid " resume.txt ||
    fail "--resume: $(cat resume.txt)"
echo "ok: run --resume: $(head -n 1 resume.txt)"
wait_writing "$d"
kids=$(pgrep -P "$runner")
pids="$pids $kids"
kill -INT "$runner"
sleep 0.5
running "$runner" || fail "one SIGINT ended the point (it should wait for the point's end)"
kill -INT "$runner"
wait "$runner"
rc=$?
[ "$rc" -eq 130 ] || fail "two SIGINTs: exit $rc, expected 130: $(cat resume.txt)"
head -n 1 "$d/INCOMPLETE" | grep -q "^interrupted (SIGINT, a second time: point 0 cut short) after 0 of 1 points$" ||
    fail "two SIGINTs: INCOMPLETE: $(head -n 1 "$d/INCOMPLETE")"
for k in $kids; do running "$k" && fail "two SIGINTs: the point's process $k still runs"; done
grep -q '^status = interrupted' "$d/meta.ini.part" || fail "two SIGINTs: meta.ini.part: $(grep status "$d/meta.ini.part")"
echo "ok: a second SIGINT kills the point's process: exit 130, $(head -n 1 "$d/INCOMPLETE")"

# isolate = none: the point runs in the runner; a second SIGTERM ends the runner and says why.
long_config none "isolate = none"
"$cdlab" run --quiet --output out --run-id n none.ini >/dev/null 2>none.err &
runner=$!
pids="$pids $runner"
wait_writing out/none/n
kill -TERM "$runner"
sleep 0.5
running "$runner" || fail "isolate = none: one SIGTERM ended the point"
kill -TERM "$runner"
wait "$runner"
rc=$?
[ "$rc" -eq 143 ] || fail "isolate = none, two SIGTERMs: exit $rc, expected 143: $(cat none.err)"
head -n 1 out/none/n/INCOMPLETE |
    grep -q "^interrupted (SIGTERM, a second time) during point 0: cut short (isolate = none: the runner ended at once); 0 of 1 points done$" ||
    fail "isolate = none, two SIGTERMs: INCOMPLETE: $(head -n 1 out/none/n/INCOMPLETE)"
"$cdlab" plot out/none/n >/dev/null 2>plot.txt
grep -q "incomplete run (interrupted (SIGTERM, a second time) during point 0" plot.txt || fail "plot: $(cat plot.txt)"
echo "ok: isolate = none: a second SIGTERM ends the runner at once: exit 143, $(head -n 1 out/none/n/INCOMPLETE)"

# ---------------------------------------------------------------------------------------------
# [run] point_timeout: a point that runs past it fails like any failed point.
for iso in process none; do
    long_config "t_$iso" "isolate = $iso" "point_timeout = 0.5"
    "$cdlab" run --quiet --output out --run-id t "t_$iso.ini" >/dev/null 2>t.err
    rc=$?
    [ "$rc" -eq 1 ] || fail "point_timeout, isolate = $iso: exit $rc, expected 1: $(cat t.err)"
    head -n 1 "out/t_$iso/t/INCOMPLETE" | grep -q "^point 0: it ran past \[run\] point_timeout = 0.5 s" ||
        fail "point_timeout, isolate = $iso: INCOMPLETE: $(head -n 1 "out/t_$iso/t/INCOMPLETE")"
    grep -q "point 0: it ran past \[run\] point_timeout = 0.5 s" t.err || fail "point_timeout: message: $(cat t.err)"
    echo "ok: point_timeout, isolate = $iso: exit 1, $(head -n 1 "out/t_$iso/t/INCOMPLETE")"
done
grep -q '^status = failed' out/t_process/t/meta.ini.part || fail "point_timeout: meta.ini.part status"
# In rounds, either isolation names the round that ran past it.
for iso in process none; do
    long_config "r_$iso" "isolate = $iso" "point_timeout = 0.5"
    sed -i -e 's/^repeats = 1/repeats = 2\norder = rounds/' "r_$iso.ini"
    "$cdlab" run --quiet --output out --run-id t "r_$iso.ini" >/dev/null 2>t.err
    rc=$?
    [ "$rc" -eq 1 ] || fail "point_timeout in rounds, isolate = $iso: exit $rc, expected 1: $(cat t.err)"
    head -n 1 "out/r_$iso/t/INCOMPLETE" | grep -q "^point 0, round 1 of 2: it ran past \[run\] point_timeout = 0.5 s" ||
        fail "point_timeout in rounds, isolate = $iso: INCOMPLETE: $(head -n 1 "out/r_$iso/t/INCOMPLETE")"
    echo "ok: point_timeout in rounds, isolate = $iso: $(head -n 1 "out/r_$iso/t/INCOMPLETE")"
done
# A point inside the limit is not touched.
printf '[experiment]\nname = quick\nwarmup = 0\nframes = 2\nrepeats = 1\n[scene]\ncubes = 50\n' >quick.ini
printf '[run]\ncounters =\npin = off\ncpu = -1\npoint_timeout = 600\n' >>quick.ini
"$cdlab" run --quiet --output out --run-id q quick.ini >/dev/null 2>q.err || fail "point_timeout = 600: $(cat q.err)"
[ -f out/quick/q/meta.ini ] && [ ! -e out/quick/q/INCOMPLETE ] || fail "point_timeout = 600: run not complete"
echo "ok: point_timeout = 600: a quick point completes"

# ---------------------------------------------------------------------------------------------
# isolate = none, an allocation that fails (a 400 MB address space for 4·10^6 cubes): INCOMPLETE
# names it. AddressSanitizer's shadow memory does not fit such a limit: skipped there.
if ldd "$cdlab" 2>/dev/null | grep -q libasan; then
    echo "skip: allocation failure under a memory limit (an ASan build)"
    exit 0
fi
printf '[experiment]\nname = oom\nwarmup = 0\nframes = 2\nrepeats = 1\n[scene]\ncubes = 4000000\n' >oom.ini
printf '[run]\ncounters =\npin = off\ncpu = -1\nisolate = none\n' >>oom.ini
(ulimit -v 400000 && exec "$cdlab" run --quiet --output out --run-id m oom.ini) >/dev/null 2>oom.err
rc=$?
[ "$rc" -ne 0 ] || fail "oom: exit 0"
head -n 1 out/oom/m/INCOMPLETE | grep -q "^crashed (SIGABRT) during point 0: out of memory allocating [0-9]* bytes; 0 of 1 points done$" ||
    fail "oom: INCOMPLETE: $(cat out/oom/m/INCOMPLETE 2>&1); stderr: $(cat oom.err)"
"$cdlab" plot out/oom/m >/dev/null 2>plot.txt
grep -q "incomplete run (crashed (SIGABRT) during point 0: out of memory" plot.txt || fail "oom: plot: $(cat plot.txt)"
echo "ok: isolate = none, out of memory: exit $rc, $(head -n 1 out/oom/m/INCOMPLETE)"
