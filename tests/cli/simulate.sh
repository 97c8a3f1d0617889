#!/bin/sh
# SPDX-License-Identifier: MIT
# Simulated scenes ([scene] source = simulate): a pile of a few hundred boxes baked by Bullet is
# cached under <output>/cache/ (a second run bakes nothing), baking again gives the same trace
# byte for byte, every broad phase replays it to naive's pairs, the pile comes to rest with its
# contacts, simulation is a swept key and a column, cubes = 0 is the empty scene, and the
# simulation's keys are refused with file:line errors.
# usage: simulate.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
"$cdlab" methods 2>/dev/null | grep -q bullet || { echo "skip: built without Bullet"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
echo "ok few: cubes = 0 is the empty scene (no trace), 1 and 2 boxes baked, every simulation"
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
