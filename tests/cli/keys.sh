#!/bin/sh
# SPDX-License-Identifier: MIT
# Every key that varies is a column, and a method is crossed only with the parameters it declares.
# max_fps over threads = 1, 2 x cell_size = 0, 4 (grid): four summary rows that differ in the key
# columns threads and cell_size, and four curves in plots/max_fps.gp (the rows once merged into
# one curve, the summary listing only depth, looseness and update). method = naive, octree with
# depth = 0..24 is 1 + 25 points, not 50; a parameter no listed method reads is a warning and
# adds no points; a value out of one listed method's range is refused with file:line.
# Every figure a kind lists ([run] figures may name no other) has its script in plots/.
# usage: keys.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
plots=$(cd "$(dirname "$0")/../../plots" && pwd)

cat >"$tmp/mf.ini" <<'INI'
[experiment]
kind = max_fps
warmup = 0
frames = 2
repeats = 1
[method]
method = grid
threads = 1, 2
cell_size = 0, 4
[search]
start = 300
limit = 300
[run]
counters =
pin = off
cpu = -1
isolate = none
INI
"$cdlab" run --quiet --output "$tmp" --run-id r "$tmp/mf.ini" >/dev/null 2>"$tmp/err" || fail "max_fps run: $(cat "$tmp/err")"
d=$tmp/mf/r
rows=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["threads"] "/" $c["cell_size"] }' \
    "$d/summary.csv" | sort -u)
[ "$(echo "$rows" | wc -l)" -eq 4 ] || fail "max_fps: summary rows by threads/cell_size: $rows"
[ "$(($(wc -l <"$d/summary.csv") - 1))" -eq 4 ] || fail "max_fps: $(($(wc -l <"$d/summary.csv") - 1)) rows, expected 4"
echo "ok: max_fps: four rows, threads/cell_size =" $rows
keys=$(sed -n 's/^keys = //p' "$d/meta.ini" | tr -d ' ')
case ",$keys," in *,cell_size,*threads,*) ;; *) fail "meta.ini keys lacks threads, cell_size: $keys" ;; esac
groups=$(awk -F, -v varying=1 -v cols="$keys" -f "$plots/octree_groups.awk" "$d/summary.csv")
[ "$(echo $groups | wc -w)" -eq 4 ] || fail "max_fps.gp groups: '$groups', expected 4 curves"
echo "ok: max_fps.gp draws four curves: $groups"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -c "$plots/max_fps.gp" "$d" "$tmp/mf" >/dev/null 2>"$tmp/gp.err" || fail "max_fps.gp: $(cat "$tmp/gp.err")"
    [ -s "$tmp/mf.png" ] || fail "max_fps.gp wrote no PNG"
fi

# The plan crosses each method only with what it declares.
plan() { "$cdlab" run --dry-run "$1" 2>"$tmp/plan.err" | sed -n 's/.* \([0-9]*\) point(s), sha256.*/\1/p'; }
cat >"$tmp/cross.ini" <<'INI'
[experiment]
frames = 1
[method]
method = naive, octree
depth = 0..24
[run]
counters =
INI
[ "$(plan "$tmp/cross.ini")" = 26 ] || fail "naive, octree x depth 0..24: $(plan "$tmp/cross.ini") points, expected 26"
sed 's/^method = .*/method = naive/' "$tmp/cross.ini" >"$tmp/naive.ini"
[ "$(plan "$tmp/naive.ini")" = 1 ] || fail "naive x depth 0..24: $(plan "$tmp/naive.ini") points, expected 1"
grep -qF "$tmp/naive.ini:5: [method] depth: no listed method (naive) reads it" "$tmp/plan.err" ||
    fail "no warning for depth with naive alone: $(cat "$tmp/plan.err")"
echo "ok: naive, octree x depth = 0..24 is 26 points; naive alone 1, with a warning"
# Face counts a generator rounds far, and two that make the same meshes, are warned about.
printf '[experiment]\nkind = bodies\n[bodies]\nmeshes = icosphere, torus\nfaces = 20, 40\n[run]\ncounters =\n' >"$tmp/faces.ini"
"$cdlab" run --dry-run "$tmp/faces.ini" >/dev/null 2>"$tmp/faces.err" || fail "faces.ini: $(cat "$tmp/faces.err")"
grep -qF "$tmp/faces.ini:5: the mesh generators round face counts: torus:20 has 36, icosphere:40 has 20" \
    "$tmp/faces.err" && grep -qF "faces = 20 and 40 make the same meshes" "$tmp/faces.err" ||
    fail "no warning for rounded face counts: $(cat "$tmp/faces.err")"
echo "ok: face counts the generators round, and two that make one mesh, are warned about"
# a_over_h swept beside a workload that does not read it: those points repeat, with a warning.
printf '[experiment]\nkind = tri_tri\n[tri_tri]\nworkload = random, near\na_over_h = 0.01, 0.1\n[run]\ncounters =\n' \
    >"$tmp/tt.ini"
"$cdlab" run --dry-run "$tmp/tt.ini" >/dev/null 2>"$tmp/tt.err" || fail "tt.ini: $(cat "$tmp/tt.err")"
grep -qF "$tmp/tt.ini:5: [tri_tri] a_over_h takes 2 values, which only workload = random reads" "$tmp/tt.err" ||
    fail "no warning for a_over_h beside workload = near: $(cat "$tmp/tt.err")"
echo "ok: a_over_h swept beside workload = near is warned about"
sed 's/^depth = .*/depth = 30/' "$tmp/cross.ini" >"$tmp/range.ini"
"$cdlab" run --dry-run "$tmp/range.ini" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -qF "$tmp/range.ini:5: [method] depth: 30 out of range" "$tmp/err" ||
    fail "depth = 30: exit $rc, $(cat "$tmp/err")"
echo "ok: depth = 30 refused: $(cat "$tmp/err")"

# Every figure a kind lists (what [run] figures may name) has its script in plots/.
figs=$("$cdlab" run --keys | sed -n 's/^kind [^:]*:.*(figures: \([^;]*\); default .*/\1/p' | tr ',' ' ')
[ -n "$figs" ] || fail "no figures in cdlab run --keys"
for f in $figs; do [ -s "$plots/$f.gp" ] || fail "figure $f has no script $plots/$f.gp"; done
echo "ok: every figure of a kind has its script: $(echo $figs | wc -w) figures"
