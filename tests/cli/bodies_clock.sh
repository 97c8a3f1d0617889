#!/bin/sh
# SPDX-License-Identifier: MIT
# The bodies kind on the thread CPU clock ([measure] clock = cpu): every frame has a positive
# frame_ms and NA in the wall-clock split (motion, refit, broad, narrow), the wall-clock run has
# the split, and both find the same pairs and make the same tests (the clock changes only times).
# The moved column counts the bodies whose box changed: all 40, and 20 with [bodies] moving = 0.5.
# usage: bodies_clock.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$fix/bodies_clock.ini" "$tmp/wall.ini"
sed 's/^\[method\]/[measure]\nclock = cpu\n\n[method]/' "$fix/bodies_clock.ini" >"$tmp/cpu.ini"
grep -q '^clock = cpu' "$tmp/cpu.ini" || { echo "FAIL: could not write the cpu config"; exit 1; }
"$cdlab" run --quiet --output "$tmp/out" --run-id wall "$tmp/wall.ini" >/dev/null
"$cdlab" run --quiet --output "$tmp/out" --run-id cpu "$tmp/cpu.ini" >/dev/null
# column NAME of FILE, one value per row
col() {
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"
}
status=0
cpu=$tmp/out/bodies_clock/cpu/frames.csv wall=$tmp/out/bodies_clock/wall/frames.csv
[ "$(col "$cpu" frame_ms | wc -l)" -eq 4 ] || { echo "FAIL: expected 4 frames"; status=1; }
col "$cpu" frame_ms | awk '!($1 + 0 > 0) { bad = 1 } END { exit bad }' ||
    { echo "FAIL: a CPU-clock frame_ms is not positive"; status=1; }
for c in motion_ms refit_ms broad_ms narrow_ms; do
    [ "$(col "$cpu" "$c" | sort -u)" = NA ] || { echo "FAIL: $c is not NA on the CPU clock"; status=1; }
    col "$wall" "$c" | awk '$1 == "NA" { bad = 1 } END { exit bad }' ||
        { echo "FAIL: $c is NA on the wall clock"; status=1; }
done
for c in candidates queries pairs bv_tests tri_tests; do
    [ "$(col "$cpu" "$c")" = "$(col "$wall" "$c")" ] || { echo "FAIL: $c differs between the clocks"; status=1; }
done
[ "$(col "$wall" pairs | awk '{ s += $1 } END { print s + 0 }')" -gt 0 ] || { echo "FAIL: no touching pairs"; status=1; }
[ "$(col "$wall" moved | sort -u)" = 40 ] || { echo "FAIL: moved is not 40 on every frame: $(col "$wall" moved)"; status=1; }
sed 's/^density = 0.3/density = 0.3\nmoving = 0.5/' "$fix/bodies_clock.ini" >"$tmp/half.ini"
"$cdlab" run --quiet --output "$tmp/out" --run-id half "$tmp/half.ini" >/dev/null
[ "$(col "$tmp/out/bodies_clock/half/frames.csv" moved | sort -u)" = 20 ] ||
    { echo "FAIL: moving = 0.5 of 40 bodies: moved $(col "$tmp/out/bodies_clock/half/frames.csv" moved)"; status=1; }
[ "$(col "$tmp/out/bodies_clock/half/summary.csv" moved_mean)" = 20 ] || { echo "FAIL: moved_mean is not 20"; status=1; }
[ $status -eq 0 ] && echo "ok bodies on the CPU clock: frame_ms positive, split NA, the same pairs and tests; moved 40, and 20 of 40 half moving"

# The cubes kind: a point with threads > 1 is timed on the wall clock whatever [measure] clock
# says, so it has the wall clock's broad/narrow split; one thread on the CPU clock has none.
printf '[experiment]\nname = ct\nwarmup = 1\nframes = 3\n[scene]\ncubes = 2000\n[method]\nmethod = grid_multi\nthreads = 1, 2\n[measure]\nclock = cpu\n[run]\npin = off\ncpu = -1\ncounters =\n' >"$tmp/ct.ini"
"$cdlab" run --quiet --output "$tmp/out" --run-id ct "$tmp/ct.ini" >/dev/null
split=$(col "$tmp/out/ct/ct/summary.csv" broad_ms_median | tr '\n' ' ')
case $split in
NA\ [0-9]*) echo "ok cubes on the CPU clock: broad_ms NA on one thread, measured on two (wall clock): $split" ;;
*) echo "FAIL: cubes broad_ms_median for threads = 1, 2: $split"; status=1 ;;
esac
exit $status
