# SPDX-License-Identifier: MIT
# Milliseconds per frame (motion + broad + narrow) vs cube count, log–log: median with p5–p95 bars,
# one line per method (cdlab's and the peers'), and the 60 FPS budget (16.7 ms). Points a budget
# skipped (NA) are left out. Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/frame_ms_vs_cubes.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c frame_ms_vs_cubes.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/frame_ms_vs_cubes"
file = dir."/summary.csv"
points(what) = run("awk -F, -v want=".what." -f ".sh(here."/points.awk")." ".sh(file))
methods = points("methodset")
cubes = points("cubeset")
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(methods) == 0) { print "frame_ms_vs_cubes.gp: no points in ".file; exit status 1 }

# Peers (FCL, Bullet, CGAL, ODE) dashed, cdlab's methods solid.
is_peer(m) = strstrt(m, "fcl_") == 1 || strstrt(m, "bullet_") == 1 || strstrt(m, "cgal_") == 1 || strstrt(m, "ode_") == 1

load here."/palette.gp"  # distinct colours for every series
set datafile separator comma
set datafile columnheaders
set datafile missing "NA"
set title "Milliseconds per frame vs number of cubes (median, p5–p95 over frames)"
set xlabel "cubes"
set ylabel "ms per frame (motion + broad + narrow)"
set logscale x 10
set logscale y 10
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top box opaque
set xtics ()
do for [w in cubes] { set xtics add (w w + 0) }
set offsets graph 0.05, graph 0.05, 0, 0

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1200,700 font ",11" noenhanced }
    else { set terminal pdfcairo size 9.5in,5.5in font ",10" noenhanced }
    set output stem.".".t
    plot for [i = 1:words(methods)] file \
            using (strcol("method") eq word(methods, i) ? column("cubes") : NaN):"frame_ms_median":"frame_ms_p05":"frame_ms_p95" \
            with yerrorlines lw 2 lc i pt i ps 0.8 dashtype 1 + is_peer(word(methods, i)) title word(methods, i), \
         1000.0 / 60 with lines dt 2 lw 1.5 lc rgb "#c00000" title "60 FPS (16.7 ms)"
    unset output
}
