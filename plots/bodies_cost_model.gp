# SPDX-License-Identifier: MIT
# Body scenes: the cost model against the measurement. Per point (hierarchy, mode, density,
# deform), the measured median narrow + refit time beside model_ms = Nv·Cv + Np·Cp + Nu·Cu (Cv, Cp
# measured on touching pairs of the last frame, Cu over every refit), log y. The gap is what the model leaves out (queries of pairs that do not touch,
# each query's setup).
# Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/bodies_cost_model.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c bodies_cost_model.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/bodies_cost_model"
file = dir."/summary.csv"
rows = "< awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h[\"model_ms\"] != \"NA\" { print $h[\"hierarchy\"] \"/\" $h[\"mode\"] \"@d\" $h[\"density\"] \"@def\" $h[\"deform\"], $h[\"narrow_ms_median\"] + $h[\"refit_ms_median\"], $h[\"model_ms\"] }' ".sh(file)

set datafile separator whitespace
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y 10
set grid ytics mytics lc rgb "#dddddd"
set key above
set ylabel "ms per frame"
set xtics rotate by -35 left
set rmargin 20  # room for the last rotated label

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1600,640 font ",10" noenhanced }
    else { set terminal pdfcairo size 12in,4.8in font ",9" noenhanced }
    set output stem.".".t
    set title "Narrow step and refit: measured medians vs cost model Nv·Cv + Np·Cp + Nu·Cu"
    plot rows using 2:xtic(1) title "narrow_ms + refit_ms (measured)", '' using 3 title "model_ms"
    unset output
}
