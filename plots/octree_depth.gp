# SPDX-License-Identifier: MIT
# The report's figure 3: depth sweep of the strict and loose octrees. Left: collision FPS (median, p5–p95
# bars) vs maximum depth; right: narrow checks (solid) and BV tests (dashed) per frame vs depth,
# one line per method × cube count. Reads RUN_DIR/summary.csv (kind cubes); writes
# OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/octree_depth.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c octree_depth.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/octree_depth"
file = dir."/summary.csv"
awk = "awk -F, -v cols=method,cubes -f ".sh(here."/octree_groups.awk")
groups = run(awk." ".sh(file))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(groups) == 0) { print "octree_depth.gp: no points in ".file; exit status 1 }
rows(g, y) = "< ".awk." -v key=".sh(g)." -v x=depth -v y=".y." ".sh(file)
title(g) = sprintf("%s, %s cubes", g[1:strstrt(g, "/") - 1], g[strstrt(g, "/") + 1:])

load here."/palette.gp"  # distinct colours for every series
set grid xtics ytics mytics lc rgb "#dddddd"
set xlabel "maximum depth"
set xrange [-0.3:*]
set xtics 1
set logscale y 10

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1700,600 font ",10" noenhanced }
    else { set terminal pdfcairo size 14in,4.8in font ",9" noenhanced }
    set output stem.".".t
    set multiplot layout 1, 2 title "Octree depth sweep (median over frames × repeats)"
    set title "collision FPS vs depth"
    set ylabel "FPS (collision only)"
    set key bottom right box opaque
    plot for [i=1:words(groups)] rows(word(groups, i), "fps_median,fps_p05,fps_p95") using 1:2:3:4 \
            with yerrorlines lw 2 pt 7 ps 0.7 lc i title title(word(groups, i)), \
         60 with lines dt 2 lc rgb "#c00000" title "60 FPS"
    set title "narrow checks (solid) and BV tests (dashed) per frame vs depth"
    set ylabel "per frame"
    set key outside right top box opaque
    plot for [i=1:words(groups)] rows(word(groups, i), "narrow_tests_mean") using 1:2 \
            with linespoints lw 2 pt 7 ps 0.7 lc i title title(word(groups, i))." checks", \
         for [i=1:words(groups)] rows(word(groups, i), "bv_tests_mean") using 1:2 \
            with linespoints dt 2 lw 1.5 pt 6 ps 0.7 lc i title title(word(groups, i))." BV tests"
    unset multiplot
    unset output
}
