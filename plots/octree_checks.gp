# SPDX-License-Identifier: MIT
# The report's figure 6: narrow checks per frame (solid) and broad-phase BV tests per frame (dashed) vs
# cube count, log–log, one line per method (naive's checks are N(N−1)/2). Reads
# RUN_DIR/summary.csv (kind cubes); writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/octree_checks.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c octree_checks.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/octree_checks"
file = dir."/summary.csv"
awk = "awk -F, -v cols=method,depth,looseness,update -f ".sh(here."/octree_groups.awk")
groups = run(awk." ".sh(file))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(groups) == 0) { print "octree_checks.gp: no points in ".file; exit status 1 }
rows(g, y) = "< ".awk." -v key=".sh(g)." -v x=cubes -v y=".y." ".sh(file)

load here."/palette.gp"  # distinct colours for every series
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set xlabel "cubes"
set ylabel "per frame"
set logscale x 10
set logscale y 10
set format y "10^{%T}"
set key top left box opaque

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1100,700 font ",10" enhanced }
    else { set terminal pdfcairo size 9in,5.8in font ",9" enhanced }
    set output stem.".".t
    set title "Narrow checks (solid) and BV tests (dashed) per frame vs cube count (method/depth/looseness/update)" noenhanced
    plot for [i=1:words(groups)] rows(word(groups, i), "narrow_tests_mean") using 1:2 \
            with linespoints lw 2 pt 7 ps 0.7 lc i title word(groups, i)." checks" noenhanced, \
         for [i=1:words(groups)] rows(word(groups, i), "bv_tests_mean") using 1:($2 > 0 ? $2 : NaN) \
            with linespoints dt 2 lw 1.5 pt 6 ps 0.7 lc i title word(groups, i)." BV tests" noenhanced, \
         rows(word(groups, 1), "pairs_mean") using 1:2 \
            with lines dt 3 lw 1.5 lc rgb "#000000" title "overlapping pairs" noenhanced
    unset output
}
