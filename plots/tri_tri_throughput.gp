# SPDX-License-Identifier: MIT
# Million triangle–triangle tests per second for each workload (random small, near-touching,
# coplanar) and algorithm: bars at the median over frames x repeats, whiskers p5–p95. Reads
# RUN_DIR/summary.csv of configs/tri_tri_throughput.ini; writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/tri_tri_throughput.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c tri_tri_throughput.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/tri_tri_throughput"
file = dir."/summary.csv"
wx(w) = w eq "random" ? 0 : (w eq "near" ? 1 : 2)
ax(a) = a eq "exact" ? -0.27 : (a eq "float" ? 0 : 0.27)
x(w, a) = wx(w) + ax(a)
label(a) = a eq "exact" ? "plane-first, filtered-exact" : (a eq "float" ? "plane-first, plain float" : "Guigue–Devillers, filtered-exact")

load here."/palette.gp"  # distinct colours for every series
set datafile separator comma
set datafile columnheaders
set title "Triangle–triangle throughput (median, p5–p95 over passes)"
set ylabel "million tests per second"
set logscale y 10
set xrange [-0.6:2.6]
set xtics ("random small (a/H = 0.01)" 0, "near-touching" 1, "coplanar" 2)
set grid ytics mytics lc rgb "#dddddd"
set key top right box opaque
set style fill solid 0.6 border -1
set boxwidth 0.25

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1000,650 font ",11" noenhanced }
    else { set terminal pdfcairo size 8in,5.2in font ",10" noenhanced }
    set output stem.".".t
    plot for [a in "exact float gd"] file \
            using (strcol("algorithm") eq a ? x(strcol("workload"), a) : NaN):"mtests_per_s_median" \
            with boxes title label(a), \
         for [a in "exact float gd"] file \
            using (strcol("algorithm") eq a ? x(strcol("workload"), a) : NaN):"mtests_per_s_median":"mtests_per_s_p05":"mtests_per_s_p95" \
            with yerrorbars lc rgb "#333333" pt 0 notitle
    unset output
}
