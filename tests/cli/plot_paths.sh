#!/bin/sh
# SPDX-License-Identifier: MIT
# Whatever a path holds, the figure scripts take it as data, never as code. Runs of every kind
# that list all eighteen figures of plots/ are drawn once at a plain path, then copied into a
# directory whose name holds a quote, $(...) and backquotes that would create a file, double
# quotes, an '=', a space and a newline, and drawn again with scripts read from such a directory:
# every figure drawn, byte for byte the plain one, nothing executed. Likewise a relative run
# directory named "<x=1" (a gnuplot pipe for a data file, an awk assignment) and an output stem
# "|y" (a gnuplot pipe for an output); `cdlab report` with its scratch directory ($TMPDIR), the
# reference results and the runs under such names; `cdlab snapshot` with its scratch directory
# there. A helper script that cannot run fails the figure (exit 1, no file) instead of drawing it
# empty. Skips (77) without gnuplot.
# usage: plot_paths.sh CDLAB FIXTURE_DIR
set -u
src=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
plots=$src/plots
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "skip: no gnuplot"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

cat >bodies.ini <<'INI'
[experiment]
name = b
kind = bodies
seed = 7
frames = 3
warmup = 0
repeats = 1
[scene]
bodies = 20
[bodies]
meshes = icosphere, torus
faces = 100, 200
density = 0.05
deform = 0, 0.05
[method]
method = grid_multi
hierarchy = obb, hybrid
mode = first_hit
[run]
pin = off
counters =
figures = bodies_fps, bodies_frame_series, bodies_cost_model
INI
cat >cubes.ini <<'INI'
[experiment]
name = c
kind = cubes
seed = 7
warmup = 0
frames = 2
repeats = 1
[scene]
cubes = 30, 120
moving = 0.5, 1
[method]
method = octree, loose_octree
depth = 3, 4
looseness = 1.5, 2
update = rebuild
[run]
pin = off
counters =
figures = fps_vs_cubes, frame_ms_series, frame_ms_vs_cubes, frame_ms_vs_moving, frame_ms_by_workload,
    octree_checks, octree_depth, octree_looseness, octree_stress
INI
cat >max_fps.ini <<'INI'
[experiment]
name = m
kind = max_fps
seed = 7
warmup = 0
frames = 2
repeats = 1
[search]
start = 1024
limit = 4096
resolution = 0.5
clock = cpu
[method]
method = grid, naive
[run]
pin = off
counters =
figures = max_fps
INI
cat >mesh.ini <<'INI'
[experiment]
name = me
kind = mesh
seed = 7
warmup = 0
repeats = 1
[method]
hierarchy = obb, hybrid
mode = first_hit, all_pairs
hybrid_x = 0, 2
hybrid_y = 0, 2
[mesh]
a = icosphere
b = torus
faces = 100, 400
distance = 1.0, 2.1
poses = 2
[run]
pin = off
counters =
figures = mesh_qps_vs_faces, mesh_qps_vs_distance, mesh_layers
INI
cat >tri_tri.ini <<'INI'
[experiment]
name = t
kind = tri_tri
seed = 7
warmup = 0
frames = 1
repeats = 1
[tri_tri]
workload = random, near, coplanar
algorithm = exact, float, gd
a_over_h = 1e-3, 1e-1
pairs = 3000
[run]
pin = off
counters =
figures = tri_tri_ops, tri_tri_throughput
INI

# The runs at a plain path, drawn: the figures to compare with.
kinds="b c m me t"
for ini in bodies cubes max_fps mesh tri_tri; do
    "$cdlab" run --quiet --output plain --run-id r "$ini.ini" >/dev/null 2>err || fail "run $ini: $(cat err)"
done
"$cdlab" plot plain/b/r plain/c/r plain/m/r plain/me/r plain/t/r >/dev/null 2>err || fail "plot at a plain path: $(cat err)"
n=$(ls plain/*/r/*.png | wc -l)
[ "$n" -eq 18 ] || fail "$n figures at a plain path, expected 18"

# A name that runs a command wherever a shell or gnuplot takes it for code.
odd="q'uote \$(touch $tmp/PWNED) \`touch $tmp/PWNED\` \"dq\" x=1
line"
mkdir -p "$tmp/$odd/runs" "$tmp/$odd/plots" "$tmp/$odd/tmp" "$tmp/$odd/ref"
cp "$plots"/* "$tmp/$odd/plots/"
for k in $kinds; do
    cp -r "plain/$k/r" "$tmp/$odd/runs/$k"
    rm -f "$tmp/$odd/runs/$k"/*.png "$tmp/$odd/runs/$k"/*.pdf
done
same() {  # same DIR KIND: DIR holds every figure of plain/KIND/r, byte for byte
    for f in plain/"$2"/r/*.png; do
        cmp -s "$f" "$1/${f##*/}" || fail "$1/${f##*/} is not the figure drawn at a plain path"
    done
}
pwned() { [ ! -e "$tmp/PWNED" ] || fail "$1 ran a command in a path"; }

