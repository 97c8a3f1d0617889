#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab plot` renders the figures meta.ini lists as non-empty PNG and PDF files. Each figure is
# replaced whole or not at all: a re-plot whose gnuplot fails (also past a file size limit), or
# writes no PNG, leaves the previous figures as they were (and their permissions when it
# succeeds) and no temporary file; a shard without points gets no figure, not an empty file. The exit status is the most serious of the
# figures' (2 for a figure without a script over 1 for one gnuplot failed on), in either order.
# Skips (77) when gnuplot is not installed.
# usage: plot.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
command -v gnuplot >/dev/null 2>&1 || { echo "skip: no gnuplot"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cdlab" run --quiet --output "$tmp" --run-id p "$fix/tiny.ini" >/dev/null
"$cdlab" plot "$tmp/tiny/latest"
for fig in fps_vs_cubes frame_ms_series; do
    for ext in png pdf; do
        [ -s "$tmp/tiny/p/$fig.$ext" ] || { echo "FAIL: $fig.$ext missing"; exit 1; }
    done
done
head -c 4 "$tmp/tiny/p/fps_vs_cubes.pdf" | grep -q '%PDF' || { echo "FAIL: not a PDF"; exit 1; }
# A directory that is not a run is a usage error.
if "$cdlab" plot "$tmp" 2>/dev/null; then echo "FAIL: plot of a non-run directory succeeded"; exit 1; fi
echo "ok: both figures as PNG and PDF"

# A re-plot that fails keeps the figures: gnuplot exits 1, or exits 0 having written no PNG.
d=$tmp/tiny/p
mkdir "$tmp/bad" "$tmp/nopng" "$tmp/keep"
cp "$d"/*.png "$d"/*.pdf "$tmp/keep/"
echo 'exit status 1' >"$tmp/bad/fps_vs_cubes.gp"
printf 'set terminal dumb\nset output ARG2.".png"\nplot x\nset output ARG2.".pdf"\nplot x\n' >"$tmp/nopng/fps_vs_cubes.gp"
# figures_kept WHAT: the run's figures are the saved ones, byte for byte, and nothing else is left.
figures_kept() {
    for f in fps_vs_cubes.png fps_vs_cubes.pdf frame_ms_series.png frame_ms_series.pdf; do
        cmp -s "$tmp/keep/$f" "$d/$f" || { echo "FAIL: $1 changed or removed $f"; exit 1; }
    done
    left=$(ls -A "$d" | grep -v -x -e config.ini -e meta.ini -e summary.csv -e frames.csv -e '.*\.png' -e '.*\.pdf' || true)
    [ -z "$left" ] || { echo "FAIL: $1 left $left"; exit 1; }
}
for plots in bad nopng; do
    set +e
    "$cdlab" plot --plots "$tmp/$plots" "$d" >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    figures_kept "a failed re-plot ($plots)"
    [ "$rc" -eq 2 ] || { echo "FAIL: re-plot with $plots/fps_vs_cubes.gp and no frame_ms_series.gp: exit $rc, expected 2"; exit 1; }
done
grep -q "wrote no PNG and PDF" "$tmp/err" || { echo "FAIL: no message for a script that wrote no PNG"; cat "$tmp/err"; exit 1; }
echo "ok: a failed re-plot keeps the previous figures and leaves no file"
# Past a file size limit (ulimit -f 1: 1 KiB, below any figure) gnuplot fails too: cdlab ignores
# SIGXFSZ, and gives gnuplot its default action back, since gnuplot ignoring it exits 0 with the
# figure cut at the limit (yet starting as a PNG). Exit 1, the figures as they were, nothing left.
set +e
(ulimit -f 1; env --default-signal=XFSZ "$cdlab" plot "$d" >/dev/null 2>"$tmp/err")
rc=$?
set -e
figures_kept "a re-plot over ulimit -f (exit $rc)"
[ "$rc" -eq 1 ] || { echo "FAIL: a re-plot over ulimit -f: exit $rc, expected 1: $(cat "$tmp/err")"; exit 1; }
echo "ok: a re-plot past a file size limit fails and keeps the previous figures"

# Exit 2 for a figure without a script beside one gnuplot fails on, in either order ($tmp/bad has
# fps_vs_cubes.gp failing and no frame_ms_series.gp).
for figs in "frame_ms_series, fps_vs_cubes" "fps_vs_cubes, frame_ms_series"; do
    sed "s/^\[run\]/[run]\nfigures = $figs/" "$fix/tiny.ini" >"$tmp/figs.ini"
    "$cdlab" run --quiet --output "$tmp" --run-id f "$tmp/figs.ini" >/dev/null
    set +e
    "$cdlab" plot --plots "$tmp/bad" "$tmp/tiny/f" >/dev/null 2>&1
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || { echo "FAIL: figures = $figs, fps_vs_cubes failing: exit $rc, expected 2"; exit 1; }
    rm -rf "$tmp/tiny/f"
done
echo "ok: exit 2 for a figure without a script, whatever the order"

# A figure name that is a path (a meta.ini edited by hand: the config takes only the kind's
# figures) is refused with exit 2, and nothing is written outside the run directory.
"$cdlab" run --quiet --output "$tmp" --run-id esc "$fix/tiny.ini" >/dev/null
sed -i 's|^figures = .*|figures = ../plots/fps_vs_cubes|' "$tmp/tiny/esc/meta.ini"
mkdir -p "$tmp/tiny/esc/plots" "$tmp/tiny/plots"
set +e
"$cdlab" plot "$tmp/tiny/esc" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: figure ../plots/fps_vs_cubes: exit $rc, expected 2: $(cat "$tmp/err")"; exit 1; }
grep -q "figure '../plots/fps_vs_cubes' is not a name" "$tmp/err" || { echo "FAIL: message: $(cat "$tmp/err")"; exit 1; }
[ -z "$(ls -A "$tmp/tiny/plots")" ] || { echo "FAIL: a figure written outside the run: $(ls -A "$tmp/tiny/plots")"; exit 1; }
rm -rf "$tmp/tiny/esc" "$tmp/tiny/plots"
echo "ok: exit 2 for a figure name that is a path, nothing written outside the run"

# A re-plot keeps a figure's permissions.
chmod 600 "$d/fps_vs_cubes.png"
"$cdlab" plot "$d" >/dev/null
[ "$(stat -c %a "$d/fps_vs_cubes.png")" = 600 ] || { echo "FAIL: a re-plot changed the figure's mode"; exit 1; }

# A shard without points: no figure, not an empty file.
for i in 0 1 2; do "$cdlab" run --quiet --output "$tmp" --shard $i/3 --run-id s$i "$fix/tiny.ini" >/dev/null; done
e=$(grep -l '^points =$' "$tmp"/tiny/s*/meta.ini | head -n 1)
[ -n "$e" ] || { echo "FAIL: no shard of tiny.ini without points"; exit 1; }
e=${e%/meta.ini}
set +e
"$cdlab" plot "$e" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL: plot of a shard without points: exit $rc, expected 1"; exit 1; }
if ls -A "$e" | grep -q '\.png$\|\.pdf$\|^\.cdlab'; then echo "FAIL: a shard without points got $(ls -A "$e")"; exit 1; fi
grep -q 'no points in' "$tmp/err" || { echo "FAIL: no message for a shard without points"; cat "$tmp/err"; exit 1; }
# Nor where the script fails after gnuplot opened its output (an empty file until then).
mkdir "$tmp/half"
printf 'set terminal pngcairo\nset output ARG2.".png"\nexit status 1\n' >"$tmp/half/fps_vs_cubes.gp"
cp "$tmp/half/fps_vs_cubes.gp" "$tmp/half/frame_ms_series.gp"
set +e
"$cdlab" plot --plots "$tmp/half" "$e" >/dev/null 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL: plot with scripts that fail after opening their output: exit $rc, expected 1"; exit 1; }
if ls -A "$e" | grep -q '\.png$\|\.pdf$\|^\.cdlab'; then echo "FAIL: a failed figure left $(ls -A "$e")"; exit 1; fi
echo "ok: a shard without points gets no figure (exit 1), nor a script that fails once its output is open"
