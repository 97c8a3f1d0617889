# SPDX-License-Identifier: MIT
# Mean arithmetic operations (add/sub + mul + div, counting build) of one triangle–triangle test vs
# a/H for random triangles of size a in a box of side H, one line per algorithm, with seed 003's
# 39-operation line. Reads RUN_DIR/summary.csv of configs/tri_tri_ops.ini; writes OUTPUT_STEM.png
# (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/tri_tri_ops.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c tri_tri_ops.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/tri_tri_ops"
file = dir."/summary.csv"
algos = run("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } !($h[\"algorithm\"] in s) { s[$h[\"algorithm\"]] = 1; printf \"%s \", $h[\"algorithm\"] }' ".sh(file))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(algos) == 0) { print "tri_tri_ops.gp: no points in ".file; exit status 1 }
label(a) = a eq "exact" ? "plane-first, filtered-exact" : (a eq "float" ? "plane-first, plain float" : (a eq "gd" ? "Guigue–Devillers, filtered-exact" : a))

base(a) = a eq "float" ? 39 : 42   # the plane test's cost: 39, plus 3 for the exact bound
set datafile separator comma
set datafile columnheaders
set grid xtics ytics lc rgb "#dddddd"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1000,900 font ",11" enhanced }
    else { set terminal pdfcairo size 8in,7.2in font ",10" enhanced }
    set output stem.".".t
    set multiplot layout 2,1
    set title "Triangle–triangle test: mean arithmetic operations vs a/H (random triangles, counting build)"
    set xlabel "a / H (triangle size over box side)"
    set ylabel "arithmetic operations per test (mean)"
    set logscale x 10
    unset logscale y
    set format x "10^{%L}"
    set format y "%g"
    set key top left box opaque
    set yrange [0:*]
    plot for [a in algos] file using (strcol("algorithm") eq a ? column("a_over_h") : NaN):"ops_mean" \
            with linespoints lw 2 pt 7 ps 0.8 title label(a), \
         39 with lines dt 2 lw 1.5 lc rgb "#c00000" title "39 (seed 003: plane test only)"
    set title "Excess over the plane test's cost (39 plain, 42 filtered-exact): O(a/H)"
    set ylabel "mean operations − 39 (or − 42)"
    set logscale y 10
    set format y "10^{%L}"
    set yrange [*:*]
    set key top left box opaque
    plot for [a in algos] file \
            using (strcol("algorithm") eq a && column("ops_mean") > base(a) ? column("a_over_h") : NaN):(column("ops_mean") - base(a)) \
            with linespoints lw 2 pt 7 ps 0.8 title label(a), \
         20 * x with lines dt 2 lw 1.5 lc rgb "#c00000" title "20 a/H"
    unset multiplot
    unset output
}
