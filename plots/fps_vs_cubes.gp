# SPDX-License-Identifier: MIT
# FPS (collision only) vs cube count: median with p5–p95 bars, log x, one line per method, and the
# 60 FPS line. Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/fps_vs_cubes.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c fps_vs_cubes.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/fps_vs_cubes"
file = dir."/summary.csv"
points(what) = run("awk -F, -v want=".what." -f ".sh(here."/points.awk")." ".sh(file))
methods = points("methodset")
cubes = points("cubeset")
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(methods) == 0) { print "fps_vs_cubes.gp: no points in ".file; exit status 1 }

load here."/palette.gp"  # distinct colours for every series
set datafile separator comma
set datafile columnheaders
set title "Collision FPS vs number of cubes (median, p5–p95 over frames × repeats)"
set xlabel "cubes"
set ylabel "FPS (collision only)"
set logscale x 2
set logscale y 10
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right box opaque
set xtics ()
do for [w in cubes] { set xtics add (w w + 0) }
set offsets graph 0.05, graph 0.05, 0, 0

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1000,650 font ",11" noenhanced }
    else { set terminal pdfcairo size 8in,5.2in font ",10" noenhanced }
    set output stem.".".t
    plot for [m in methods] file \
            using (strcol("method") eq m ? column("cubes") : NaN):"fps_median":"fps_p05":"fps_p95" \
            with yerrorlines lw 2 pt 7 ps 0.8 title m, \
         60 with lines dt 2 lw 1.5 lc rgb "#c00000" title "60 FPS"
    unset output
}
