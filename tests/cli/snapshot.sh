#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab snapshot`: PNG and SVG of a cubes or bodies point at frame K. The overlapping pairs it
# draws are the pairs `cdlab run` counted in the same frame (frames.csv, frame f of repeat 0 =
# warmup + f + 1 steps); the loose octree, the strict octree and the grid list cells, naive none
# (for bodies: the grid's rows; a peer is refused); the SVG is
# well-formed; a run directory stands for its config and `cdlab report` then shows the picture;
# bad input (and `-o -`: no picture goes to standard output) exits 2 and writes nothing. Skips
# (77) without gnuplot.
# usage: snapshot.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
case $fix in /*) ;; *) fix=$(pwd)/$fix ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "skip: no gnuplot"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
sed 's/^method = .*/method = naive, loose_octree, octree, grid/' "$fix/tiny.ini" >tiny.ini
grep -q '^method = naive, loose_octree, octree, grid' tiny.ini || { echo "FAIL: fixture has no method line"; exit 1; }
"$cdlab" run --quiet --output "$tmp" --run-id r tiny.ini >/dev/null

fail() { echo "FAIL: $*"; exit 1; }
for m in loose_octree octree grid naive; do
    "$cdlab" snapshot --where method=$m --where cubes=120 --frame 4 -o "$tmp/$m" tiny.ini >out 2>err ||
        fail "snapshot $m: $(cat err)"
    [ "$(cat out)" = "$(printf '%s\n%s' "$tmp/$m.png" "$tmp/$m.svg")" ] || fail "snapshot $m printed $(cat out)"
    [ "$(head -c 8 "$m.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$m.png is not a PNG"
    xmllint --noout "$m.svg" 2>/dev/null || ! command -v xmllint >/dev/null || fail "$m.svg is not well formed"
    # Frame 4 = warmup 2 + frame 1 + 1: the run's pairs at repeat 0, frame 1 of the point.
    want=$(awk -F, -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $h["method"] == m && $h["cubes"] == 120 && $h["repeat"] == 0 && $h["frame"] == 1 { print $h["pairs"] }' \
        tiny/r/frames.csv)
    got=$(sed -n 's/.* in \([0-9]*\) overlapping pairs.*/\1/p' err)
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "$m: $got pairs drawn, the run counted $want"
    cells=$(sed -n 's/.*), \([0-9]*\) cells.*/\1/p' err)
    if [ $m = naive ]; then
        [ "$cells" = 0 ] || fail "naive listed $cells cells"
    else
        [ "$cells" -gt 0 ] || fail "$m listed no cells"
    fi
done
# A bodies config: the boxes of the bodies, the pairs the hierarchy queries kept (as the run counted
# them), the grid's rows; a peer (FCL's manager) has no broad phase to draw.
sed 's/^method = .*/method = grid, fcl_obb/' "$fix/bodies_clock.ini" >bodies.ini
"$cdlab" run --quiet --output "$tmp" --run-id r bodies.ini >/dev/null
"$cdlab" snapshot --point 0 --frame 3 -o bodies bodies.ini >out 2>err || fail "bodies snapshot: $(cat err)"
[ -s bodies.png ] && [ -s bodies.svg ] || fail "no bodies picture"
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    $h["method"] == "grid" && $h["repeat"] == 0 && $h["frame"] == 1 { print $h["pairs"]; exit }' bodies_clock/r/frames.csv)
got=$(sed -n 's/.* bodies (.* in \([0-9]*\) overlapping pairs.*/\1/p' err)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "bodies: $got pairs drawn, the run counted $want"
cells=$(sed -n 's/.*), \([0-9]*\) cells.*/\1/p' err)
[ "$cells" -gt 0 ] || fail "grid listed no cells for the bodies"
set +e
"$cdlab" snapshot --where method=fcl_obb -o peer bodies.ini >/dev/null 2>err
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'is a peer' err && [ ! -e peer.png ] || fail "a bodies peer: exit $rc, $(cat err)"

# A sample above --max-boxes: fewer cubes drawn, all those of pairs still.
"$cdlab" snapshot --where method=grid --where cubes=120 --frame 4 --max-boxes 10 -o small tiny.ini >/dev/null 2>err
grep -q '120 cubes (\([0-9]*\) drawn' err || fail "no summary line"
drawn=$(sed -n 's/.*120 cubes (\([0-9]*\) drawn, \([0-9]*\) in.*/\1 \2/p' err)
set -- $drawn
[ "$1" -eq $(($2 + 10)) ] || fail "--max-boxes 10 drew $1 cubes with $2 in pairs"

# -o NAME.png or NAME.svg is that one file, named as given.
for ext in png svg; do
    "$cdlab" snapshot --point 0 -o "one.$ext" tiny.ini >out 2>/dev/null || fail "snapshot -o one.$ext"
    [ "$(cat out)" = "one.$ext" ] && [ -s "one.$ext" ] || fail "-o one.$ext printed $(cat out)"
    [ ! -e "one.$ext.$ext" ] && [ ! -e one.png.svg ] && [ ! -e one.svg.png ] || fail "-o one.$ext: $(ls one.*)"
done
[ "$(head -c 8 one.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "one.png is not a PNG"
# Written as every output: through a symbolic link, keeping the file's permissions (the scratch
# file was renamed over the link).
chmod 600 one.png && ln -s one.png link.png
"$cdlab" snapshot --point 0 -o link.png tiny.ini >/dev/null 2>err || fail "snapshot -o link.png: $(cat err)"
[ -L link.png ] && [ "$(stat -c %a one.png)" = 600 ] || fail "-o link.png: $(ls -l link.png one.png)"

# A run directory: its config.ini; the picture lands in the run and the report shows it.
"$cdlab" snapshot --point 0 tiny/r >out 2>/dev/null || fail "snapshot of a run directory"
[ -s tiny/r/snapshot_p0_f0.png ] && [ -s tiny/r/snapshot_p0_f0.svg ] || fail "no snapshot in the run directory"
"$cdlab" report -o page.html tiny/r >/dev/null 2>&1 || fail "report with a snapshot"
grep -q '<figcaption>snapshot_p0_f0.png</figcaption>' page.html || fail "the report does not show the snapshot"

# Every scene family draws (docs/design/scene.md#scene-families).
printf '[experiment]\nname = fam\nwarmup = 0\nframes = 1\n[method]\nmethod = grid\n[scene]\ncubes = 200\nlayout = uniform, clusters, ground, level\nsize_dist = pareto\nsize_ratio = 4\nmoving = 0.5\nsleep = 2\n' >fam.ini
for l in uniform clusters ground level; do
    "$cdlab" snapshot --where layout=$l --frame 2 -o "fam_$l" fam.ini >out 2>err || fail "snapshot of layout $l: $(cat err)"
    [ -s "fam_$l.png" ] || fail "no picture of layout $l"
done

# A world whose side prints without a decimal point ("5e-05"), which gnuplot's real() refuses.
printf '# world=5e-05\nid,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz\n0,1e-05,1e-05,1e-05,1,0,0,0,1e-6,1e-6,1e-6\n1,1.1e-05,1e-05,1e-05,1,0,0,0,1e-6,1e-6,1e-6\n' >small.csv
printf '[experiment]\nname = small\nwarmup = 0\nframes = 1\n[method]\nmethod = grid_multi\n[scene]\nfile = small.csv\n' >small.ini
"$cdlab" snapshot -o small small.ini >out 2>err || fail "snapshot of a world of 5e-05: $(cat err)"
grep -q "2 cubes (2 drawn, 2 in 1 overlapping pairs)" err && [ -s small.png ] || fail "small world: $(cat err)"

# A method's parameter selects points too (its CSV column: NA where the method does not read it).
sed -e 's/^method = .*/method = naive, octree\ndepth = 3, 4/' -e 's/^cubes = .*/cubes = 120/' tiny.ini >depth.ini
"$cdlab" snapshot --where method=octree --where depth=4 -o deep depth.ini >/dev/null 2>err ||
    fail "snapshot --where depth=4: $(cat err)"
grep -q "cells to level" err && [ -s deep.png ] || fail "snapshot --where depth=4: $(cat err)"
set +e
"$cdlab" snapshot --where method=naive --where depth=4 -o naive4 depth.ini >/dev/null 2>err
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "no point matches every --where" err && [ ! -e naive4.png ] ||
    fail "snapshot --where method=naive --where depth=4 exited $rc: $(cat err)"

# -o -: standard output, where a picture cannot go, is refused as every such output is (exit 2,
# before the config is read), never taken for the stem of files named -.png and -.svg.
set +e
"$cdlab" snapshot --point 0 -o - tiny.ini >out 2>err
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -qF "cdlab snapshot: '-': expected a file path" err && [ ! -s out ] &&
    [ ! -e ./-.png ] && [ ! -e ./-.svg ] && [ ! -e ./- ] || fail "snapshot -o -: exit $rc, $(cat err), $(ls -A)"

# Bad input: exit 2, nothing written. empty.ini's scene holds no cubes: nothing to draw (gnuplot
# failed on it, and the message blamed its terminals).
printf '[experiment]\nwarmup = 0\nframes = 2\n[scene]\ncubes = 0\n[method]\nmethod = grid\n' >empty.ini
for args in "empty.ini" "--point 99 tiny.ini" "--where nosuchkey=1 tiny.ini" "--where method=sap tiny.ini" \
            "--frame -1 tiny.ini" "--frame 1000000000000 tiny.ini" "--frame 20000001 tiny.ini" \
            "--point 0 --where cubes=30 tiny.ini" "$fix/tri_tri.ini" "missing.ini" ""; do
    set +e
    # shellcheck disable=SC2086
    "$cdlab" snapshot -o bad $args >/dev/null 2>err
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "snapshot $args exited $rc, expected 2"
    grep -q 'cdlab snapshot: ' err || fail "snapshot $args: no message"
    [ ! -e bad.png ] && [ ! -e bad.svg ] || fail "snapshot $args wrote a file"
done
echo "ok: pairs as counted by the run (cubes, bodies), cells of four methods, sample, -o NAME.png, every scene family, run directory in the report, -o - refused, bad input"
