#!/bin/sh
# SPDX-License-Identifier: MIT
# Simulated scenes ([scene] source = simulate): a pile of a few hundred boxes baked by Bullet is
# cached under <output>/cache/ (a second run bakes nothing), baking again gives the same trace
# byte for byte, every broad phase replays it to naive's pairs, the pile comes to rest with its
# contacts, simulation is a swept key and a column, cubes = 0 is the empty scene, a damaged cached
# trace is baked again to the same bytes (its SHA-256 is recorded beside it), the trace a run
# replayed is in its meta.ini [inputs] (after a resume and a merge too), and the simulation's keys
# are refused with file:line errors.
# usage: simulate.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
"$cdlab" methods 2>/dev/null | grep -q bullet || { echo "skip: built without Bullet"; exit 77; }
tmp=$(mktemp -d)
locker=""
trap '[ -z "$locker" ] || kill "$locker" 2>/dev/null || true; rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
cols() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
        { print $h["repeat"], $h["frame"], $h["cubes"], $h["pairs"], $h["moved"] }' "$1"
}
cat >pile.ini <<'INI'
[experiment]
name = pile
warmup = 1
frames = 30
repeats = 1
[method]
method = naive, grid_multi, sap
[scene]
source = simulate
simulation = pile
cubes = 200
sim_steps = 4
INI
"$cdlab" run --output . --run-id a pile.ini >/dev/null 2>err || fail "run: $(cat err)"
grep -q "simulate: pile, 200 boxes: frame 32 of 32 baked" err || fail "no progress line: $(cat err)"
set -- cache/simulate-*.trace
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one cached trace, found: $*"
trace=$1
sum=$(sha256sum "$trace" | cut -d' ' -f1)
"$cdlab" run --output . --run-id b pile.ini >/dev/null 2>err || fail "second run: $(cat err)"
! grep -q "simulate:" err || fail "the second run baked again: $(cat err)"
rm "$trace"
"$cdlab" run --quiet --output . --run-id c pile.ini >/dev/null || fail "third run"
[ "$(sha256sum "$trace" | cut -d' ' -f1)" = "$sum" ] || fail "baking twice gave two traces"
echo "ok bake: cached, not baked twice, baked again byte for byte ($sum)"
# Processes that want one trace take turns on its lock file: held here (as a process baking it
# would hold it) until two runs started together say they wait for it; then one bakes and the
# other reads that. A third run waiting on it ends at its second SIGINT, as any point does.
if command -v flock >/dev/null 2>&1; then
    rm "$trace" "$trace.sha256"
    # Both waiting: each run's stderr says so (polled; the lock is let go only then).
    waiting() { grep -q "^simulate: waiting for another process that checks or bakes ./cache/simulate-.*\.trace$" "$1"; }
    flock "$trace.lock" sh -c 'while [ ! -e release ]; do sleep 0.05; done' &
    locker=$!
    until [ -e "$trace.lock" ]; do sleep 0.05; done
    "$cdlab" run --output . --run-id d pile.ini >/dev/null 2>d.err &
    d=$!
    "$cdlab" run --output . --run-id e pile.ini >/dev/null 2>e.err &
    e=$!
    n=0
    until { waiting d.err && waiting e.err; } || [ $n -ge 1200 ]; do sleep 0.05; n=$((n + 1)); done
    touch release
    wait $d || fail "run d: $(cat d.err)"
    wait $e || fail "run e: $(cat e.err)"
    wait $locker
    rm release
    for f in d e; do waiting $f.err || fail "run $f did not wait: $(cat $f.err)"; done
    [ "$(cat d.err e.err | grep -c "frame 32 of 32 baked")" -eq 1 ] || fail "not baked once: $(cat d.err e.err)"
    ! grep -q "baked it again" d.err e.err || fail "a trace taken for a damaged one: $(cat d.err e.err)"
    [ "$(sha256sum "$trace" | cut -d' ' -f1)" = "$sum" ] || fail "the trace baked under the lock differs"
    echo "ok lock: two runs wait for the trace's lock, one bakes, the other reads it"
    # Interrupted while it waits: the runner (which never waits on the lock itself) kills the
    # waiting point's process at the second SIGINT and ends as interrupted.
    rm "$trace" "$trace.sha256"
    flock "$trace.lock" sh -c 'while [ ! -e release ]; do sleep 0.05; done' &
    locker=$!
    until [ -e "$trace.lock" ]; do sleep 0.05; done
    env --default-signal=INT "$cdlab" run --output . --run-id i pile.ini >/dev/null 2>i.err &
    i=$!
    n=0
    until waiting i.err || [ $n -ge 1200 ]; do sleep 0.05; n=$((n + 1)); done
    kill -INT $i
    sleep 0.2
    kill -INT $i
    n=0
    while kill -0 $i 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    if kill -0 $i 2>/dev/null; then
        touch release
        fail "a run waiting on the trace's lock did not end at its second SIGINT: $(cat i.err)"
    fi
    rc=0
    wait $i || rc=$?
    touch release
    wait $locker
    rm release
    [ $rc -eq 130 ] && grep -q "^interrupted (SIGINT" pile/i/INCOMPLETE || fail "interrupted while waiting: exit $rc, $(cat i.err)"
    "$cdlab" run --quiet --output . --run-id j pile.ini >/dev/null || fail "run after the interrupted one"
    [ "$(sha256sum "$trace" | cut -d' ' -f1)" = "$sum" ] || fail "the trace baked after an interrupted wait differs"
    echo "ok lock: a run waiting on it ends at its second SIGINT (exit 130)"