"$cdlab" plot --plots "$tmp/$odd/plots" "$tmp/$odd/runs/b" "$tmp/$odd/runs/c" "$tmp/$odd/runs/m" \
    "$tmp/$odd/runs/me" "$tmp/$odd/runs/t" >/dev/null 2>err || fail "plot in an odd path: $(cat err)"
pwned "cdlab plot"
for k in $kinds; do same "$tmp/$odd/runs/$k" "$k"; done
echo "ok: 18 figures drawn in a path of quotes, \$(...) and backquotes, as at a plain path"

# Relative names gnuplot would open as pipes: a run directory "<x=1", an output stem "|y".
mkdir "<x=1"
cp -r plain/t/r "<x=1/t"
rm -f "<x=1/t"/*.png "<x=1/t"/*.pdf
"$cdlab" plot "<x=1/t" >/dev/null 2>err || fail "plot <x=1/t: $(cat err)"
same "<x=1/t" t
gnuplot -c "$plots/tri_tri_ops.gp" "<x=1/t" "|y" 2>err || fail "gnuplot -c tri_tri_ops.gp <x=1/t |y: $(cat err)"
cmp -s "|y.png" plain/t/r/tri_tri_ops.png || fail "the stem |y is not the file |y.png"
echo "ok: a run directory <x=1 and an output stem |y are files"

# The report: runs, references and its scratch directory in odd paths.
sed 's/^# experiments:.*/# experiments: t/' "$src/experiments/reference/notes_tri_tri_ops.csv" >"$tmp/$odd/ref/n.csv"
rm -f "$tmp/$odd/runs/t"/*.png "$tmp/$odd/runs/t"/*.pdf
TMPDIR="$tmp/$odd/tmp" "$cdlab" report --plots "$tmp/$odd/plots" --reference "$tmp/$odd/ref" -o report.html \
    "$tmp/$odd/runs/t" >/dev/null 2>err || fail "report in an odd path: $(cat err)"
pwned "cdlab report"
figures=$(grep -o '<figure class="fig">' report.html | wc -l)
[ "$figures" -eq 3 ] && ! grep -q 'could not be drawn' report.html ||
    fail "the report holds $figures figures, expected 3 drawn: $(cat err)"
echo "ok: report with runs, references and scratch in odd paths"

# snapshot: its scratch directory under such a $TMPDIR.
TMPDIR="$tmp/$odd/tmp" "$cdlab" snapshot --frame 1 --plots "$tmp/$odd/plots" -o snap "$tmp/$odd/runs/c" \
    >/dev/null 2>err || fail "snapshot with an odd TMPDIR: $(cat err)"
pwned "cdlab snapshot"
[ -s snap.png ] && [ -s snap.svg ] || fail "snapshot drew nothing"
echo "ok: snapshot with an odd TMPDIR"

# A helper that cannot run (points.awk gone) fails the figure instead of drawing it empty.
mkdir noawk
cp "$plots"/*.gp noawk/
rm -f plain/c/r/frame_ms_series.png plain/c/r/frame_ms_series.pdf
sed 's/^figures = .*/figures = frame_ms_series/' cubes.ini | grep -v '^    octree' >series.ini
"$cdlab" run --quiet --output plain --run-id s series.ini >/dev/null 2>err || fail "run series: $(cat err)"
"$cdlab" plot --plots noawk plain/c/s >/dev/null 2>err
rc=$?
[ "$rc" -eq 1 ] && [ ! -e plain/c/s/frame_ms_series.png ] ||
    fail "a figure whose helper failed: exit $rc, $(ls plain/c/s)"
grep -q 'a shell command failed' err || fail "no message for the failed helper: $(cat err)"
echo "ok: a failed helper fails the figure"