else
    echo "skip lock: no flock(1)"
fi
cols pile/a/frames.csv >a.txt
cols pile/c/frames.csv >c.txt
cmp -s a.txt c.txt || fail "two runs of the pile differ"
for m in grid_multi sap; do
    awk -F, -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
        NR > 1 && $h["method"] == "naive" { p[$h["frame"]] = $h["pairs"] }
        NR > 1 && $h["method"] == m { n++; if ($h["pairs"] != p[$h["frame"]]) bad++ }
        END { exit (n == 30 && !bad) ? 0 : 1 }' pile/a/frames.csv || fail "$m's pairs differ from naive's"
done
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } NR > 1 && $h["pairs"] > 0 { n++ } END { exit n > 0 ? 0 : 1 }' \
    pile/a/frames.csv || fail "the pile has no contacts"
echo "ok replay: grid_multi and sap equal naive on every frame; two runs equal"
# The pile comes to rest: 150 frames of 4 steps (10 s), then no box moves and the contacts stay
# (a heap of 200 boxes, three layers high, has about 80 overlapping pairs at rest).
sed -e 's/^name = pile/name = rest/' -e 's/^frames = 30/frames = 150/' -e 's/^method = .*/method = naive/' pile.ini >rest.ini
"$cdlab" run --quiet --output . --run-id a rest.ini >/dev/null || fail "rest run"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } NR > 1 { m = $h["moved"]; p = $h["pairs"] }
    END { print "last frame: moved " m ", pairs " p; exit (m == 0 && p > 50) ? 0 : 1 }' rest/a/frames.csv >last.txt ||
    fail "the pile is not at rest: $(cat last.txt)"
echo "ok rest: 200 piled boxes, $(cat last.txt)"
# simulation is swept like any key and names each row: one trace baked per simulation.
cat >sweep.ini <<'INI'
[experiment]
name = sweep
warmup = 0
frames = 2
repeats = 1
[scene]
source = simulate
simulation = brownian, pile
cubes = 50
INI
"$cdlab" run --quiet --output sw --run-id a sweep.ini >/dev/null || fail "sweep run"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; if (!("simulation" in h)) exit 1; next }
    { n[$h["simulation"]]++ } END { exit (n["brownian"] == 2 && n["pile"] == 2) ? 0 : 1 }' sw/sweep/a/frames.csv ||
    fail "frames.csv has no simulation column with brownian and pile: $(head -1 sw/sweep/a/frames.csv)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { n[$h["simulation"]]++ }
    END { exit (n["brownian"] == 1 && n["pile"] == 1) ? 0 : 1 }' sw/sweep/a/summary.csv || fail "summary.csv by simulation"
set -- sw/cache/simulate-*.trace
[ $# -eq 2 ] || fail "expected two cached traces, found: $*"
echo "ok sweep: simulation = brownian, pile makes two points, a column and two traces"
# No boxes: cubes = 0 measures the empty scene, as source = seeded does, with no simulation and
# no trace; 1 and 2 boxes are baked and replayed, for every simulation. In the runner's own
# process (isolate = none), where a crash of the simulation would take the runner down.
cat >few.ini <<'INI'
[experiment]
name = few
warmup = 0
frames = 3
repeats = 1
[method]
method = naive, grid_multi
[scene]
source = simulate
simulation = brownian, free_fall, gravity, pile
cubes = 0, 1, 2
[run]
isolate = none
INI
set +e
"$cdlab" run --quiet --output few --run-id a few.ini >/dev/null 2>err
rc=$?
set -e
[ $rc -eq 0 ] || fail "cubes = 0, 1, 2: exit $rc, $(cat err)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    { n[$h["cubes"]]++; if ($h["pairs_mean"] != 0 || ($h["cubes"] == 0 && $h["moved_mean"] != 0)) bad++ }
    END { exit (n[0] == 8 && n[1] == 8 && n[2] == 8 && !bad) ? 0 : 1 }' few/few/a/summary.csv ||
    fail "cubes = 0, 1, 2: expected 8 rows each, no pairs: $(cat few/few/a/summary.csv)"
set -- few/cache/simulate-*.trace
[ $# -eq 8 ] || fail "cubes = 0, 1, 2: expected 8 traces (none for 0 boxes), found: $*"
# The same bits baked in one process after the others and each in a process of its own.
cat few/cache/*.sha256 >one.txt
rm -r few/cache
sed '/^isolate = none$/d' few.ini >few2.ini
"$cdlab" run --quiet --output few --run-id b few2.ini >/dev/null || fail "cubes = 0, 1, 2, isolate = process"
cat few/cache/*.sha256 | cmp -s - one.txt || fail "baked in one process and in eight, the traces differ"
echo "ok few: cubes = 0 is the empty scene (no trace), 1 and 2 boxes baked; the same bits in one process or eight"
# The cache's integrity: each trace's SHA-256 is recorded beside it when baked (a sha256sum line
# in <trace>.sha256) and checked before use; a trace cut short, emptied, holding a NaN, changed
# into another valid trace (a box moved), without its sidecar or replaced by an empty directory
# is baked again, to the same bytes, with a warning on stderr and in meta.ini. The trace a run
# replayed is in its meta.ini [inputs].
cat >cache.ini <<'INI'
[experiment]
name = integrity
warmup = 0
frames = 3
repeats = 1
[method]
method = naive
[scene]
source = simulate
simulation = gravity
cubes = 60
INI
"$cdlab" run --quiet --output ca --run-id a cache.ini >/dev/null || fail "cache run"
set -- ca/cache/simulate-*.trace
trace=$1
[ -f "$trace.sha256" ] || fail "no sidecar $trace.sha256"
(cd ca/cache && sha256sum -c --quiet "${trace##*/}.sha256") || fail "the sidecar is not the trace's sha256sum line"
sum=$(sha256sum "$trace" | cut -d' ' -f1)
real=$(cd ca/cache && pwd -P)/${trace##*/}
meta=ca/integrity/a/meta.ini
grep -q "^count = 1$" $meta && grep -q "^i1_path = $real$" $meta && grep -q "^i1_sha256 = $sum$" $meta &&
    grep -q "^i1_bytes = $(wc -c <"$trace")$" $meta && grep -q "^i1_derived = simulate$" $meta ||
    fail "meta.ini [inputs] lacks the trace: $(sed -n '/^\[inputs\]/,/^\[machine\]/p' $meta)"
pairs() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h["pairs"] }' "$1"; }
pairs ca/integrity/a/frames.csv >pairs_a.txt
# Damage: a float written at a byte offset of the trace (little-endian; 5.0 is 00 00 a0 40, a quiet
# NaN 00 00 c0 7f). The first pose of frame 1 starts at 80 + 12N + 28N.
poke() { printf "$2" | dd of="$trace" bs=1 seek="$1" conv=notrunc 2>/dev/null; }
frame1=$((80 + 12 * 60 + 28 * 60))
k=0
for damage in cut empty nan moved sidecar dir; do
    k=$((k + 1))
    case $damage in
    cut) dd if=/dev/null of="$trace" bs=1 seek=3000 2>/dev/null ;;
    empty) : >"$trace" ;;
    nan) poke $frame1 '\000\000\300\177' ;;
    moved) for o in 16 20 24; do poke $((frame1 + o)) '\000\000\240\100'; done ;;  # box 0 at (5, 5, 5)
    sidecar) rm "$trace.sha256" ;;
    dir) rm "$trace" && mkdir "$trace" ;;
    esac
    "$cdlab" run --output ca --run-id d$k cache.ini >/dev/null 2>err || fail "$damage: the run failed: $(cat err)"
    grep -q "^cdlab: warning: \[scene\] source = simulate: .*; baked it again$" err ||
        fail "$damage: no warning on stderr: $(cat err)"
    grep -q "baked it again" ca/integrity/d$k/meta.ini || fail "$damage: no warning in meta.ini"
    [ "$(sha256sum "$trace" | cut -d' ' -f1)" = "$sum" ] || fail "$damage: baked again to other bytes"
    (cd ca/cache && sha256sum -c --quiet "${trace##*/}.sha256") || fail "$damage: the sidecar"
    grep -q "^i1_sha256 = $sum$" ca/integrity/d$k/meta.ini || fail "$damage: meta.ini [inputs]"
    pairs ca/integrity/d$k/frames.csv | cmp -s - pairs_a.txt || fail "$damage: other pairs than the first run's"
done
echo "ok cache: a trace cut, emptied, with a NaN, moved, without its sidecar or a directory is baked again ($sum)"
# A trace that cannot be baked again (a directory with a file in it) fails the point, saying what
# to remove.
rm -r "$trace" && mkdir "$trace" && : >"$trace/x"
set +e
"$cdlab" run --quiet --output ca --run-id x cache.ini >/dev/null 2>err
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "not a regular file, and it cannot be removed to bake it again: .*; remove it and run" err ||
    fail "a directory that cannot be removed: exit $rc, $(cat err)"
rm -r "$trace"
echo "ok cache: a directory in the trace's place that cannot be removed is named, with what to do"
# --resume: the traces an earlier attempt's points replayed stay in meta.ini [inputs] (progress.part
# "derived" lines), not checked against the cache (deleted here: a bake again gives the same
# bytes); a point of the resumed attempt that reads other bytes than the earlier record fails.
sed -e 's/^name = integrity/name = res/' -e 's/^simulation = .*/simulation = gravity, brownian/' cache.ini >res.ini
"$cdlab" run --quiet --output rs --run-id w res.ini >/dev/null || fail "resume: the whole run"
set -- rs/cache/simulate-*.trace
[ $# -eq 2 ] || fail "resume: expected two traces, found $*"
for t in "$@"; do [ "$(sha256sum "$t" | cut -d' ' -f1)" = "$sum" ] && g=$t || b=$t; done
rm "$b" && mkdir "$b" && : >"$b/x"  # brownian's point fails
set +e
"$cdlab" run --quiet --output rs --run-id r res.ini >/dev/null 2>err
rc=$?
set -e
[ $rc -eq 1 ] && [ -f rs/res/r/INCOMPLETE ] || fail "resume: expected the brownian point to fail: exit $rc, $(cat err)"
grep -q "^derived $sum [0-9]* simulate $(cd rs/cache && pwd -P)/${g##*/}$" rs/res/r/progress.part ||
    fail "resume: progress.part lacks the gravity trace: $(cat rs/res/r/progress.part)"
# A copy whose record of the gravity trace differs and whose gravity point is to run again.
cp -r rs/res/r rs/res/c
zero=0000000000000000000000000000000000000000000000000000000000000000
awk -v s="$sum" -v z=$zero '$1 == "derived" && $2 == s { $2 = z } $1 != "done" { print }' rs/res/r/progress.part \
    >rs/res/c/progress.part
set +e
"$cdlab" run --quiet --output rs --resume --run-id c res.ini >/dev/null 2>err
rc=$?
set -e
head=${sum%"${sum#????????????}"}  # its first 12 digits
[ $rc -eq 1 ] && grep -q "point 0: .*SHA-256 $head\.\.\., [0-9]* bytes, but this run's earlier" err &&
    grep -q "(or the attempt it resumes) read 000000000000\.\.\., [0-9]* bytes: two different files" err ||
    fail "resume: a trace other than the recorded one: exit $rc, $(cat err)"
rm -r "$b" "$g" "$g.sha256"
"$cdlab" run --quiet --output rs --resume --run-id r res.ini >/dev/null 2>err || fail "resume: $(cat err)"
grep -q "^count = 2$" rs/res/r/meta.ini && grep -q "^i[12]_sha256 = $sum$" rs/res/r/meta.ini &&
    [ "$(grep -c "^i[12]_derived = simulate$" rs/res/r/meta.ini)" -eq 2 ] ||
    fail "resume: meta.ini [inputs] lacks a trace: $(sed -n '/^\[inputs\]/,/^\[machine\]/p' rs/res/r/meta.ini)"
[ ! -e "$g" ] || fail "resume: the gravity trace was baked again for a point already done"
echo "ok resume: the earlier attempt's trace recorded and not baked again; another one fails the point"
# Shards record the traces their own points replayed; the merged run lists every one.
"$cdlab" run --quiet --output rs --shard 0/2 --run-id s0 res.ini >/dev/null || fail "shard 0"
"$cdlab" run --quiet --output rs --shard 1/2 --run-id s1 res.ini >/dev/null || fail "shard 1"
"$cdlab" merge --quiet rs/res/s0 rs/res/s1 -o rs/res/m >/dev/null || fail "merge"
for d in s0 s1; do grep -q "^count = 1$" rs/res/$d/meta.ini || fail "shard $d: expected one trace in [inputs]"; done
grep -q "^count = 2$" rs/res/m/meta.ini && [ "$(grep -c "^i[12]_derived = simulate$" rs/res/m/meta.ini)" -eq 2 ] &&
    grep -q "^i[12]_sha256 = $sum$" rs/res/m/meta.ini ||
    fail "merge: [inputs] lacks a shard's trace: $(sed -n '/^\[inputs\]/,/^\[machine\]/p' rs/res/m/meta.ini)"
echo "ok shards: each records its trace, the merge both"
# --dry-run names the trace each point bakes or reads, with its size (80 + 12N + 28N(1 + warmup +
# frames) bytes), and warns when the traces to bake exceed the free disk space.
sed -e 's/^method = naive/method = naive, sap/' cache.ini >dry.ini
"$cdlab" run --dry-run --output dr dry.ini >dry.txt 2>err || fail "dry run: $(cat err)"
made="^    first makes dr/cache/simulate-[0-9a-f]*\.trace (.* on disk, baked by simulation gravity: 60 boxes, 4 frames"
grep -q "$made" dry.txt && grep -q "^    reads dr/cache/simulate-[0-9a-f]*\.trace (.*, made for point 0)$" dry.txt &&
    grep -q "; 1 file(s) to make first, .* on disk, their time not counted$" dry.txt || fail "dry run: $(cat dry.txt)"
"$cdlab" run --quiet --output dr --run-id a dry.ini >/dev/null || fail "dry run: the run"
set -- dr/cache/simulate-*.trace
[ "$(wc -c <"$1")" -eq $((80 + 12 * 60 + 28 * 60 * 4)) ] || fail "dry run: the trace's size"
grep -q "^    first makes $1 " dry.txt || fail "dry run: named another trace than $1"
"$cdlab" run --dry-run --output dr dry.ini >dry.txt 2>err || fail "dry run again: $(cat err)"
[ "$(grep -c "^    reads $1 (.*, there already)$" dry.txt)" -eq 2 ] && ! grep -q "to make first" dry.txt ||
    fail "dry run with the trace cached: $(cat dry.txt)"
sed -e 's/^cubes = 60/cubes = 100000000/' -e 's/^frames = 3/frames = 10000000/' cache.ini >huge.ini
"$cdlab" run --dry-run --output dr huge.ini >/dev/null 2>err || fail "dry run huge: $(cat err)"
grep -q "^cdlab run: warning: huge.ini: the 1 file(s) its points make before they measure (.*) exceed the" err ||
    fail "dry run huge: no disk warning: $(cat err)"
echo "ok dry run: the trace to bake or read under each point, its size, the disk warning"
# snapshot and trace record replay the trace a run bakes: a config's under [run] output relative
# to the working directory (as cdlab run), a run directory's under its own results root (given as
# latest, with a trailing '/' or as "."); none bakes a second one beside the config.
mkdir -p sub/cfg
cp pile.ini sub/cfg/pile.ini
printf '[run]\noutput = res\n' >>sub/cfg/pile.ini
(cd sub && "$cdlab" run --quiet --run-id a cfg/pile.ini >/dev/null) || fail "run from sub"
set -- sub/res/cache/simulate-*.trace
[ $# -eq 1 ] || fail "the run's cache: $*"
run=$(pwd)/sub/res/pile/a
(cd sub && "$cdlab" snapshot --frame 3 -o "$tmp/s1" cfg/pile.ini >/dev/null 2>err) || fail "snapshot config: $(cat sub/err)"
(cd sub && "$cdlab" trace record cfg/pile.ini -o "$tmp/r.trace" >/dev/null 2>err) || fail "trace record: $(cat sub/err)"
(cd / && "$cdlab" snapshot --frame 3 -o "$tmp/s2" "$tmp/sub/res/pile/latest" >/dev/null 2>"$tmp/err") ||
    fail "snapshot latest: $(cat err)"
(cd / && "$cdlab" snapshot --frame 3 -o "$tmp/s3" "$run/" >/dev/null 2>"$tmp/err") || fail "snapshot run/: $(cat err)"
(cd "$run" && "$cdlab" snapshot --frame 3 -o "$tmp/s4" . >/dev/null 2>"$tmp/err") || fail "snapshot .: $(cat err)"
! grep -q "simulate:" sub/err err || fail "baked again: $(cat sub/err err)"
[ -z "$(find sub -name 'simulate-*.trace' ! -path 'sub/res/cache/*')" ] ||
    fail "a trace outside the run's results root: $(find sub -name 'simulate-*.trace')"
cmp -s s1.svg s2.svg && cmp -s s2.svg s3.svg && cmp -s s3.svg s4.svg || fail "the snapshots differ"
echo "ok snapshot and trace record: the run's cached trace, not one baked beside the config"
# Refusals.
printf '[scene]\nsource = simulate\nsimulation = avalanche\n' >bad1.ini
printf '[scene]\nsource = simulate\ntrace = x.trace\n' >bad2.ini
for f in bad1 bad2; do
    set +e
    "$cdlab" run --output . $f.ini >/dev/null 2>err
    rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q "$f.ini:[0-9]*: " err || fail "$f: exit $rc, $(cat err)"
done
echo "ok refusals: an unknown simulation and a trace beside it, file:line, exit 2"
